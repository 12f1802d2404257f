/**
 * The search index of a build (publish.ts): `contacts_fts_next` or `orders_fts_next`, filled once
 * in the rows' default order. A large build fills it in a worker thread of its own
 * (searchIndexWorker.ts), on another core than the sync connection. The thread starts with the
 * build and works from the committed staging alone: into a file of its own (the build file) it
 * writes the contacts' labels and the sort positions of a few columns (sortPositions.ts
 * `threadPositions`), which the connection reads from there instead of computing them; then it
 * fills the index into a second file. The connection meanwhile computes the other positions,
 * copies the rows with both and indexes the new mirror, and at the end copies the finished
 * index's tables in. A small build, or one whose thread failed, does the thread's part in the
 * connection, where a thread would cost more to start than it saves.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { CONTACT_FTS_COLUMNS, ORDER_FTS_COLUMNS, contactFilterTokensSql, contactFtsValuesSql, orderFtsValuesSql } from './searchIndex.ts';
import { tableDefinitionAs } from './db.ts';
import { BUILD_SOURCES, writePositions } from './sortPositions.ts';

/** Staged rows from which a build fills its search index in a worker thread (fewer: in the connection). */
export const WORKER_MIN_ROWS = 50_000;

/** How long a worker thread may take to start before the build fills the index itself (ms). */
const WORKER_START_TIMEOUT_MS = 20_000;

/** FTS5's default size of the in-memory buffer of pending index data (bytes; FTS5 `hashsize`). */
const FTS_DEFAULT_HASH_SIZE = 1024 * 1024;
/**
 * The buffer while the search index is filled in bulk: each time the buffer is full FTS5 writes a
 * segment, and fewer, larger segments mean less merging. Larger buffers are faster still but cost
 * the sync process memory it has not got to spare.
 */
const FTS_BULK_HASH_SIZE = 4 * 1024 * 1024;

/**
 * The tables in which FTS5 keeps a contentless index (`content=''`): the segments, their term
 * index, each row's column sizes, and the settings. Copying them copies the index.
 */
const FTS_SHADOW_TABLES = ['data', 'idx', 'docsize', 'config'] as const;

/** The new mirror each resource's search index is filled from in the connection, and the index. */
const SOURCES: Record<Resource, { mirror: string; fts: string }> = {
  contacts: { mirror: 'contacts_next', fts: 'contacts_fts' },
  orders: { mirror: 'orders_next', fts: 'orders_fts' },
};

/** Where a search index is filled from reads what it holds besides the rows: the contacts' labels, the orders' recipients. */
interface IndexInputs {
  contactLabels: string;
  labels: string;
  recipients: string;
}

/** The build's own `_next` tables, which the connection fills the index from. */
const CONNECTION_INPUTS: IndexInputs = { contactLabels: 'main.contact_labels_next', labels: 'main.labels_next', recipients: 'main.order_recipients_next' };
/**
 * The thread's: the labels it wrote to its build file, and the staged recipients (the same rows
 * as `order_recipients_next`, which holds those of every staged order, under the same key order).
 */
const THREAD_INPUTS: IndexInputs = { contactLabels: 'build.contact_labels', labels: 'build.labels', recipients: 'cache.stage_order_recipients' };

/**
 * The INSERT that fills search index `fts` from rows `x` of `from`, whose rowid in the mirror is
 * `rowid`, with the labels or recipients of `inputs`. One statement for the thread and the
 * connection, so both index the same text.
 */
function fillSql(resource: Resource, fts: string, rowid: string, from: string, inputs: IndexInputs): string {
  if (resource === 'contacts') {
    const tokens = contactFilterTokensSql('x', inputs.contactLabels, inputs.labels);
    return `INSERT INTO ${fts} (rowid, ${CONTACT_FTS_COLUMNS}) SELECT ${rowid}, ${contactFtsValuesSql('x', tokens)} FROM ${from}`;
  }
  return `INSERT INTO ${fts} (rowid, ${ORDER_FTS_COLUMNS}) SELECT ${rowid}, ${orderFtsValuesSql('x', inputs.recipients)} FROM ${from}`;
}

