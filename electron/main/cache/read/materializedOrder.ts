/**
 * Orders of the whole mirror under a sort no position column answers (several keys, last name:
 * sortOrder.ts), materialized in a temporary table of the connection — `pos` (1-based) → the
 * mirror's rowid — so that a window anywhere in a million rows is a range of `pos` instead of a
 * sort of every row. Built on first use, inside the caller's read transaction, and kept for that
 * table's snapshot: a publish replaces the table (a new root page), which makes a new order.
 * A connection keeps the few most recent orders.
 */
import type Database from 'better-sqlite3';
import { dropLocaleRanks, withLocaleRanks } from '../store/collation.ts';
import { DISTINCT_TEXT_COLUMNS } from '../store/positions.ts';

/** Orders kept per connection. */
const KEPT = 2;

interface Kept {
  key: string;
  table: string;
}

const kept = new WeakMap<Database.Database, Kept[]>();
let counter = 0;

/**
 * The temporary table holding the rows of `table` in the order `orderBy` (over alias `alias`).
 * @returns its qualified name, `temp.sort_order_<n>`, with columns `pos` (1-based, the primary
 *   key) and `row` (the rowid in `table`)
 */
export function materializedOrder(db: Database.Database, table: string, alias: string, orderBy: string): string {
  // Every publish renames tables, which changes the schema cookie: an order is kept for one
  // snapshot of every table it reads (a contacts order reads the orders' contact_mailing too).
  // Root pages alone would not do: a publish can give a table the root page of a dropped one.
  const version = db.pragma('main.schema_version', { simple: true }) as number;
  const key = `${table}:${version}:${orderBy}`;
  const list = kept.get(db) ?? [];
  kept.set(db, list);
  const hit = list.find((k) => k.key === key);
  if (hit) return hit.table;
  const name = `temp.sort_order_${++counter}`;
  db.exec(`CREATE TABLE ${name} (pos INTEGER PRIMARY KEY, row INTEGER NOT NULL)`);
  try {
    const [ranked] = withLocaleRanks(db, table, [orderBy], DISTINCT_TEXT_COLUMNS);
    db.exec(`INSERT INTO ${name} (row) SELECT ${alias}.rowid FROM ${table} ${alias} ORDER BY ${ranked}`);
  } finally {
    dropLocaleRanks(db);
  }
  // A search's matches find their places through it.
  db.exec(`CREATE INDEX ${name}_row ON ${name.slice('temp.'.length)} (row)`);
  list.unshift({ key, table: name });
  for (const old of list.splice(KEPT)) db.exec(`DROP TABLE IF EXISTS ${old.table}`);
  return name;
}
