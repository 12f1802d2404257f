/**
 * The SQL that fills a search index in bulk (searchIndexBuild.ts): from the new mirror in the sync
 * connection, or from the staging in the search index thread (searchIndex.thread.ts), at the build
 * or while the pages are staged. One statement for all, so each indexes the same text.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CONTACT_FTS_COLUMNS, ORDER_FTS_COLUMNS, contactFilterTokensSql, contactFtsValuesSql, orderFtsValuesSql, recordFilterTokensSql } from '../store/searchIndex.ts';
import { BUILD_SOURCES } from './sortPositions.ts';

/** FTS5's default size of the in-memory buffer of pending index data (bytes; FTS5 `hashsize`). */
const FTS_DEFAULT_HASH_SIZE = 1024 * 1024;
/**
 * The buffer while the search index is filled in bulk: each time the buffer is full FTS5 writes a
 * segment, and fewer, larger segments mean less merging. Larger buffers are faster still but cost
 * the sync process memory it has not got to spare.
 */
const FTS_BULK_HASH_SIZE = 4 * 1024 * 1024;

/** The new mirror each resource's search index is filled from in the connection, and the index. */
export const SOURCES: Record<Resource, { mirror: string; fts: string }> = {
  contacts: { mirror: 'contacts_next', fts: 'contacts_fts' },
  orders: { mirror: 'orders_next', fts: 'orders_fts' },
};

/**
 * Where a search index is filled from reads what it holds besides the rows: the contacts' labels
 * (from label tables, or with `ownLabels` from each row's own label list), the orders' recipients.
 */
export interface IndexInputs {
  contactLabels: string;
  labels: string;
  recipients: string;
  ownLabels?: boolean;
}

/** The build's own `_next` tables, which the connection fills the index from. */
export const CONNECTION_INPUTS: IndexInputs = { contactLabels: 'main.contact_labels_next', labels: 'main.labels_next', recipients: 'main.order_recipients_next' };
/**
 * The thread's: the labels it wrote to its build file, and the staged recipients (the same rows
 * as `order_recipients_next`, which holds those of every staged order, under the same key order).
 */
const THREAD_INPUTS: IndexInputs = { contactLabels: 'build.contact_labels', labels: 'build.labels', recipients: 'cache.stage_order_recipients' };
/** The thread's while pages are staged, before any label table exists: each contact's own labels. */
const STAGING_INPUTS: IndexInputs = { ...THREAD_INPUTS, ownLabels: true };

/**
 * The INSERT that fills search index `fts` from rows `x` of `from`, whose rowid in the mirror is
 * `rowid`, with the labels or recipients of `inputs`. One statement for the thread and the
 * connection, so both index the same text.
 */
export function fillSql(resource: Resource, fts: string, rowid: string, from: string, inputs: IndexInputs): string {
  if (resource === 'contacts') {
    const tokens = inputs.ownLabels ? recordFilterTokensSql('x') : contactFilterTokensSql('x', inputs.contactLabels, inputs.labels);
    return `INSERT INTO ${fts} (rowid, ${CONTACT_FTS_COLUMNS}) SELECT ${rowid}, ${contactFtsValuesSql('x', tokens)} FROM ${from}`;
  }
  return `INSERT INTO ${fts} (rowid, ${ORDER_FTS_COLUMNS}) SELECT ${rowid}, ${orderFtsValuesSql('x', inputs.recipients)} FROM ${from}`;
}

/** The columns of `resource`'s search index, in order. */
export function ftsColumnsOf(resource: Resource): string {
  return resource === 'contacts' ? CONTACT_FTS_COLUMNS : ORDER_FTS_COLUMNS;
}

/**
 * Writes the labels of the contacts staged in `stage`: each label once into `labels` (its title
 * the greatest of the titles the contacts carry for it), and each contact's labels into
 * `contactLabels` with their place in its list (a label listed twice on one contact counts once).
 * The tables have the definitions of the cache's `labels` and `contact_labels`.
 * @returns whether every label had one title and no contact listed a label twice: then the
 *   labels' filter tokens read from each contact's own list are the ones read from these tables
 */