/**
 * Writes the labels of the contacts staged in `stage`: each label once into `labels` (its title
 * the greatest of the titles the contacts carry for it), and each contact's labels into
 * `contactLabels` with their place in its list (a label listed twice on one contact counts once).
 * The tables have the definitions of the cache's `labels` and `contact_labels`.
 */
export function writeLabels(db: Database.Database, stage: string, labels: string, contactLabels: string): void {
  db.exec(`INSERT INTO ${labels} (id, title) SELECT j.value ->> 'id', max(j.value ->> 'title') FROM ${stage} s, json_each(s.label_list) j GROUP BY 1`);
  db.exec(`INSERT OR IGNORE INTO ${contactLabels} (contact_id, label_id, position) SELECT s.id, j.value ->> 'id', j.key FROM ${stage} s, json_each(s.label_list) j`);
}

/**
 * Fills the search index `fts` with `insert`, then merges it into one segment ('optimize').
 * During the bulk insert FTS5's automatic merging is off: it would merge segments that
 * 'optimize' merges again anyway (the index after 'optimize' is the same single segment, built
 * in less time), and its pending-data buffer is {@link FTS_BULK_HASH_SIZE}. Afterwards both are
 * back at FTS5's defaults (automerge 4, 1 MiB), for any later writer.
 */
function withoutAutomerge(db: Database.Database, fts: string, insert: () => void): void {
  db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('automerge', 0)`);
  db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${FTS_BULK_HASH_SIZE})`);
  insert();
  db.exec(`INSERT INTO ${fts} (${fts}) VALUES ('optimize')`);
  db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('automerge', 4)`);
  db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${FTS_DEFAULT_HASH_SIZE})`);
}

/**
 * Fills `<fts>_next` of `resource` in the connection from the new mirror `<mirror>_next`, whose
 * rowids are already the default order.
 */
function fillFromMirror(db: Database.Database, resource: Resource): void {
  const { mirror, fts } = SOURCES[resource];
  withoutAutomerge(db, `${fts}_next`, () => db.exec(fillSql(resource, `${fts}_next`, 'x.rowid', `${mirror} x`, CONNECTION_INPUTS)));
}

/**
 * Rows the thread indexes a statement, each statement its own transaction and so its own read of
 * the cache (see {@link fillInScratch}). Each also ends an FTS5 segment, which 'optimize' merges.
 */
export const FILL_CHUNK_ROWS = 100_000;

/** The table of the thread's positions in its build file. */
export const THREAD_POSITIONS_TABLE = 'thread_positions';

/**
 * The worker thread's work, in `db` (the thread's own file, with the cache attached as `cache`
 * and its build file as `build`): writes the staged contacts' labels to the build file, with the
 * definitions of the cache's tables, and numbers the staged rows in the default order, their
 * rowids in the mirror to be, with the positions of `resource`'s `threadPositions` (both by the
 * same function as the build's other positions: sortPositions.ts `writePositions`); calls
 * `written`; then creates the search index with the cache's definition and fills it from the
 * staged rows in that order, `chunkRows` rows a statement.
 * @throws on any SQLite error (the build then does what is missing itself)
 */
export function fillInScratch(db: Database.Database, resource: Resource, written: () => void, chunkRows = FILL_CHUNK_ROWS): void {
  const { stage, threadPositions } = BUILD_SOURCES[resource];
  const { fts } = SOURCES[resource];
  db.exec(tableDefinitionAs(db, 'cache', fts, `main.${fts}`));
  if (resource === 'contacts') {
    for (const table of ['labels', 'contact_labels']) db.exec(tableDefinitionAs(db, 'cache', table, `build.${table}`));
    writeLabels(db, `cache.${stage}`, THREAD_INPUTS.labels, THREAD_INPUTS.contactLabels);
  }
  writePositions(db, resource, 'cache', 'build', THREAD_POSITIONS_TABLE, threadPositions);
  written();
  const range = `build.${THREAD_POSITIONS_TABLE} o JOIN cache.${stage} x ON x.rowid = o.srow WHERE o.rn BETWEEN ? AND ? ORDER BY o.rn`;
  const insert = db.prepare(fillSql(resource, `main.${fts}`, 'o.rn', range, THREAD_INPUTS));
  const rows = (db.prepare(`SELECT count(*) AS n FROM build.${THREAD_POSITIONS_TABLE}`).get() as { n: number }).n;
  // One statement a chunk, each its own transaction: a read of the cache that lasted the whole
  // fill would keep the connection's checkpoints from emptying its WAL, which would then grow
  // by everything the build writes meanwhile.
  withoutAutomerge(db, fts, () => {
    for (let from = 1; from <= rows; from += chunkRows) insert.run(from, from + chunkRows - 1);
  });
}

