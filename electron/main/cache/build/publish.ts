/**
 * Turning the staging tables into the visible snapshot (DESIGN.md "Sync"): build `<table>_next`
 * tables from staging in bulk (rows in default order, sort positions, labels, search index built
 * once, in a worker thread for a large build), then publish them with one short transaction of
 * renames. Readers (other connections, WAL) keep seeing the previous snapshot until that
 * transaction commits, and a crash at any point leaves the previous snapshot intact (leftover
 * `_next` / `_old` tables are dropped on the next build).
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { sorterThreadsBeside, tableDefinitionAs } from '../store/db.ts';
import { CONTACT_STAGE_COLUMNS, ORDER_STAGE_COLUMNS, RECIPIENT_COLUMNS } from '../store/columns.ts';
import { BUILD_SOURCES, computePositions } from './sortPositions.ts';
import { THREAD_POSITIONS_TABLE, buildFileOf, removeScratch, scratchFileOf, startSearchIndex, type StagingSearchIndex } from './searchIndexBuild.ts';
import { writeLabels } from './searchIndexFill.ts';
import { buildChangesNext } from './changes.ts';
import { buildObservationsNext, dropObservationsNext } from './observe.ts';
import { SUMMARY_TABLES, buildSummariesNext } from './summaries.ts';
import { MAILING_TABLES, buildMailingNext } from './mailing.ts';
import { OVERVIEW_TABLES, buildOverviewNext } from './overview.ts';

/** Tables that make up the visible snapshot of each resource. */
export const SNAPSHOT_TABLES: Record<Resource, readonly string[]> = {
  contacts: [
    'contacts', 'labels', 'contact_labels', 'contacts_fts', 'view_contact_rows', 'view_contacts_fts', 'contact_changes', 'removed_contacts', 'removed_contacts_fts',
    OVERVIEW_TABLES.contacts,
  ],
  orders: [
    'orders', 'order_recipients', 'orders_fts', 'view_order_rows', 'view_orders_fts', 'order_changes', 'removed_orders', 'removed_order_recipients', 'removed_orders_fts',
    ...SUMMARY_TABLES, ...MAILING_TABLES, OVERVIEW_TABLES.orders,
  ],
};

/** The snapshot tables a build fills before its search index is finished, so indexed meanwhile. */
const COMPLETE_BEFORE_INDEX: Record<Resource, readonly string[]> = {
  contacts: ['contacts', 'labels', 'contact_labels'],
  orders: ['orders', 'order_recipients'],
};

export { CONTACT_DEFAULT_ORDER, CONTACT_POSITIONS, ORDER_DEFAULT_ORDER, ORDER_POSITIONS } from '../store/positions.ts';

function indexSql(db: Database.Database, table: string): { name: string; sql: string }[] {
  return db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table) as { name: string; sql: string }[];
}

/** Creates `<table>_next` with the exact definition of `<table>` (the migrations stay the one truth). */
function createNext(db: Database.Database, table: string): void {
  const sql = tableDefinitionAs(db, 'main', table, `${table}_next`);
  db.exec(`DROP TABLE IF EXISTS ${table}_next`);
  db.exec(sql);
}

/** Copies the indexes of `<table>` onto `<table>_next` under fresh names (`<base>__g<gen>`). */
function createNextIndexes(db: Database.Database, table: string, gen: string): void {
  for (const { name, sql } of indexSql(db, table)) {
    const base = name.replace(/__g\w+$/, '');
    const rewritten = sql.replace(/^CREATE (UNIQUE )?INDEX\s+("?)(\w+)\2\s+ON\s+("?)(\w+)\4/, (_m, unique: string | undefined) => `CREATE ${unique ?? ''}INDEX ${base}__g${gen} ON ${table}_next`);
    db.exec(rewritten);
  }
}

/**
 * Drops `_next` / `_old` leftovers of an interrupted build or publish, and the files of its search
 * index thread unless `threadFiles` is false (a read's thread, which the build takes over, has
 * them open).
 */
export function dropLeftovers(db: Database.Database, resource: Resource, threadFiles = true): void {
  if (!db.memory && threadFiles) {
    removeScratch(scratchFileOf(db.name, resource));
    removeScratch(buildFileOf(db.name, resource));
  }
  for (const t of SNAPSHOT_TABLES[resource]) {
    db.exec(`DROP TABLE IF EXISTS ${t}_next`);
    db.exec(`DROP TABLE IF EXISTS ${t}_old`);
  }
  dropObservationsNext(db);
}

/** A table of sort positions (sortPositions.ts `writePositions`) and the position columns it holds. */
interface PositionTable {
  table: string;
  names: readonly string[];
}

