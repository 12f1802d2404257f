/**
 * The details of one record: a contact with the orders that include it, an order with its
 * recipients. A record the mirror does not hold is looked up among the members of saved views that
 * are newer than the mirror (kept as the service returned them until a full sync brings them).
 */
import type Database from 'better-sqlite3';
import type { ContactDetail, OrderDetail } from '../../../shared/contract.ts';
import type { Contact, Order } from '../../../shared/serviceRecords.ts';
import { ORDER_ROW_COLUMNS, read, stmt, toOrderRow, toRecipientRow, type Row } from './rows.ts';
import { orderViewSql } from './views.ts';

/** The newest stored record of `id` among the current memberships' newer members. */
const NEWER = (table: string): string =>
  `SELECT member_key, raw FROM ${table} WHERE id = ? AND member_key IN (SELECT member_key FROM view_memberships) ORDER BY rowid DESC LIMIT 1`;

/**
 * One contact with the mirror's orders that include it (newest first, at most 1,000).
 * @returns null when neither the mirror nor a view's newer members hold the id
 */
export function getContact(db: Database.Database, id: string): ContactDetail | null {
  return read(db, () => {
    const row = (stmt(db, 'SELECT raw FROM contacts WHERE id = ?').get(id) ?? stmt(db, NEWER('view_newer_contacts')).get(id)) as { raw: string } | undefined;
    if (!row) return null;
    const view = orderViewSql({ contactId: id });
    const orders = (stmt(db, `SELECT ${ORDER_ROW_COLUMNS} FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT 1000`).all(view.params) as Row[]).map(toOrderRow);
    return { contact: JSON.parse(row.raw) as Contact, orders };
  });
}

/**
 * One order with its recipients (in service order).
 * @returns null when neither the mirror nor a view's newer members hold the id
 */
export function getOrder(db: Database.Database, id: string): OrderDetail | null {
  return read(db, () => {
    const row = stmt(db, 'SELECT raw FROM orders WHERE id = ?').get(id) as { raw: string } | undefined;
    if (row) {
      const recipients = (stmt(db, 'SELECT * FROM order_recipients WHERE order_id = ? ORDER BY position').all(id) as Row[]).map(toRecipientRow);
      return { order: JSON.parse(row.raw) as Order, recipients };
    }
    const newer = stmt(db, NEWER('view_newer_orders')).get(id) as { member_key: number; raw: string } | undefined;
    if (!newer) return null;
    const recipients = (stmt(db, 'SELECT * FROM view_newer_order_recipients WHERE member_key = ? AND order_id = ? ORDER BY position').all(newer.member_key, id) as Row[]).map(toRecipientRow);
    return { order: JSON.parse(newer.raw) as Order, recipients };
  });
}
