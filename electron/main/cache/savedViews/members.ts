/**
 * The data of a membership under its member key (docs/cache-schema.md): the ids in the service's
 * order (`view_members`), the mirror's rowids of those it holds (`view_contact_rows`,
 * `view_order_rows`) and their rows in the members' search index (`view_contacts_fts`,
 * `view_orders_fts`, rowid = key · 2^32 + the mirror's rowid). Written beside the membership
 * readers see (publish.ts) and rebuilt with the mirror (mirror.ts).
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CONTACT_FTS_COLUMNS, ORDER_FTS_COLUMNS, contactFilterTokensSql, contactFtsValuesSql, orderFtsValuesSql } from '../store/searchIndex.ts';
import { deleteNewer } from './newer.ts';
import { CONTACT_SORT, ORDER_SORT } from '../read/listParts.ts';
import { MEMBER_KEY_SPAN } from '../read/list.ts';

/** The tables a membership's rows and index are written to: the visible ones, or a sync's `_next` build. */
export interface MemberTables {
  /** The mirror table of the resource (`contacts`, `contacts_next` …). */
  mirror: string;
  /** The member rowid table (`view_contact_rows` …). */
  rows: string;
  /** The members' search index (`view_contacts_fts` …). */
  fts: string;
  /** Contacts: the label link and label tables the filter tokens read; orders: the recipients table. */
  contactLabels: string;
  labels: string;
  recipients: string;
}

/** The visible tables of a resource. */
export function memberTables(resource: Resource, suffix: '' | '_next' = ''): MemberTables {
  return resource === 'contacts'
    ? { mirror: `contacts${suffix}`, rows: `view_contact_rows${suffix}`, fts: `view_contacts_fts${suffix}`, contactLabels: `contact_labels${suffix}`, labels: `labels${suffix}`, recipients: '' }
    : { mirror: `orders${suffix}`, rows: `view_order_rows${suffix}`, fts: `view_orders_fts${suffix}`, contactLabels: '', labels: '', recipients: `order_recipients${suffix}` };
}

/**
 * The member rowid table's position columns besides `pos_row` (the default order): one per sort
 * position of the mirror a view can sort by, each the member's 0-based position among the members.
 */
export const MEMBER_POSITIONS: Record<Resource, readonly string[]> = {
  contacts: [...new Set(Object.values(CONTACT_SORT).filter((c) => c !== 'rowid'))],
  orders: [...new Set(Object.values(ORDER_SORT).filter((c) => c !== 'rowid'))],
};

/** Mirror rowids per write of the search index: keeps each transaction short for a large membership. */
const INDEX_CHUNK_ROWS = 100_000;

/**
 * Writes the member rowids of `key` (from its ids in `view_members`) with their positions among
 * the members in each order (so a window of an unfiltered view is a range of them), and their
 * search index rows, in transactions of bounded size.
 * @returns the members the mirror holds
 */
export function writeMemberRows(db: Database.Database, resource: Resource, key: number, t: MemberTables = memberTables(resource)): number {
  const positions = MEMBER_POSITIONS[resource];
  const inMirror = db.transaction(() => db.prepare(`INSERT INTO ${t.rows} (member_key, row, pos_row, ${positions.join(', ')})
    SELECT ?, x.rowid, row_number() OVER (ORDER BY x.rowid) - 1, ${positions.map((p) => `row_number() OVER (ORDER BY x.${p}) - 1`).join(', ')}
    FROM view_members m JOIN ${t.mirror} x ON x.id = m.id WHERE m.member_key = ? ORDER BY x.rowid`).run(key, key).changes)();
  const top = (db.prepare(`SELECT coalesce(max(rowid), 0) FROM ${t.mirror}`).pluck().get() as number);
  const values = resource === 'contacts'
    ? contactFtsValuesSql('x', contactFilterTokensSql('x', t.contactLabels, t.labels))
    : orderFtsValuesSql('x', t.recipients);
  const columns = resource === 'contacts' ? CONTACT_FTS_COLUMNS : ORDER_FTS_COLUMNS;
  const insert = db.prepare(`INSERT INTO ${t.fts} (rowid, ${columns}) SELECT ? + x.rowid, ${values}
    FROM ${t.rows} vm JOIN ${t.mirror} x ON x.rowid = vm.row WHERE vm.member_key = ? AND vm.row BETWEEN ? AND ? ORDER BY vm.row`);
  for (let from = 1; from <= top; from += INDEX_CHUNK_ROWS) {
    db.transaction(() => insert.run(key * MEMBER_KEY_SPAN, key, from, from + INDEX_CHUNK_ROWS - 1))();
  }
  return inMirror;
}

/** Deletes everything stored under member key `key` (its index rows first, its ids last). */
export function dropMemberKey(db: Database.Database, key: number): void {
  db.transaction(() => {
    for (const fts of ['view_contacts_fts', 'view_orders_fts']) db.prepare(`DELETE FROM ${fts} WHERE rowid BETWEEN ? AND ?`).run(key * MEMBER_KEY_SPAN, key * MEMBER_KEY_SPAN + MEMBER_KEY_SPAN - 1);
    for (const rows of ['view_contact_rows', 'view_order_rows']) db.prepare(`DELETE FROM ${rows} WHERE member_key = ?`).run(key);
    for (const resource of ['contacts', 'orders'] as const) deleteNewer(db, resource, 'n.member_key = ?', [key]);
    db.prepare('DELETE FROM view_members WHERE member_key = ?').run(key);
  })();
}

/** Tables whose rows are keyed by member key (ordered by it), where garbage is looked for. */
const KEYED_TABLES = ['view_members', 'view_contact_rows', 'view_order_rows', 'view_newer_contacts', 'view_newer_orders', 'view_newer_order_recipients'];

/** Every member key that has data stored, by seeking through each keyed table's index. */
export function storedMemberKeys(db: Database.Database): Set<number> {
  const keys = new Set<number>();
  for (const table of KEYED_TABLES) {
    const next = db.prepare(`SELECT member_key FROM ${table} WHERE member_key > ? ORDER BY member_key LIMIT 1`).pluck();
    for (let key = next.get(-1) as number | undefined; key !== undefined; key = next.get(key) as number | undefined) keys.add(key);
  }
  return keys;
}