/** What the worker thread is given (searchIndexWorker.ts). */
export interface SearchIndexWorkerData {
  /** The cache file: the worker attaches it and reads its staging tables and table definitions. */
  cacheFile: string;
  /** The worker's own file, where it builds the index. */
  scratchFile: string;
  /** The worker's build file: what it computes for the build (labels, positions), which the build reads. */
  buildFile: string;
  resource: Resource;
  /** Rows the worker indexes a statement ({@link FILL_CHUNK_ROWS}). */
  fillChunkRows: number;
  /** Int32 slots ({@link SLOT}) through which the worker and the blocked build tell each other how far they are. */
  state: SharedArrayBuffer;
}

/**
 * The Int32 slots of {@link SearchIndexWorkerData.state}: `outcome` ({@link OUTCOME}), `started`
 * 1 once the worker's code runs, `written` 1 once its build file is committed.
 */
export const SLOT = { outcome: 0, started: 1, written: 2 } as const;
/** The values of the outcome slot. */
export const OUTCOME = { running: 0, done: 1, failed: 2 } as const;

/** The worker thread's entry: `searchIndexWorker.ts` from the sources, `searchIndexWorker.js` in the build. */
function workerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../searchIndexWorker.ts', import.meta.url) : new URL('./searchIndexWorker.js', import.meta.url);
}

/** Where a build's worker builds its index: beside the cache, so a full disk shows the same. */
export function scratchFileOf(cacheFile: string, resource: Resource): string {
  return `${cacheFile}.${resource}-search`;
}

/** Where a build's worker writes what it computes for the build (its build file): beside its index's file. */
export function buildFileOf(cacheFile: string, resource: Resource): string {
  return `${cacheFile}.${resource}-build`;
}

/** Deletes a worker's file and its companions, if any (anything else at those paths stays). */
export function removeScratch(scratchFile: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) {
    try {
      rmSync(`${scratchFile}${suffix}`, { force: true });
    } catch {
      // Not a file (a folder of the same name): the worker fails to open it and the build goes on without it.
    }
  }
}

/** The search index of a build, being filled or to be filled, and what its thread computes for the build. */
export interface SearchIndexBuild {
  /** The position columns the thread computes; none without a thread. */
  readonly threadPositions: readonly string[];
  /**
   * The schema the thread's build file is attached as, once the thread has written it (blocking
   * until then): table {@link THREAD_POSITIONS_TABLE} `(rn INTEGER PRIMARY KEY, srow,
   * <threadPositions>)` and, for contacts, `labels` and `contact_labels`; or null when there is no
   * thread or it failed first (the connection then computes them). Valid until {@link dispose}.
   */
  threadFile(): string | null;
  /**
   * Makes `<fts>_next` hold the index of the new mirror: waits for the worker (blocking the thread:
   * the build is synchronous) and copies its index in, or fills it in the connection from
   * `<mirror>_next` and the `_next` labels or recipients, which must be whole by then.
   */
  finish(): void;
  /** Where the index was filled (known once {@link finish} has returned). */
  builtIn(): 'worker' | 'connection';
  /** Stops the worker if it still runs, detaches and deletes its files. */
  dispose(): void;
}

/**
 * Starts filling `resource`'s search index for the build: in a worker thread when there are at
 * least `workerMinRows` staged rows and the cache is a file, else (at {@link SearchIndexBuild.finish})
 * in the connection.
 * @param db the sync connection, outside a transaction, with the staging committed
 * @param fillChunkRows rows the worker indexes a statement ({@link FILL_CHUNK_ROWS})
 */