export function writeLabels(db: Database.Database, stage: string, labels: string, contactLabels: string): boolean {
  db.exec(`CREATE TEMP TABLE build_label_titles AS SELECT j.value ->> 'id' AS id, max(j.value ->> 'title') AS title,
    min(j.value ->> 'title') AS least, count(*) AS entries FROM ${stage} s, json_each(s.label_list) j GROUP BY 1`);
  try {
    db.exec(`INSERT INTO ${labels} (id, title) SELECT id, title FROM temp.build_label_titles`);
    const { entries, split } = db.prepare('SELECT coalesce(sum(entries), 0) AS entries, coalesce(sum(title IS NOT least), 0) AS split FROM temp.build_label_titles').get() as { entries: number; split: number };
    const linked = db.prepare(`INSERT OR IGNORE INTO ${contactLabels} (contact_id, label_id, position) SELECT s.id, j.value ->> 'id', j.key FROM ${stage} s, json_each(s.label_list) j`).run().changes;
    return split === 0 && linked === entries;
  } finally {
    db.exec('DROP TABLE temp.build_label_titles');
  }
}

/** The command column of FTS5 table `fts` (its name without a schema). */
function commandColumn(fts: string): string {
  return fts.slice(fts.indexOf('.') + 1);
}

/**
 * Readies search index `fts` (its name, with a schema or not) for a fill in bulk: FTS5's automatic
 * merging off (it would merge segments that 'optimize' merges again anyway: the index after
 * 'optimize' is the same single segment, built in less time) and its pending-data buffer
 * {@link FTS_BULK_HASH_SIZE}.
 */
export function beginBulkIndexing(db: Database.Database, fts: string): void {
  db.exec(`INSERT INTO ${fts} (${commandColumn(fts)}, rank) VALUES ('automerge', 0)`);
  db.exec(`INSERT INTO ${fts} (${commandColumn(fts)}, rank) VALUES ('hashsize', ${FTS_BULK_HASH_SIZE})`);
}

/**
 * Ends a fill in bulk ({@link beginBulkIndexing}): merges the index into one segment ('optimize')
 * and puts automerge and the buffer back at FTS5's defaults (4, 1 MiB), for any later writer.
 */
export function endBulkIndexing(db: Database.Database, fts: string): void {
  db.exec(`INSERT INTO ${fts} (${commandColumn(fts)}) VALUES ('optimize')`);
  db.exec(`INSERT INTO ${fts} (${commandColumn(fts)}, rank) VALUES ('automerge', 4)`);
  db.exec(`INSERT INTO ${fts} (${commandColumn(fts)}, rank) VALUES ('hashsize', ${FTS_DEFAULT_HASH_SIZE})`);
}

/** Empties search index `fts` (its name, with a schema or not). */
export function emptyIndex(db: Database.Database, fts: string): void {
  db.exec(`INSERT INTO ${fts} (${commandColumn(fts)}) VALUES ('delete-all')`);
}

/** Fills the search index `fts` in bulk with `insert` ({@link beginBulkIndexing}, {@link endBulkIndexing}). */
export function withoutAutomerge(db: Database.Database, fts: string, insert: () => void): void {
  beginBulkIndexing(db, fts);
  insert();
  endBulkIndexing(db, fts);
}

/** The search index of `resource` in the thread's file, and the staging table it indexes. */
export function threadIndexOf(resource: Resource): { fts: string; stage: string } {
  return { fts: `main.${SOURCES[resource].fts}`, stage: `cache.${BUILD_SOURCES[resource].stage}` };
}

/** The thread's inputs: at the build ({@link THREAD_INPUTS}) or while pages are staged ({@link STAGING_INPUTS}). */
export function threadInputs(whileStaging: boolean): IndexInputs {
  return whileStaging ? STAGING_INPUTS : THREAD_INPUTS;
}

