/**
 * A selection of rows in an ordered result, as sorted, disjoint, non-adjacent half-open index
 * ranges `[start, end)`. `end` may be `Infinity`: "to the end of the result", which is what
 * selecting everything means while the result's exact size is still being counted. Values are
 * immutable: every operation returns a new selection.
 */

/** One range of row indexes: `start` included, `end` excluded (`Infinity` = to the last row). */
export type RowRange = readonly [start: number, end: number];

/** Sorted, disjoint, non-adjacent ranges. */
export type RowSelection = readonly RowRange[];

/** No row selected. */
export const NONE: RowSelection = [];

/** Every row of the result, however many there turn out to be. */
export const ALL: RowSelection = [[0, Infinity]];

/** Rows `a` to `b` inclusive, in either order. */
export function span(a: number, b: number): RowSelection {
  return [[Math.min(a, b), Math.max(a, b) + 1]];
}

/** Sorts and merges overlapping or touching ranges; drops empty ones. */
export function normalise(ranges: readonly RowRange[]): RowSelection {
  const sorted = ranges.filter(([s, e]) => e > s).toSorted((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Whether row `index` is selected (binary search). */
export function has(sel: RowSelection, index: number): boolean {
  let lo = 0;
  let hi = sel.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = sel[mid];
    if (!r) return false;
    if (index < r[0]) hi = mid - 1;
    else if (index >= r[1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The selection with row `index` added or removed. */
export function toggle(sel: RowSelection, index: number): RowSelection {
  if (!has(sel, index)) return normalise([...sel, [index, index + 1]]);
  const out: RowRange[] = [];
  for (const r of sel) {
    if (index < r[0] || index >= r[1]) out.push(r);
    else {
      if (index > r[0]) out.push([r[0], index]);
      if (index + 1 < r[1]) out.push([index + 1, r[1]]);
    }
  }
  return out;
}

/** The union of two selections. */
export function union(a: RowSelection, b: RowSelection): RowSelection {
  return normalise([...a, ...b]);
}

/**
 * The ranges cut to a result of `total` rows (each end at most `total`), so that every index in
 * them exists. Empty ranges are dropped.
 */
export function clamp(sel: RowSelection, total: number): RowSelection {
  return sel.map(([s, e]): RowRange => [s, Math.min(e, total)]).filter(([s, e]) => e > s);
}

/** Number of selected rows in a result of `total` rows. */
export function count(sel: RowSelection, total: number): number {
  let n = 0;
  for (const [s, e] of clamp(sel, total)) n += e - s;
  return n;
}

/** True when the selection reaches the end of the result (it depends on the exact total). */
export function isOpenEnded(sel: RowSelection): boolean {
  return sel.some(([, e]) => e === Infinity);
}

/**
 * The selected indexes of a result of `total` rows as windows of at most `size` rows, in order:
 * what a reader asks the cache for, one window per call.
 */
export function windows(sel: RowSelection, total: number, size: number): { offset: number; limit: number }[] {
  const out: { offset: number; limit: number }[] = [];
  for (const [s, e] of clamp(sel, total)) {
    for (let offset = s; offset < e; offset += size) out.push({ offset, limit: Math.min(size, e - offset) });
  }
  return out;
}