export function startSearchIndex(db: Database.Database, resource: Resource, workerMinRows = WORKER_MIN_ROWS, fillChunkRows = FILL_CHUNK_ROWS): SearchIndexBuild {
  const { stage, threadPositions } = BUILD_SOURCES[resource];
  const { fts } = SOURCES[resource];
  const rows = (db.prepare(`SELECT count(*) AS n FROM main.${stage}`).get() as { n: number }).n;
  const inConnection: SearchIndexBuild = {
    threadPositions: [],
    threadFile: () => null,
    finish: () => fillFromMirror(db, resource),
    builtIn: () => 'connection',
    dispose: () => {},
  };
  if (rows < workerMinRows || db.memory || db.inTransaction) return inConnection;
  const scratchFile = scratchFileOf(db.name, resource);
  const buildFile = buildFileOf(db.name, resource);
  removeScratch(scratchFile);
  removeScratch(buildFile);
  const state = new SharedArrayBuffer(4 * Object.keys(SLOT).length);
  const flags = new Int32Array(state);
  let worker: Worker;
  try {
    worker = new Worker(workerUrl(), { workerData: { cacheFile: db.name, scratchFile, buildFile, resource, fillChunkRows, state } satisfies SearchIndexWorkerData });
  } catch {
    return inConnection;
  }
  // A failure is said through `state`; the thread's own error event could not reach a blocked build.
  worker.on('error', () => {});
  const since = performance.now();
  let givenUp = false;
  /**
   * Blocks until `slot` holds `value` or the worker has ended; gives the worker up (and stops it)
   * if its code has not started after a while (its script missing). The build cannot yield to the
   * event loop, so the worker says how far it is through shared memory.
   * @returns whether `slot` holds `value`
   */
  const waitFor = (slot: number, value: number): boolean => {
    while (!givenUp && Atomics.load(flags, slot) !== value && Atomics.load(flags, SLOT.outcome) === OUTCOME.running) {
      Atomics.wait(flags, slot, Atomics.load(flags, slot), 500);
      if (Atomics.load(flags, SLOT.started) === 0 && performance.now() - since > WORKER_START_TIMEOUT_MS) {
        givenUp = true;
        void worker.terminate();
      }
    }
    return Atomics.load(flags, slot) === value;
  };
  const attached: string[] = [];
  const attach = (file: string, alias: string): string => {
    db.prepare(`ATTACH DATABASE ? AS ${alias}`).run(file);
    // Read once, in order: a small page cache of its own (SQLite's default would be 16 MiB).
    db.pragma(`${alias}.cache_size = -1024`);
    attached.push(alias);
    return alias;
  };
  let fellBack = false;
  return {
    threadPositions,
    threadFile: () => (waitFor(SLOT.written, 1) ? attach(buildFile, 'search_build') : null),
    finish() {
      if (!waitFor(SLOT.outcome, OUTCOME.done)) {
        removeScratch(scratchFile);
        fellBack = true;
        fillFromMirror(db, resource);
        return;
      }
      attach(scratchFile, 'search_scratch');
      // The fresh `_next` index holds only FTS5's empty start; the worker's tables replace it.
      // Defensive mode (better-sqlite3's default) keeps FTS5's tables to FTS5: off for the copy.
      db.unsafeMode(true);
      try {
        db.transaction(() => {
          for (const shadow of FTS_SHADOW_TABLES) {
            db.exec(`DELETE FROM main.${fts}_next_${shadow}`);
            db.exec(`INSERT INTO main.${fts}_next_${shadow} SELECT * FROM search_scratch.${fts}_${shadow}`);
          }
        })();
      } finally {
        db.unsafeMode(false);
      }
    },
    builtIn: () => (fellBack ? 'connection' : 'worker'),
    dispose() {
      // A thread that has said how it ended has closed its connection and ends by itself; one
      // that still runs is stopped.
      if (Atomics.load(flags, SLOT.outcome) === OUTCOME.running) void worker.terminate();
      for (const alias of attached.splice(0)) db.exec(`DETACH DATABASE ${alias}`);
      removeScratch(scratchFile);
      removeScratch(buildFile);
    },
  };
}
