/**
 * Migration 9: the contacts table as a mailing list (docs/cache-schema.md). Nothing that exists
 * changes.
 *
 *  - `order_first_seen`: when a sync first saw each cached order, kept across publishes (each
 *    build of the orders carries the times over and gives a new order the build's time). Filled
 *    here with the last sync of orders' time (the first sync that saw them, as far as anyone knows).
 *  - `contact_mailing`: per contact id listed as a recipient of a cached order, how many orders
 *    list it (each once), in how many of them its recipient is delivered, and when the newest of
 *    those orders was first seen. Rebuilt with the orders; filled here from the cached orders.
 *
 * Both are part of the orders' visible snapshot. Append-only: never edit this file once released.
 * The fill is a frozen copy of what build/mailing.ts builds when this migration was added.
 */
import type { Migration } from './index.ts';

export const migration: Migration = {
  version: 9,
  name: 'contact_mailing',
  sql: `
CREATE TABLE order_first_seen (id TEXT NOT NULL PRIMARY KEY, first_seen_at TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO order_first_seen (id, first_seen_at)
  SELECT id, coalesce((SELECT last_synced_at FROM resource_state WHERE resource = 'orders'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) FROM orders;
CREATE TABLE contact_mailing (
  contact_id TEXT NOT NULL PRIMARY KEY,
  times_mailed INTEGER NOT NULL,
  delivered INTEGER NOT NULL,
  last_order_seen_at TEXT
) WITHOUT ROWID;
INSERT INTO contact_mailing (contact_id, times_mailed, delivered, last_order_seen_at)
  SELECT r.contact_id, count(DISTINCT r.order_id), count(DISTINCT CASE WHEN r.is_delivered = 1 THEN r.order_id END), max(f.first_seen_at)
  FROM order_recipients r LEFT JOIN order_first_seen f ON f.id = r.order_id
  WHERE r.contact_id IS NOT NULL AND r.contact_id <> '' GROUP BY r.contact_id;
`,
};
