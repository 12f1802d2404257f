/**
 * What the contacts table shows of each contact's mailings (docs/cache-schema.md `order_first_seen`,
 * `contact_mailing`), built from the new orders mirror each time a sync publishes the orders
 * (publish.ts) and published with it, so the contacts' Times mailed, Delivered and Last order
 * always describe the orders the cache shows. The contacts are not rewritten: read/mailing.ts
 * looks each contact up by id.
 */
import type Database from 'better-sqlite3';

/** The mailing tables of the orders' snapshot (built beside it as `_next`, published with it). */
export const MAILING_TABLES = ['order_first_seen', 'contact_mailing'] as const;

/**
 * Fills `order_first_seen_next` (each order of `orders_next` keeps the time the published copy
 * gives it; a new one gets `seenAt`) and `contact_mailing_next` (from `order_recipients_next`):
 * one pass over the orders and one over the recipients, sorted by contact. Run it before the
 * recipients' contact index is built: through that index, each recipient is a lookup of its row.
 * @param seenAt ISO 8601 UTC instant: when this sync saw the orders
 */
export function buildMailingNext(db: Database.Database, seenAt: string): void {
  db.prepare(`INSERT INTO order_first_seen_next (id, first_seen_at)
    SELECT o.id, coalesce(f.first_seen_at, ?) FROM orders_next o LEFT JOIN order_first_seen f ON f.id = o.id`).run(seenAt);
  db.exec(`INSERT INTO contact_mailing_next (contact_id, times_mailed, delivered, last_order_seen_at)
    SELECT r.contact_id, count(DISTINCT r.order_id), count(DISTINCT CASE WHEN r.is_delivered = 1 THEN r.order_id END), max(f.first_seen_at)
    FROM order_recipients_next r LEFT JOIN order_first_seen_next f ON f.id = r.order_id
    WHERE r.contact_id IS NOT NULL AND r.contact_id <> '' GROUP BY r.contact_id`);
}
