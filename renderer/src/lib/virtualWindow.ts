/*
 * The arithmetic of a virtualized table of fixed-height rows: which rows are laid out for a scroll
 * position, and where to scroll to bring a row into view. Pure, so that the DataTable component
 * only binds it to the DOM.
 *
 * A browser cannot scroll an element much taller than about 15 million pixels, so when
 * rows × rowHeight is taller than `MAX_SCROLL` the scroll range is scaled: scrollTop maps linearly
 * onto the virtual position, and the scrollbar still reaches the last of a million rows.
 */

/** The tallest scroll range the table gives its body, in CSS pixels. */
export const MAX_SCROLL = 15_000_000;
/** Rows laid out beyond each edge of the screen: an arrow key or a small scroll shows rows already laid out. */
export const OVERSCAN = 4;
/**
 * Rows sit in the layer at offsets from a base row that moves in steps of this many rows, so that
 * while the table scrolls the rows already on screen keep their place and only the layer moves.
 */
export const BASE_STEP = 1000;

/** What the window is computed from. Lengths are CSS pixels. */
export interface WindowInput {
  /** Rows in the result (0 or more). */
  total: number;
  /** Height of one row (greater than 0). */
  rowHeight: number;
  /** The scroller's scrollTop, in the (possibly scaled) scroll range. */
  scrollTop: number;
  /** Height of the rows' viewport: the scroller's height less the sticky header. */
  viewportHeight: number;
}

/** The rows in view and the geometry that places them. Lengths are CSS pixels, indexes zero-based. */
export interface VirtualWindow {
  /** Height of every row together: total × rowHeight. */
  contentHeight: number;
  /** Height the body is given to scroll: the content's, at most `MAX_SCROLL`. */
  scrollHeight: number;
  /** Virtual pixels per scrolled pixel: 1 unless the content is taller than `MAX_SCROLL`. */
  ratio: number;
  /** The virtual position of the viewport's top edge, within [0, contentHeight − viewportHeight]. */
  top: number;
  /** The first row laid out (overscan included); 0 when there are no rows. */
  first: number;
  /** The last row laid out (overscan included); −1 when there are no rows. */
  last: number;
  /** The row the layer's offsets count from: `first` rounded down to a multiple of `BASE_STEP`. */
  base: number;
}

/**
 * The rows to lay out for a scroll position, and the geometry that places them: row i sits at
 * (i − base) × rowHeight inside a layer translated by base × rowHeight − top.
 */
export function virtualWindow({ total, rowHeight, scrollTop, viewportHeight }: WindowInput): VirtualWindow {
  const contentHeight = total * rowHeight;
  const scrollHeight = Math.min(contentHeight, MAX_SCROLL);
  const ratio = contentHeight > MAX_SCROLL && MAX_SCROLL > viewportHeight ? (contentHeight - viewportHeight) / (MAX_SCROLL - viewportHeight) : 1;
  const top = Math.min(scrollTop * ratio, Math.max(0, contentHeight - viewportHeight));
  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(total - 1, Math.ceil((top + viewportHeight) / rowHeight) + OVERSCAN);
  return { contentHeight, scrollHeight, ratio, top, first, last, base: first - (first % BASE_STEP) };
}

/** Where a row is wanted in the viewport: at the top, at the nearest edge (if not in view), or in the middle. */
export type ScrollAlign = 'top' | 'nearest' | 'center';

/** The scroll that brings a row into view. */
export interface ScrollTarget {
  /** The scrollTop to set: the wanted position, or the nearest one the rows counted so far reach. */
  scrollTop: number;
  /** The scrollTop that puts the row exactly where it is wanted (greater than `scrollTop` when not reachable yet). */
  wantedScrollTop: number;
  /** The wanted position is within the content: the row will be where it is wanted. */
  reachable: boolean;
}

/**
 * The scroll that puts row `index` where `align` says, given the window on screen (`virtualWindow`'s
 * answer for the same rows and viewport); null when `nearest` finds the row already in view.
 * A row below the rows counted so far (the total still growing) gives the furthest scroll
 * there is, with `reachable` false: ask again as the total grows.
 */
export function scrollTarget(index: number, align: ScrollAlign, view: VirtualWindow, rowHeight: number, viewportHeight: number): ScrollTarget | null {
  const rowTop = index * rowHeight;
  let wanted: number | null = null;
  if (align === 'top') wanted = rowTop;
  else if (align === 'center') wanted = rowTop - (viewportHeight - rowHeight) / 2;
  else if (rowTop < view.top) wanted = rowTop;
  else if (rowTop + rowHeight > view.top + viewportHeight) wanted = rowTop + rowHeight - viewportHeight;
  if (wanted === null) return null;
  const target = Math.max(0, wanted);
  const reachable = Math.min(target, Math.max(0, view.contentHeight - viewportHeight));
  return { scrollTop: Math.round(reachable / view.ratio), wantedScrollTop: Math.round(target / view.ratio), reachable: reachable === target };
}

/** Rows a Page Up or Page Down moves: a screenful less one, so that one row stays in view; at least 1. */
export function pageRows(viewportHeight: number, rowHeight: number): number {
  return Math.max(1, Math.floor(viewportHeight / rowHeight) - 1);
}
