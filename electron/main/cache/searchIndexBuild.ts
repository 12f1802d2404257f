/**
 * The search index of a build (publish.ts): `contacts_fts_next` or `orders_fts_next`, filled once
 * in the rows' default order. A large build fills it in a worker thread of its own
 * (searchIndexWorker.ts), in a file of the thread's own, on another core than the sync
 * connection. The thread starts with the build: it first computes a few of the build's sort
 * positions into a second file of its own (sortPositions.ts `threadPositions`) while the
 * connection writes the labels or recipients the index reads, then fills the index once those are
 * committed; the connection meanwhile computes the other positions, copies the rows with both,
 * and at the end copies the finished index's tables in. A small build, or one whose thread
 * failed, does the thread's part in the connection, where a thread would cost more to start than
 * it saves.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { CONTACT_FTS_COLUMNS, ORDER_FTS_COLUMNS, contactFilterTokensSql, contactFtsValuesSql, orderFtsValuesSql } from './searchIndex.ts';
import { BUILD_SOURCES, computePositions, writePositions } from './sortPositions.ts';

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

/**
 * The INSERT that fills search index `fts` from rows `x` of `from`, whose rowid in the mirror is
 * `rowid`; the labels (contacts) or recipients (orders) are read from the build's `_next` tables
 * in `schema`. One statement for the thread and the connection, so both index the same text.
 */
function fillSql(resource: Resource, fts: string, rowid: string, from: string, schema: string): string {
  if (resource === 'contacts') {
    const tokens = contactFilterTokensSql('x', `${schema}.contact_labels_next`, `${schema}.labels_next`);
    return `INSERT INTO ${fts} (rowid, ${CONTACT_FTS_COLUMNS}) SELECT ${rowid}, ${contactFtsValuesSql('x', tokens)} FROM ${from}`;
  }
  return `INSERT INTO ${fts} (rowid, ${ORDER_FTS_COLUMNS}) SELECT ${rowid}, ${orderFtsValuesSql('x', `${schema}.order_recipients_next`)} FROM ${from}`;
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
  withoutAutomerge(db, `${fts}_next`, () => db.exec(fillSql(resource, `${fts}_next`, 'x.rowid', `${mirror} x`, 'main')));
}

/** The table of the thread's positions in its positions file. */
const THREAD_POSITIONS_TABLE = 'thread_positions';

/** What the worker thread tells the build, and waits for, while it works (searchIndexThread.ts). */
export interface ScratchHooks {
  /** Its positions are committed to the positions file. */
  positionsWritten(): void;
  /** Blocks until the build has committed the index's inputs; false if the build ended without them. */
  inputsCommitted(): boolean;
}

/**
 * The worker thread's work, in `db` (the thread's own file, with the cache attached as `cache` and
 * the positions file as `positions`): numbers the staged rows in the default order, their rowids
 * in the mirror to be, with the positions of `resource`'s `threadPositions` (both by the same
 * function as the build's other positions: sortPositions.ts `writePositions`); then, once the
 * build has committed the labels or recipients, creates the search index with the cache's
 * definition and fills it from the staged rows in that order.
 * @throws when the build ended before committing the index's inputs, or on any SQLite error
 */
export function fillInScratch(db: Database.Database, resource: Resource, hooks: ScratchHooks): void {
  const { stage, threadPositions } = BUILD_SOURCES[resource];
  const { fts } = SOURCES[resource];
  const definition = db.prepare("SELECT sql FROM cache.sqlite_master WHERE type = 'table' AND name = ?").pluck().get(fts) as string | undefined;
  if (!definition) throw new Error(`cache schema has no table ${fts}`);
  db.exec(definition);
  writePositions(db, resource, 'cache', 'positions', THREAD_POSITIONS_TABLE, threadPositions);
  hooks.positionsWritten();
  if (!hooks.inputsCommitted()) throw new Error('the build ended before the search index could be filled');
  const order = `positions.${THREAD_POSITIONS_TABLE} o JOIN cache.${stage} x ON x.rowid = o.srow ORDER BY o.rn`;
  withoutAutomerge(db, fts, () => db.exec(fillSql(resource, `main.${fts}`, 'o.rn', order, 'cache')));
}

/** What the worker thread is given (searchIndexWorker.ts). */
export interface SearchIndexWorkerData {
  /** The cache file: the worker attaches it and reads its staging table and the build's `_next` label or recipient tables. */
  cacheFile: string;
  /** The worker's own file, where it builds the index. */
  scratchFile: string;
  /** The worker's file for the positions it computes for the build, which the build reads. */
  positionsFile: string;
  resource: Resource;
  /** Int32 slots ({@link SLOT}) through which the worker and the blocked build tell each other how far they are. */
  state: SharedArrayBuffer;
}

/**
 * The Int32 slots of {@link SearchIndexWorkerData.state}: `outcome` ({@link OUTCOME}), `started`
 * 1 once the worker's code runs, `positions` 1 once its positions are committed, `inputs`
 * ({@link INPUTS}) set by the build.
 */
export const SLOT = { outcome: 0, started: 1, positions: 2, inputs: 3 } as const;
/** The values of the outcome slot. */
export const OUTCOME = { running: 0, done: 1, failed: 2 } as const;
/** The values of the inputs slot: the labels or recipients not yet committed, committed, or never to be (the build ended). */
export const INPUTS = { pending: 0, committed: 1, cancelled: 2 } as const;

