/**
 * What the last sync of a resource changed (docs/cache-schema.md "What changed"). While a sync
 * builds the new mirror beside the one readers see (publish.ts `buildNext`), the two are compared
 * by id: an id only in the new one was added, one in both whose raw JSON differs was changed, one
 * only in the old one was removed, and its last copy is kept (`removed_*`, with a search index of
 * its own) so it can still be seen, searched and exported. The results are tables of the visible
 * snapshot: they are published with the new mirror in the same transaction and replaced by the
 * next sync of the resource that publishes.
 */
import type Database from 'better-sqlite3';
import type { RecordChangeCounts } from '../../../../shared/contract.ts';
import type { RecordChange } from '../../../../shared/query.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CONTACT_STAGE_COLUMNS, ORDER_STAGE_COLUMNS, RECIPIENT_COLUMNS } from '../store/columns.ts';
import { CONTACT_DEFAULT_ORDER, ORDER_DEFAULT_ORDER } from '../store/positions.ts';
import { CONTACT_FTS_COLUMNS, ORDER_FTS_COLUMNS, contactFtsValuesSql, orderFtsValuesSql, recordFilterTokensSql } from '../store/searchIndex.ts';

/** The tables that hold a resource's changes: the ids by kind, and the removed records' kept copies. */
export const CHANGE_TABLES = {
  contacts: { changes: 'contact_changes', removed: 'removed_contacts', removedFts: 'removed_contacts_fts', removedRecipients: null },
  orders: { changes: 'order_changes', removed: 'removed_orders', removedFts: 'removed_orders_fts', removedRecipients: 'removed_order_recipients' },
} as const satisfies Record<Resource, { changes: string; removed: string; removedFts: string; removedRecipients: string | null }>;

/**
 * Fills the `_next` change tables of `resource` (created empty by the build) by comparing the new
 * mirror `<table>_next` with the published `<table>`. Reads every row of both once (the new one in
 * order, the old one by id); the removed records are copied whole, with their recipients, and
 * indexed for search.
 * Call it after the new mirror (and, for orders, its recipients) is complete.
 */
export function buildChangesNext(db: Database.Database, resource: Resource): void {
  const mirror = resource;
  const t = CHANGE_TABLES[resource];
  db.exec(`INSERT INTO ${t.changes}_next (id, change)
    SELECT n.id, CASE WHEN p.rowid IS NULL THEN 'added' ELSE 'changed' END
    FROM ${mirror}_next n LEFT JOIN ${mirror} p ON p.id = n.id
    WHERE p.rowid IS NULL OR p.raw IS NOT n.raw`);
  db.exec(`INSERT INTO ${t.changes}_next (id, change)
    SELECT p.id, 'removed' FROM ${mirror} p WHERE NOT EXISTS (SELECT 1 FROM ${mirror}_next n WHERE n.id = p.id)`);
  const removedIds = `(SELECT id FROM ${t.changes}_next WHERE change = 'removed')`;
  const columns = (resource === 'contacts' ? CONTACT_STAGE_COLUMNS : ORDER_STAGE_COLUMNS).join(', ');
  const order = resource === 'contacts' ? CONTACT_DEFAULT_ORDER : ORDER_DEFAULT_ORDER;
  db.exec(`INSERT INTO ${t.removed}_next (${columns}) SELECT ${columns} FROM ${mirror} WHERE id IN ${removedIds} ORDER BY ${order}`);
  if (resource === 'contacts') {
    db.exec(`INSERT INTO ${t.removedFts}_next (rowid, ${CONTACT_FTS_COLUMNS})
      SELECT n.rowid, ${contactFtsValuesSql('n', recordFilterTokensSql('n'))} FROM ${t.removed}_next n`);
  } else {
    const rcols = RECIPIENT_COLUMNS.join(', ');
    db.exec(`INSERT INTO removed_order_recipients_next (${rcols}) SELECT ${rcols} FROM order_recipients WHERE order_id IN ${removedIds}`);
    db.exec(`INSERT INTO ${t.removedFts}_next (rowid, ${ORDER_FTS_COLUMNS})
      SELECT n.rowid, ${orderFtsValuesSql('n', 'removed_order_recipients_next')} FROM ${t.removed}_next n`);
  }
}

/**
 * The numbers of added, changed and removed records in `resource`'s change table (`suffix` '_next'
 * while a sync builds it, '' for the published one).
 */
export function changeCounts(db: Database.Database, resource: Resource, suffix: '' | '_next' = ''): RecordChangeCounts {
  const rows = db.prepare(`SELECT change, count(*) AS n FROM ${CHANGE_TABLES[resource].changes}${suffix} GROUP BY change`).all() as { change: RecordChange; n: number }[];
  const counts: RecordChangeCounts = { added: 0, changed: 0, removed: 0 };
  for (const r of rows) counts[r.change] = r.n;
  return counts;
}
