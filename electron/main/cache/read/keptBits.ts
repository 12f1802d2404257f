/**
 * The kept values' memberships as bitsets over the mirror's rowids, so that the filter pane counts
 * each kept value within a view by bit operations (one AND and one population count over the
 * table's words per value) instead of one lookup per row and value. Built on first use in the
 * reading connection and kept for one snapshot: until a publish changes the schema cookie or a
 * read of a kept value (or a change of which values are kept) changes `kept_filters`.
 */
import type Database from 'better-sqlite3';
import type { KeptSelection } from '../../../../shared/keptFilters.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { stmt } from './rows.ts';
import type { ViewSql } from './list.ts';

/** A set of the mirror's rowids: bit `rowid % 32` of word `rowid >> 5`. */
export type RowBits = Uint32Array;

/** The bitsets of one resource's kept values for one snapshot. */
interface Kept {
  key: string;
  /** Words of every bitset of the snapshot. */
  words: number;
  /** `param` → `value` → the mirror's rows among its members (values never read have none). */
  byValue: Map<string, Map<string, RowBits>>;
}

const kept = new WeakMap<Database.Database, Partial<Record<Resource, Kept>>>();

/** Sets the bit of each rowid `rows` gives, and returns `bits`. */
function withRows(bits: RowBits, rows: IterableIterator<number>): RowBits {
  for (const row of rows) bits[row >> 5]! |= 1 << (row & 31);
  return bits;
}

/**
 * The kept values of `resource` as bitsets of the mirror's rows, built (one lookup per member)
 * or taken from the connection's copy of this snapshot. Call inside a read transaction.
 */
export function keptBits(db: Database.Database, resource: Resource): Kept {
  const version = db.pragma('main.schema_version', { simple: true }) as number;
  const values = stmt(db, 'SELECT fid, param, value, read_at FROM kept_filters WHERE resource = ? ORDER BY fid').all(resource) as { fid: number; param: string; value: string; read_at: string | null }[];
  const key = `${version}:${values.map((v) => `${v.fid}@${v.read_at ?? ''}`).join(',')}`;
  const own = kept.get(db) ?? {};
  kept.set(db, own);
  const hit = own[resource];
  if (hit?.key === key) return hit;
  const table = resource === 'contacts' ? 'contacts' : 'orders';
  const words = (Number(stmt(db, `SELECT coalesce(max(rowid), 0) FROM ${table}`).pluck().get()) >> 5) + 1;
  const rows = stmt(db, `SELECT t.rowid FROM kept_members km CROSS JOIN ${table} t ON t.id = km.id WHERE km.fid = ?`).pluck();
  const byValue = new Map<string, Map<string, RowBits>>();
  for (const v of values) {
    if (v.read_at === null) continue;
    const bits = withRows(new Uint32Array(words), rows.iterate(v.fid) as IterableIterator<number>);
    const param = byValue.get(v.param) ?? new Map<string, RowBits>();
    param.set(v.value, bits);
    byValue.set(v.param, param);
  }
  const built = { key, words, byValue };
  own[resource] = built;
  return built;
}

/** The number of bits set in both `a` and `b`. */
export function countBoth(a: RowBits, b: RowBits): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    let x = a[i]! & b[i]!;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

/**
 * The rows of a view whose rows are all the mirror's (no `outside`), as a bitset: null for the
 * whole mirror (every row).
 * @param alias the view's alias of the mirror table (`c`, `o`)
 */
export function viewBits(db: Database.Database, view: ViewSql, alias: string, words: number): RowBits | null {
  if (view.all) return null;
  // A view that is exactly a search index's matches reads the index alone.
  const index = view.index;
  const rows = stmt(db, index ? `SELECT ${index.row} FROM ${index.from} WHERE ${index.where}` : `SELECT ${alias}.rowid FROM ${view.from} WHERE ${view.where}`).pluck();
  return withRows(new Uint32Array(words), rows.iterate(view.params) as IterableIterator<number>);
}

/**
 * The rows the kept selections other than `param`'s hold, within `base` (null: every row): AND
 * across selections, OR across each one's values; a value without a bitset holds no row.
 */
export function selectedBits(k: Kept, base: RowBits | null, selections: readonly KeptSelection[], param: string): RowBits | null {
  let out = base;
  for (const s of selections) {
    if (s.param === param) continue;
    const any = new Uint32Array(k.words);
    for (const value of s.values) {
      const bits = k.byValue.get(s.param)?.get(value);
      if (bits) for (let i = 0; i < any.length; i++) any[i]! |= bits[i]!;
    }
    if (out) for (let i = 0; i < any.length; i++) any[i]! &= out[i]!;
    out = any;
  }
  return out;
}