/** The worker thread's entry: `searchIndexWorker.ts` from the sources, `searchIndexWorker.js` in the build. */
function workerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../searchIndexWorker.ts', import.meta.url) : new URL('./searchIndexWorker.js', import.meta.url);
}

/** Where a build's worker builds its index: beside the cache, so a full disk shows the same. */
export function scratchFileOf(cacheFile: string, resource: Resource): string {
  return `${cacheFile}.${resource}-search`;
}

/** Where a build's worker writes the positions it computes for the build: beside its index's file. */
export function positionsFileOf(cacheFile: string, resource: Resource): string {
  return `${cacheFile}.${resource}-positions`;
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

/** The search index of a build, being filled or to be filled, and the positions its thread computes. */
export interface SearchIndexBuild {
  /** The position columns the thread computes ({@link positions} gives them); none without a thread. */
  readonly threadPositions: readonly string[];
  /** Tells the thread that the labels (contacts) or recipients (orders) of the build are committed. */
  inputsCommitted(): void;
  /**
   * The qualified name of a table `(rn INTEGER PRIMARY KEY, srow, <threadPositions>)`: the thread's,
   * once it has written it (blocking until then), or, if the thread failed first, computed in the
   * connection. Valid until {@link dispose}.
   */
  positions(): string;
  /**
   * Makes `<fts>_next` hold the index of the new mirror: waits for the worker (blocking the thread:
   * the build is synchronous) and copies its index in, or fills it in the connection from
   * `<mirror>_next`, which must hold every row by then.
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
 * in the connection. The thread computes its positions at once, and waits for
 * {@link SearchIndexBuild.inputsCommitted} before it reads the labels or recipients.
 * @param db the sync connection, outside a transaction, with the build's `_next` tables created
 */
export function startSearchIndex(db: Database.Database, resource: Resource, workerMinRows = WORKER_MIN_ROWS): SearchIndexBuild {
  const { stage, threadPositions } = BUILD_SOURCES[resource];
  const { fts } = SOURCES[resource];
  const rows = (db.prepare(`SELECT count(*) AS n FROM main.${stage}`).get() as { n: number }).n;
  const inConnection: SearchIndexBuild = {
    threadPositions: [],
    inputsCommitted: () => {},
    positions: () => {
      throw new Error('a build without a search index thread computes every position itself');
    },
    finish: () => fillFromMirror(db, resource),
    builtIn: () => 'connection',
    dispose: () => {},
  };
  if (rows < workerMinRows || db.memory || db.inTransaction) return inConnection;
  const scratchFile = scratchFileOf(db.name, resource);
  const positionsFile = positionsFileOf(db.name, resource);
  removeScratch(scratchFile);
  removeScratch(positionsFile);
  const state = new SharedArrayBuffer(4 * Object.keys(SLOT).length);
  const flags = new Int32Array(state);
  let worker: Worker;
  try {
    worker = new Worker(workerUrl(), { workerData: { cacheFile: db.name, scratchFile, positionsFile, resource, state } satisfies SearchIndexWorkerData });
  } catch {
    return inConnection;
  }
  // A failure is said through `state`; the thread's own error event could not reach a blocked build.
  worker.on('error', () => {});
  const since = performance.now();
  let givenUp = false;
  /**
   * Blocks until `ready()` holds or the worker has ended; gives the worker up (and stops it) if
   * its code has not started after a while (its script missing). The build cannot yield to the
   * event loop, so the worker says how far it is through shared memory.
   * @returns whether `ready()` holds
   */
  const waitFor = (slot: number, ready: () => boolean): boolean => {
    while (!givenUp && !ready() && Atomics.load(flags, SLOT.outcome) === OUTCOME.running) {
      Atomics.wait(flags, slot, Atomics.load(flags, slot), 500);
      if (Atomics.load(flags, SLOT.started) === 0 && performance.now() - since > WORKER_START_TIMEOUT_MS) {
        givenUp = true;
        void worker.terminate();
      }
    }
    return ready();
  };
  const attached: string[] = [];
  const attach = (file: string, alias: string): void => {
    db.prepare(`ATTACH DATABASE ? AS ${alias}`).run(file);
    attached.push(alias);
  };
  let fellBack = false;
  return {
    threadPositions,
    inputsCommitted() {
      Atomics.store(flags, SLOT.inputs, INPUTS.committed);
      Atomics.notify(flags, SLOT.inputs);
    },
    positions() {
      if (waitFor(SLOT.positions, () => Atomics.load(flags, SLOT.positions) === 1)) {
        attach(positionsFile, 'search_positions');
        return `search_positions.${THREAD_POSITIONS_TABLE}`;
      }
      return computePositions(db, resource, 'build_thread_positions', threadPositions);
    },
    finish() {
      const done = waitFor(SLOT.outcome, () => Atomics.load(flags, SLOT.outcome) === OUTCOME.done);
      if (!done) {
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
      // that still runs is told the build has ended (it may be waiting for the inputs) and stopped.
      if (Atomics.load(flags, SLOT.outcome) === OUTCOME.running) {
        Atomics.store(flags, SLOT.inputs, INPUTS.cancelled);
        Atomics.notify(flags, SLOT.inputs);
        void worker.terminate();
      }
      for (const alias of attached.splice(0)) db.exec(`DETACH DATABASE ${alias}`);
      db.exec('DROP TABLE IF EXISTS temp.build_thread_positions');
      removeScratch(scratchFile);
      removeScratch(positionsFile);
    },
  };
}