/**
 * Copies the staged rows into `target` in the default order with their sort positions and
 * rowid = rn: walks the first table of `positions` in rowid order (so that no sort of the wide
 * rows happens), its rows' staged rows by `srow`, and the other tables' rows by the same `rn`
 * (lookups in rowid order, each next to the one before).
 */
function copyInOrder(db: Database.Database, stage: string, target: string, cols: readonly string[], positions: readonly PositionTable[]): void {
  const names = positions.flatMap((p) => p.names);
  const values = positions.flatMap((p, i) => p.names.map((n) => `p${i}.${n}`));
  const joins = positions.slice(1).map((p, i) => `JOIN ${p.table} p${i + 1} ON p${i + 1}.rn = p0.rn`);
  db.exec(`INSERT INTO ${target} (rowid, ${[...cols, ...names].join(', ')})
    SELECT p0.rn, ${[...cols.map((c) => `s.${c}`), ...values].join(', ')} FROM ${positions[0]?.table} p0 JOIN ${stage} s ON s.rowid = p0.srow ${joins.join(' ')} ORDER BY p0.rn`);
}

export { contactFilterTokensSql, contactPhoneSearchSql } from '../store/searchIndex.ts';

/**
 * Fills what the search index reads besides the rows: the contacts' labels (from the thread's
 * build file `thread` when it wrote them, else from staging) or the orders' recipients.
 */
function writeInputs(db: Database.Database, resource: Resource, thread: string | null): void {
  if (resource === 'orders') {
    const rcols = RECIPIENT_COLUMNS.join(', ');
    db.exec(`INSERT INTO order_recipients_next (${rcols}) SELECT ${rcols} FROM stage_order_recipients
      WHERE order_id IN (SELECT id FROM stage_orders)`);
  } else if (thread) {
    db.exec(`INSERT INTO labels_next SELECT * FROM ${thread}.labels`);
    db.exec(`INSERT INTO contact_labels_next SELECT * FROM ${thread}.contact_labels`);
  } else writeLabels(db, 'main.stage_contacts', 'main.labels_next', 'main.contact_labels_next');
}

/** Options of {@link buildNext}. */
export interface BuildOptions {
  /** Called with 'indexing' before the search index build. */
  onPhase?: (phase: 'indexing') => void;
  /**
   * Compare the new mirror with the published one and record what was added, changed and removed
   * (changes.ts), and stage what changed in the observed fields for the history (observe.ts);
   * without it (a resource's first sync: nothing to compare with) no change is recorded.
   * @default false
   */
  compare?: boolean;
  /**
   * Staged rows from which the search index is filled in a worker thread (searchIndexBuild.ts).
   * @default WORKER_MIN_ROWS
   */
  workerMinRows?: number;
  /** Rows the worker thread indexes a statement. @default FILL_CHUNK_ROWS (searchIndexBuild.ts) */
  fillChunkRows?: number;
  /**
   * The thread that indexed the pages as they were staged (searchIndexBuild.ts
   * `indexWhileStaging`), which the build takes over and disposes of. @default none
   */
  staged?: StagingSearchIndex | null;
  /**
   * Called with where the search index was filled: by a worker thread while the pages were
   * staged, by one at the build, or in the connection.
   */
  onSearchIndex?: (builtIn: 'staging' | 'worker' | 'connection') => void;
  /**
   * With `compare`, also stage the changes of the observed fields for the history (observe.ts);
   * false leaves them out, as the benchmark's comparison does. @default true
   */
  observe?: boolean;
  /** When this sync saw the records (ISO 8601 UTC): an order's first-seen time (mailing.ts). @default now */
  seenAt?: string;
}

/**
 * Builds the `_next` tables of `resource` from staging rows of `pass` (drift repair keeps only
 * rows seen in the last complete pass): the mirror, its search index, what changed since the
 * published mirror (with `compare`), the Overview's numbers (overview.ts), and for orders the
 * templates and campaigns (read/summaries.ts) and each contact's mailings (mailing.ts).
 * The member tables of its saved views are created empty; savedViews/mirror.ts
 * `buildNextWithViews` fills them for the new mirror. Heavy (seconds at 1M rows); runs in the sync
 * connection without holding any lock readers care about.
 * @returns the number of rows built
 */
