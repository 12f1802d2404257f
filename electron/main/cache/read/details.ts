/**
 * The details of one record: a contact with the orders that include it and the address each one
 * used, an order with its recipients. A record the mirror does not hold is looked up among the
 * members of saved views that are newer than the mirror (kept as the service returned them until a
 * full sync brings them), then among the records the last sync removed (their kept copies). A
 * record kept as invalid opens too: its JSON is given as it is, whatever its shape.
 */
import type Database from 'better-sqlite3';
import type { ContactAppearance, ContactDetail, KeptRecord, OrderDetail } from '../../../../shared/contract.ts';
import type { Contact, Order } from '../../../../shared/serviceRecords.ts';
import type { RecordChange } from '../../../../shared/query.ts';
import { ORDER_ROW_COLUMNS, RECIPIENT_CONTACT_COLUMNS, read, stmt, toOrderRow, toRecipientRow, type Row } from './rows.ts';
import { orderViewSql } from './list.ts';
import { contactDuplicateGroups } from './duplicates.ts';
import { historyReadable, timelineOf } from './timeline.ts';

/** Most orders and appearances a contact's detail lists. */
const DETAIL_LIMIT = 1000;

/** The newest stored record of `id` among the current memberships' newer members. */
const NEWER = (table: string): string =>
  `SELECT member_key, raw, invalid_reason FROM ${table} WHERE id = ? AND member_key IN (SELECT member_key FROM view_memberships) ORDER BY rowid DESC LIMIT 1`;

/** A stored record: where it was found and what it holds. */
interface Found {
  /** The table it was read from (`contacts`, `view_newer_contacts`, `removed_contacts`, or the orders' ones). */
  table: string;
  raw: string;
  invalid_reason: string | null;
  member_key?: number;
}

/** The record `id` of `resource` from the mirror, a view's newer members or the removed records, in that order. */
function findRecord(db: Database.Database, resource: 'contacts' | 'orders', id: string): Found | null {
  const tables = resource === 'contacts' ? ['contacts', 'view_newer_contacts', 'removed_contacts'] : ['orders', 'view_newer_orders', 'removed_orders'];
  for (const table of tables) {
    const sql = table.startsWith('view_newer_') ? NEWER(table) : `SELECT raw, invalid_reason FROM ${table} WHERE id = ?`;
    const row = stmt(db, sql).get(id) as Omit<Found, 'table'> | undefined;
    if (row) return { table, ...row };
  }
  return null;
}

/** How the record `id` changed in the last sync of `resource`, or null. */
function changeOf(db: Database.Database, resource: 'contacts' | 'orders', id: string): RecordChange | null {
  return (stmt(db, `SELECT change FROM ${resource === 'contacts' ? 'contact_changes' : 'order_changes'} WHERE id = ?`).pluck().get(id) as RecordChange | undefined) ?? null;
}

/**
 * The record as the detail gives it: the parsed JSON for a valid one (a §2 record); for one kept
 * as invalid, the parsed JSON when it is an object, else `{}` (the JSON text is in `raw`).
 */
function parsed<T>(found: Found): { invalidReason: null; record: T } | { invalidReason: string; record: KeptRecord } {
  const value = JSON.parse(found.raw) as unknown;
  if (found.invalid_reason === null) return { invalidReason: null, record: value as T };
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as KeptRecord) : {};
  return { invalidReason: found.invalid_reason, record };
}

/**
 * One contact with the mirror's orders that include it (newest first, at most 1,000), each
 * recipient entry that names it (the snapshot the order kept, compared with this contact) and its
 * mailings (build/mailing.ts), and the changes syncs observed in it (timeline.ts).
 * @returns null when neither the mirror, a view's newer members nor the removed records hold the id
 */
export function getContact(db: Database.Database, id: string): ContactDetail | null {
  historyReadable(db);
  return read(db, () => {
    const found = findRecord(db, 'contacts', id);
    if (!found) return null;
    const view = orderViewSql({ contactId: id });
    const orders = (stmt(db, `SELECT ${ORDER_ROW_COLUMNS} FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT ${DETAIL_LIMIT}`).all(view.params) as Row[]).map(toOrderRow);
    const key = found.member_key === undefined ? {} : { key: found.member_key };
    const entries = stmt(db, `SELECT r.*, ${RECIPIENT_CONTACT_COLUMNS}
      FROM order_recipients r JOIN orders o ON o.id = r.order_id LEFT JOIN ${found.table} k ON k.id = r.contact_id${found.member_key === undefined ? '' : ' AND k.member_key = :key'}
      WHERE r.contact_id = :id ORDER BY o.rowid, r.position LIMIT ${DETAIL_LIMIT}`).all({ id, ...key }) as Row[];
    // Both lists are in the orders' default order, so every entry's order is among `orders`.
    const byId = new Map(orders.map((o) => [o.id, o]));
    const appearances: ContactAppearance[] = entries.flatMap((r) => {
      const order = byId.get(String(r.order_id));
      return order ? [{ order, recipient: toRecipientRow(r) }] : [];
    });
    const { invalidReason, record } = parsed<Contact>(found);
    const m = stmt(db, 'SELECT times_mailed, delivered, last_order_seen_at FROM contact_mailing WHERE contact_id = ?').get(id) as Row | undefined;
    const mailing = { timesMailed: Number(m?.times_mailed ?? 0), deliveredCount: Number(m?.delivered ?? 0), lastOrderSeenAt: m ? String(m.last_order_seen_at) : null };
    const base = { raw: found.raw, change: changeOf(db, 'contacts', id), timeline: timelineOf(db, 'contacts', id), orders, appearances, mailing, duplicates: contactDuplicateGroups(db, id) };
    return invalidReason === null ? { ...base, invalidReason, contact: record as Contact } : { ...base, invalidReason, contact: record };
  });
}

/**
 * One order with its recipients (in service order), each compared with its contact as cached now,
 * and the changes syncs observed in it and its recipients (timeline.ts).
 * @returns null when neither the mirror, a view's newer members nor the removed records hold the id
 */
export function getOrder(db: Database.Database, id: string): OrderDetail | null {
  historyReadable(db);
  return read(db, () => {
    const found = findRecord(db, 'orders', id);
    if (!found) return null;
    const recipients = found.table === 'view_newer_orders'
      ? stmt(db, `SELECT r.*, ${RECIPIENT_CONTACT_COLUMNS} FROM view_newer_order_recipients r LEFT JOIN contacts k ON k.id = r.contact_id
          WHERE r.member_key = ? AND r.order_id = ? ORDER BY r.position`).all(found.member_key, id)
      : stmt(db, `SELECT r.*, ${RECIPIENT_CONTACT_COLUMNS} FROM ${found.table === 'orders' ? 'order_recipients' : 'removed_order_recipients'} r
          LEFT JOIN contacts k ON k.id = r.contact_id WHERE r.order_id = ? ORDER BY r.position`).all(id);
    const { invalidReason, record } = parsed<Order>(found);
    const base = { raw: found.raw, change: changeOf(db, 'orders', id), timeline: timelineOf(db, 'orders', id), recipients: (recipients as Row[]).map(toRecipientRow) };
    return invalidReason === null ? { ...base, invalidReason, order: record as Order } : { ...base, invalidReason, order: record };
  });
}
