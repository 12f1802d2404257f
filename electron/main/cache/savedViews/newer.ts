/**
 * The members of a saved view that are newer than the mirror: records the service returned for the
 * view's query that the last full sync did not bring. They are kept as returned, with the mirror's
 * columns (`view_newer_contacts`, `view_newer_orders`, `view_newer_order_recipients`) and a search
 * index of their own, until a full sync brings them into the mirror (mirror.ts).
 *
 * To sort among the mirror's rows they get positions between the mirror's: for each order (the
 * default one and each sort position, store/positions.ts) the number k of mirror rows that sort before
 * the record, found by binary search over the mirror's positions with SQLite itself comparing the
 * two rows (so collations, NULLs and ties are exactly the mirror's), then k plus a fraction that
 * keeps several such records in their own order.
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../shared/errors.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { contactValues, orderValues } from '../build/ingest.ts';
import { CONTACT_STAGE_COLUMNS, ORDER_STAGE_COLUMNS, RECIPIENT_COLUMNS } from '../store/columns.ts';
import { CONTACT_DEFAULT_ORDER, CONTACT_POSITIONS, ORDER_DEFAULT_ORDER, ORDER_POSITIONS, TIE } from '../store/positions.ts';
import { CONTACT_FTS_COLUMNS, ORDER_FTS_COLUMNS, contactFtsValuesSql, orderFtsValuesSql, recordFilterTokensSql } from '../store/searchIndex.ts';

/** The table of a resource's newer members. */
export const NEWER_TABLE: Record<Resource, string> = { contacts: 'view_newer_contacts', orders: 'view_newer_orders' };

/** Columns the orders compare (every ordering expression of store/positions.ts reads only these). */
const ORDER_KEYS: Record<Resource, string> = {
  contacts: 'id, full_name, company_name, email, phone_digits, city, state, zip, labels, is_verified, created_at',
  orders: 'id, campaign_name, product_name, template_title, status, recipients, delivered, is_live_mode, campaign_schedule_type, campaign_delivery_date',
};

interface Ordering {
  /** The newer table's column that holds the value. */
  column: string;
  /** ORDER BY of the ordering (ties by id). */
  order: string;
  /** The mirror's column numbering its rows in this order, and the number of its first row. */
  at: string;
  first: number;
}

function orderings(resource: Resource): Ordering[] {
  const positions = resource === 'contacts' ? CONTACT_POSITIONS : ORDER_POSITIONS;
  const byDefault = resource === 'contacts' ? CONTACT_DEFAULT_ORDER : ORDER_DEFAULT_ORDER;
  return [
    { column: 'row_key', order: byDefault, at: 'rowid', first: 1 },
    // A constant expression (orders' pos_id) orders by the tie alone; `ORDER BY 0` would name a column.
    ...Object.entries(positions).map(([column, expr]) => ({ column, order: /^\d+$/.test(expr) ? TIE : `${expr}, ${TIE}`, at: column, first: 0 })),
  ];
}

/**
 * The positions of newer rows among the rows of `mirror` (`contacts`, or `contacts_next` while a
 * sync builds it): for each row of the newer table selected by `where`, its `row_key` and sort
 * positions, in {@link orderings} order.
 * @returns rowid of the newer row → values
 */
export function newerPositions(db: Database.Database, resource: Resource, mirror: string, where: string, params: unknown[]): Map<number, number[]> {
  const table = NEWER_TABLE[resource];
  const n = (db.prepare(`SELECT coalesce(max(rowid), 0) FROM ${mirror}`).pluck().get() as number);
  const out = new Map<number, number[]>();
  const all = orderings(resource);
  for (const [i, o] of all.entries()) {
    const sorted = db.prepare(`SELECT rowid FROM ${table} WHERE ${where} ORDER BY ${o.order}`).pluck().all(...params) as number[];
    const mirrorFirst = db.prepare(`SELECT side FROM (SELECT 0 AS side, ${ORDER_KEYS[resource]} FROM ${mirror} WHERE ${o.at} = ?
      UNION ALL SELECT 1 AS side, ${ORDER_KEYS[resource]} FROM ${table} WHERE rowid = ?) ORDER BY ${o.order} LIMIT 1`).pluck();
    const before: number[] = [];
    let lo = 0;
    for (const x of sorted) {
      // The mirror rows before x: the first position whose row does not sort before it.
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (mirrorFirst.get(mid + o.first, x) === 0) lo = mid + 1;
        else hi = mid;
      }
      before.push(lo);
    }
    for (let j = 0; j < sorted.length; ) {
      let end = j;
      while (end < sorted.length && before[end] === before[j]) end++;
      for (let m = j; m < end; m++) {
        const values = out.get(sorted[m] as number) ?? new Array<number>(all.length).fill(0);
        values[i] = (before[j] as number) - 1 + o.first + (m - j + 1) / (end - j + 1);
        out.set(sorted[m] as number, values);
      }
      j = end;
    }
  }
  return out;
}

