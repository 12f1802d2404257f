/**
 * Reading a descending sort with its empty values last by position (store/positions.ts). A position
 * column with an empty flag numbers the non-empty rows 0 … E-1 and the empty ones E … N-1, so the
 * descending order (flag ascending, then the position descending) is two ranges of the position,
 * each read downwards by its index: E-1 … 0, then N-1 … E. E is found by a binary search over the
 * position's index (about 20 lookups at 1,000,000 rows), on the snapshot the caller reads, so it
 * needs no bookkeeping of its own and follows every publish.
 *
 * The empty rows keep among themselves the reverse of their ascending order (ids descending), as
 * the non-empty rows with equal values do: descending reverses every term but the empty flag.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { emptyFlag, qualify } from '../store/positions.ts';
import { stmt } from './rows.ts';
import type { EmptySplit, ViewSql } from './list.ts';

/** The parameter that holds the first empty position in the parts' conditions. */
const EMPTY_FROM = 'emptyFrom';

/** Smallest p in [0, n) for which `empty(p)` holds (n when none does); `empty` is monotone. */
function firstTrue(n: number, empty: (p: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (empty(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The number of non-empty rows of the mirror table `table` for sort position `position`, which is
 * also the first position of its empty rows. A position without an empty flag: the row count.
 */
export function firstEmptyPosition(db: Database.Database, table: Resource, position: string): number {
  const n = (stmt(db, `SELECT coalesce(max(rowid), 0) FROM ${table}`).pluck().get() as number);
  const flag = emptyFlag(position);
  if (!flag) return n;
  const at = stmt(db, `SELECT ${flag} FROM ${table} WHERE ${position} = ?`).pluck();
  return firstTrue(n, (p) => at.get(p) === 1);
}

/**
 * The number of non-empty members of member key `key` (of `n` members, all in the mirror) for
 * sort position `position`: their positions among the members follow the mirror's.
 */
export function firstEmptyMember(db: Database.Database, table: Resource, rows: string, key: number, position: string, n: number): number {
  const flag = emptyFlag(position);
  if (!flag) return n;
  const at = stmt(db, `SELECT ${qualify(flag, 'x')} FROM ${rows} vm JOIN ${table} x ON x.rowid = vm.row WHERE vm.member_key = ? AND vm.${position} = ?`).pluck();
  return firstTrue(n, (p) => at.get(key, p) === 1);
}

/**
 * The position ranges, each to read from `hi` down to `lo`, that hold the rows `first` … `last`
 * (0-based, inclusive) of a descending order of `n` rows whose first `e` positions are the
 * non-empty rows: view row i < e is at position e-1-i, view row i ≥ e at n-1-(i-e).
 */
export function descendingRanges(first: number, last: number, n: number, e: number): { lo: number; hi: number }[] {
  const out: { lo: number; hi: number }[] = [];
  const aLast = Math.min(last, e - 1);
  if (first <= aLast) out.push({ lo: e - 1 - aLast, hi: e - 1 - first });
  const bFirst = Math.max(first, e);
  if (bFirst <= last) out.push({ lo: n - 1 - (last - e), hi: n - 1 - (bFirst - e) });
  return out;
}

/** One part of a view's rows in view order: `SELECT … FROM ${from} WHERE ${where} ORDER BY ${orderBy}`. */
export interface ViewPart {
  where: string;
  orderBy: string;
}

/**
 * The parts whose rows, read one after the other, are the view's rows in view order: the view
 * itself, or for a view with a `split` (list.ts) the rows before the first empty position and then the others,
 * each in the position's descending order: an index walk each where the view's own ORDER BY
 * would sort every row, and for a search a sort by the position alone of fewer rows. Bind the parameters with {@link partParams}.
 */
export function orderedParts(view: Pick<ViewSql, 'where' | 'orderBy' | 'split'>): ViewPart[] {
  const split = view.split;
  if (!split) return [{ where: view.where, orderBy: view.orderBy }];
  const col = `${split.alias}.${split.position}`;
  return [
    { where: `(${view.where}) AND ${col} < :${EMPTY_FROM}`, orderBy: `${col} DESC` },
    { where: `(${view.where}) AND ${col} >= :${EMPTY_FROM}`, orderBy: `${col} DESC` },
  ];
}

/** The parameters {@link orderedParts} adds for a view's `split`, read from `db`'s snapshot (none without one). */
export function splitParams(db: Database.Database, split: EmptySplit | undefined): Record<string, unknown> {
  return split ? { [EMPTY_FROM]: firstEmptyPosition(db, split.table, split.position) } : {};
}

/** The view's parameters with those {@link orderedParts} adds. */
export function partParams(db: Database.Database, view: Pick<ViewSql, 'params' | 'split'>): Record<string, unknown> {
  return view.split ? { ...view.params, ...splitParams(db, view.split) } : view.params;
}

/**
 * The rows of each statement in turn, each started when the one before has ended; `return()`
 * ends the one being read.
 */
export function chained<T>(parts: readonly (() => IterableIterator<T>)[]): IterableIterator<T> {
  let index = 0;
  let current: IterableIterator<T> | undefined;
  const it: IterableIterator<T> = {
    next(): IteratorResult<T> {
      for (;;) {
        if (!current) {
          const start = parts[index++];
          if (!start) return { done: true, value: undefined };
          current = start();
        }
        const r = current.next();
        if (!r.done) return r;
        current = undefined;
      }
    },
    return(): IteratorResult<T> {
      current?.return?.();
      current = undefined;
      index = parts.length;
      return { done: true, value: undefined };
    },
    [Symbol.iterator]() {
      return it;
    },
  };
  return it;
}