export function buildNext(db: Database.Database, resource: Resource, gen: string, options: BuildOptions = {}): number {
  const { onPhase, compare = false, workerMinRows, fillChunkRows, staged, onSearchIndex } = options;
  dropLeftovers(db, resource, !staged);
  for (const t of SNAPSHOT_TABLES[resource]) createNext(db, t);
  onPhase?.('indexing');
  const search = startSearchIndex(db, resource, workerMinRows, fillChunkRows, staged);
  // A search index thread keeps a core busy: the connection's sorts get helpers only on the others.
  // Once done, the thread checkpoints the WAL while this connection writes, which then does not.
  const sorterThreads = db.pragma('threads', { simple: true }) as number;
  const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  if (search.threadPositions.length > 0) {
    db.pragma(`threads = ${Math.min(sorterThreads, sorterThreadsBeside(1))}`);
    db.pragma('wal_autocheckpoint = 0');
  }
  try {
    // A large build's thread writes the contacts' labels and some sort positions meanwhile, then
    // keeps the index it filled while the pages were staged or fills it (searchIndexBuild.ts);
    // this connection computes the other positions, copies the rows with both, takes the labels
    // or recipients, and indexes the new mirror.
    const { stage, positions } = BUILD_SOURCES[resource];
    const [target, cols] = resource === 'contacts' ? ['contacts_next', CONTACT_STAGE_COLUMNS] : ['orders_next', ORDER_STAGE_COLUMNS];
    const inThread = search.threadPositions;
    const own = Object.keys(positions).filter((n) => !inThread.includes(n));
    try {
      const tables: PositionTable[] = [{ table: computePositions(db, resource, 'build_positions', own), names: own }];
      const thread = search.threadFile();
      if (inThread.length > 0) tables.push({ table: thread ? `${thread}.${THREAD_POSITIONS_TABLE}` : computePositions(db, resource, 'build_thread_positions', inThread), names: inThread });
      copyInOrder(db, stage, target, cols, tables);
      writeInputs(db, resource, thread);
      // Before the recipients' index exists: the aggregation then reads them in key order and
      // sorts, instead of looking each one up through the index.
      if (resource === 'orders') buildMailingNext(db, options.seenAt ?? new Date().toISOString());
    } finally {
      db.exec('DROP TABLE IF EXISTS temp.build_positions');
      db.exec('DROP TABLE IF EXISTS temp.build_thread_positions');
    }
    // The mirror and its labels or recipients are whole: their indexes are built while the
    // thread may still be filling the search index.
    for (const t of COMPLETE_BEFORE_INDEX[resource]) createNextIndexes(db, t, gen);
    search.finish();
    onSearchIndex?.(search.builtIn());
  } finally {
    search.dispose();
    db.pragma(`threads = ${sorterThreads}`);
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  }
  if (compare) {
    buildChangesNext(db, resource);
    if (options.observe !== false) buildObservationsNext(db, resource);
  }
  for (const t of SNAPSHOT_TABLES[resource]) if (!t.endsWith('_fts') && !COMPLETE_BEFORE_INDEX[resource].includes(t)) createNextIndexes(db, t, gen);
  if (resource === 'orders') buildSummariesNext(db);
  buildOverviewNext(db, resource, new Date().toISOString());
  const main = resource === 'contacts' ? 'contacts_next' : 'orders_next';
  return (db.prepare(`SELECT count(*) AS n FROM ${main}`).get() as { n: number }).n;
}

/**
 * Makes the `_next` tables of `resource` the visible snapshot in ONE transaction of renames,
 * running `inTransaction` inside it after them (bookkeeping that must commit together with the
 * swap; savedViews/mirror.ts `publishNextWithViews` reconciles the saved views there). The
 * previous tables are dropped after the commit, and staging is emptied.
 */
export function publishNext(db: Database.Database, resource: Resource, inTransaction: () => void): void {
  const tables = SNAPSHOT_TABLES[resource];
  db.transaction(() => {
    for (const t of tables) {
      db.exec(`ALTER TABLE ${t} RENAME TO ${t}_old`);
      db.exec(`ALTER TABLE ${t}_next RENAME TO ${t}`);
    }
    inTransaction();
  }).immediate();
  for (const t of tables) db.exec(`DROP TABLE IF EXISTS ${t}_old`);
  clearStage(db, resource);
}

/** Empties the staging tables of `resource` (and its resume bookkeeping). */
export function clearStage(db: Database.Database, resource: Resource): void {
  db.transaction(() => {
    if (resource === 'contacts') db.exec('DELETE FROM stage_contacts');
    else {
      db.exec('DELETE FROM stage_orders');
      db.exec('DELETE FROM stage_order_recipients');
    }
    db.prepare('DELETE FROM sync_pages WHERE resource = ?').run(resource);
    db.prepare('DELETE FROM sync_state WHERE resource = ?').run(resource);
  })();
}