/** Writes positions computed by {@link newerPositions}. */
export function applyNewerPositions(db: Database.Database, resource: Resource, positions: Map<number, number[]>): void {
  const columns = orderings(resource).map((o) => o.column);
  const update = db.prepare(`UPDATE ${NEWER_TABLE[resource]} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`);
  for (const [rowid, values] of positions) update.run(...values, rowid);
}

/**
 * Stores the members of member key `key` that the mirror does not hold, from the view's staging:
 * their columns, their positions among the mirror's rows, their search index rows.
 * @returns how many there are
 * @throws LetterdeskError DRIFT when a member is neither in the mirror nor stored with its record
 *   (the mirror changed while the view was read)
 */
export function storeNewer(db: Database.Database, resource: Resource, key: number, viewId: string): number {
  const mirror = resource === 'contacts' ? 'contacts' : 'orders';
  const rows = db.prepare(`SELECT m.id, s.raw, s.invalid_reason FROM view_members m LEFT JOIN view_stage s ON s.view_id = ? AND s.id = m.id
    WHERE m.member_key = ? AND NOT EXISTS (SELECT 1 FROM ${mirror} x WHERE x.id = m.id) ORDER BY m.position`).all(viewId, key) as { id: string; raw: string | null; invalid_reason: string | null }[];
  if (rows.length === 0) return 0;
  if (rows.some((r) => r.raw === null)) {
    throw new LetterdeskError('DRIFT', 'The cached records changed while the view was read (a sync published in between). Refresh the view again.');
  }
  const ph = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  if (resource === 'contacts') {
    const insert = db.prepare(`INSERT INTO view_newer_contacts (member_key, ${CONTACT_STAGE_COLUMNS.join(', ')}, row_key) VALUES (?, ${ph(CONTACT_STAGE_COLUMNS.length)}, 0)`);
    for (const r of rows) insert.run(key, ...contactValues(JSON.parse(r.raw as string), r.invalid_reason, r.id));
  } else {
    const insert = db.prepare(`INSERT INTO view_newer_orders (member_key, ${ORDER_STAGE_COLUMNS.join(', ')}, row_key) VALUES (?, ${ph(ORDER_STAGE_COLUMNS.length)}, 0)`);
    const recipient = db.prepare(`INSERT OR REPLACE INTO view_newer_order_recipients (member_key, ${RECIPIENT_COLUMNS.join(', ')}) VALUES (?, ${ph(RECIPIENT_COLUMNS.length)})`);
    for (const r of rows) {
      const { order, recipients } = orderValues(JSON.parse(r.raw as string), r.invalid_reason, r.id);
      insert.run(key, ...order);
      for (const values of recipients) recipient.run(key, ...values);
    }
  }
  applyNewerPositions(db, resource, newerPositions(db, resource, mirror, 'member_key = ?', [key]));
  indexNewer(db, resource, 'n.member_key = ?', [key]);
  return rows.length;
}

/** Adds the search index rows of the newer rows selected by `where` (alias n). */
function indexNewer(db: Database.Database, resource: Resource, where: string, params: unknown[]): void {
  if (resource === 'contacts') {
    db.prepare(`INSERT INTO view_newer_contacts_fts (rowid, ${CONTACT_FTS_COLUMNS}) SELECT n.rowid, ${contactFtsValuesSql('n', recordFilterTokensSql('n'))}
      FROM view_newer_contacts n WHERE ${where}`).run(...params);
  } else {
    db.prepare(`INSERT INTO view_newer_orders_fts (rowid, ${ORDER_FTS_COLUMNS}) SELECT n.rowid, ${orderFtsValuesSql('n', 'view_newer_order_recipients', 'r.member_key = n.member_key')}
      FROM view_newer_orders n WHERE ${where}`).run(...params);
  }
}

/** Deletes the newer rows selected by `where` (alias n), with their index rows and recipients. */
export function deleteNewer(db: Database.Database, resource: Resource, where: string, params: unknown[]): number {
  const table = NEWER_TABLE[resource];
  db.prepare(`DELETE FROM ${table}_fts WHERE rowid IN (SELECT n.rowid FROM ${table} n WHERE ${where})`).run(...params);
  if (resource === 'orders') {
    db.prepare(`DELETE FROM view_newer_order_recipients WHERE (member_key, order_id) IN (SELECT n.member_key, n.id FROM view_newer_orders n WHERE ${where})`).run(...params);
  }
  return db.prepare(`DELETE FROM ${table} AS n WHERE ${where}`).run(...params).changes;
}
