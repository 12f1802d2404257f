/**
 * Column definitions for the virtualized table, and the table's column layout: which columns show,
 * in which order, at which widths. A layout is one plain, serialisable object, remembered per
 * profile and view, and small enough for a saved view to carry its own.
 */

/** One column of a {@link DataTable}. */
export interface Column<Row> {
  key: string;
  title: string;
  /** Default width in px: fits the column's usual content (the person's own width is remembered). */
  width: number;
  minWidth?: number;
  /** The sort column this header sorts by; absent = not sortable. */
  sortKey?: string;
  /**
   * Other orders of the same column (a name by last name): the header sorts by whichever of them
   * is a sort key now, else by `sortKey`; the column menu offers them.
   */
  sortChoices?: { key: string; label: string }[];
  align?: 'left' | 'right' | 'center';
  mono?: boolean;
  /** Cell text a person selects with the mouse to copy part of it (an email, a phone number, an id). */
  selectable?: boolean;
  /** The cell's text: what it shows, what Copy puts on the clipboard, its tooltip. */
  text: (row: Row) => string;
}

/** Which columns show, in which order, at which widths (px). */
export interface ColumnLayout {
  /** Column keys, left to right; keys missing here follow in their default order. */
  order: string[];
  /** Keys of hidden columns. */
  hidden: string[];
  /** Widths the person chose, by key; the rest keep their default. */
  widths: Record<string, number>;
}

/** Narrowest a column can be made (px). */
export const MIN_COLUMN_WIDTH = 48;
/** Widest a column can be made (px). */
export const MAX_COLUMN_WIDTH = 800;

/**
 * The default layout: every column in the order defined, at its default width, shown unless its
 * key is in `hidden` (the columns a view offers in its Columns menu without showing them at first).
 */
export function defaultLayout(hidden: readonly string[] = []): ColumnLayout {
  return { order: [], hidden: [...hidden], widths: {} };
}

/**
 * A remembered layout made safe to use: anything that is not a layout's field dropped, widths
 * clamped. Keys of columns a view does not have are ignored where the layout is applied.
 * @param saved anything read from storage
 */
export function normaliseLayout(saved: unknown): ColumnLayout {
  const s = (typeof saved === 'object' && saved !== null ? saved : {}) as Partial<Record<keyof ColumnLayout, unknown>>;
  const list = (v: unknown): string[] => (Array.isArray(v) ? [...new Set(v.filter((k): k is string => typeof k === 'string'))] : []);
  const widths: Record<string, number> = {};
  if (typeof s.widths === 'object' && s.widths !== null) {
    for (const [k, w] of Object.entries(s.widths)) {
      if (typeof w === 'number' && Number.isFinite(w)) widths[k] = clampWidth(w);
    }
  }
  return { order: list(s.order), hidden: list(s.hidden), widths };
}

/** A width within {@link MIN_COLUMN_WIDTH}…{@link MAX_COLUMN_WIDTH}, whole pixels. */
export function clampWidth(width: number, min = MIN_COLUMN_WIDTH): number {
  return Math.round(Math.max(min, Math.min(MAX_COLUMN_WIDTH, width)));
}

/** Every column in layout order (hidden ones included): the first column first, always. */
export function orderedColumns<C extends { key: string }>(columns: readonly C[], layout: ColumnLayout): C[] {
  const [first, ...rest] = columns;
  if (!first) return [];
  const byKey = new Map(rest.map((c) => [c.key, c]));
  const out: C[] = [first];
  for (const k of layout.order) {
    const c = byKey.get(k);
    if (c) {
      out.push(c);
      byKey.delete(k);
    }
  }
  return [...out, ...byKey.values()];
}

/** The columns the table shows, in layout order. */
export function visibleColumns<C extends { key: string }>(columns: readonly C[], layout: ColumnLayout): C[] {
  const hidden = new Set(layout.hidden);
  return orderedColumns(columns, layout).filter((c, i) => i === 0 || !hidden.has(c.key));
}

/**
 * The layout with column `key` moved to position `to` among all columns (0 is the first column's,
 * which never moves: anything asked to go there lands at 1).
 */
export function moveColumn(columns: readonly { key: string }[], layout: ColumnLayout, key: string, to: number): ColumnLayout {
  const keys = orderedColumns(columns, layout).map((c) => c.key);
  const from = keys.indexOf(key);
  if (from <= 0) return layout;
  keys.splice(from, 1);
  keys.splice(Math.max(1, Math.min(keys.length, to)), 0, key);
  return { ...layout, order: keys.slice(1) };
}

/** The layout with column `key` shown or hidden (the first column always shows). */
export function setHidden(columns: readonly { key: string }[], layout: ColumnLayout, key: string, hidden: boolean): ColumnLayout {
  if (columns[0]?.key === key) return layout;
  const rest = layout.hidden.filter((k) => k !== key);
  return { ...layout, hidden: hidden ? [...rest, key] : rest };
}
