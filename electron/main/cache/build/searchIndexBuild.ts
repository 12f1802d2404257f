/**
 * The search index of a build (publish.ts): `contacts_fts_next` or `orders_fts_next`, filled once
 * in the rows' default order. A large build fills it in a worker thread of its own
 * (searchIndexWorker.ts), on another core than the sync connection. A sync's thread starts with
 * the read (cache/build/staging.ts) and indexes the pages as they are staged, each row under its place
 * in the service's order; at the build it keeps that index when the service's order turned out to
 * be the default order, and otherwise fills it again (searchIndex.thread.ts). At the build, from
 * the committed staging alone, the thread writes into a file of its own (the build file) the
 * contacts' labels and the sort positions of a few columns (sortPositions.ts `threadPositions`),
 * which the connection reads from there instead of computing them; the index goes into a second
 * file. The connection meanwhile computes the other positions, copies the rows with both and
 * indexes the new mirror, and at the end copies the finished index's tables in. A small build, or
 * one whose thread failed, does the thread's part in the connection, where a thread would cost
 * more to start than it saves.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { entryUrl } from '../../entries.ts';
import { CONNECTION_INPUTS, SOURCES, fillSql, withoutAutomerge } from './searchIndexFill.ts';
import { BUILD_SOURCES } from './sortPositions.ts';

/** Staged rows from which a build fills its search index in a worker thread (fewer: in the connection). */
export const WORKER_MIN_ROWS = 50_000;

/** How long a worker thread may take to start before the build fills the index itself (ms). */
const WORKER_START_TIMEOUT_MS = 20_000;

/**
 * The tables in which FTS5 keeps a contentless index (`content=''`): the segments, their term
 * index, each row's column sizes, and the settings. Copying them copies the index.
 */
const FTS_SHADOW_TABLES = ['data', 'idx', 'docsize', 'config'] as const;

/**
 * Fills `<fts>_next` of `resource` in the connection from the new mirror `<mirror>_next`, whose
 * rowids are already the default order.
 */
function fillFromMirror(db: Database.Database, resource: Resource): void {
  const { mirror, fts } = SOURCES[resource];
  withoutAutomerge(db, `${fts}_next`, () => db.exec(fillSql(resource, `${fts}_next`, 'x.rowid', `${mirror} x`, CONNECTION_INPUTS)));
}

/**
 * Rows the thread indexes a statement at the build, each statement its own transaction and so
 * its own read of the cache (searchIndex.thread.ts). Each also ends an FTS5 segment, which
 * 'optimize' merges.
 */
export const FILL_CHUNK_ROWS = 100_000;

/** The table of the thread's positions in its build file. */
export const THREAD_POSITIONS_TABLE = 'thread_positions';

/** A read whose pages the thread indexes as they are staged: where each row of a page belongs. */
export interface StagedRead {
  /** Rows a page (the last may have fewer): row i of page p is the service's row p × pageSize + i. */
  pageSize: number;
  /** Pages of the read. */
  pages: number;
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
  /** Rows the worker indexes a statement at the build ({@link FILL_CHUNK_ROWS}). */
  fillChunkRows: number;
  /** The read whose pages it indexes as they are staged ({@link SearchIndexMessage}), or null. */
  staged: StagedRead | null;
  /** Int32 slots ({@link SLOT}) through which the worker and the blocked build tell each other how far they are. */
  state: SharedArrayBuffer;
}

/**
 * What the worker is told: a page of the read was staged (`firstRowid` the staging rowid of its
 * first row, null when it has none), or 'build': every page is staged, start the build's part.
 */
export type SearchIndexMessage = { page: number; firstRowid: number | null; rows: number } | 'build';

/**
 * The Int32 slots of {@link SearchIndexWorkerData.state}: `outcome` ({@link OUTCOME}), `started`
 * 1 once the worker's code runs, `written` 1 once its build file is committed, `staged` 1 when
 * the index it filled while pages were staged was kept; set by the build: `building` 1 once the
 * build has begun (before its message arrives), `stop` 1 when the build no longer needs the
 * thread's checkpoints.
 */
export const SLOT = { outcome: 0, started: 1, written: 2, staged: 3, building: 4, stop: 5 } as const;
/** The values of the outcome slot. */
export const OUTCOME = { running: 0, done: 1, failed: 2 } as const;

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
  /**
   * Where the index was filled (known once {@link finish} has returned): by the thread while the
   * pages were staged, by the thread at the build, or in the connection.
   */
  builtIn(): 'staging' | 'worker' | 'connection';
  /** Stops the worker if it still runs, detaches and deletes its files. */
  dispose(): void;
}

/**
 * A read's search index thread, indexing the pages as they are staged ({@link indexWhileStaging});
 * a build takes it over ({@link startSearchIndex}).
 */
export interface StagingSearchIndex {
  /**
   * Tells the thread that page `page` of the read is committed: `rows` rows staged under
   * consecutive rowids from `firstRowid` (null for an empty page). Never throws.
   */
  pageWritten(page: number, firstRowid: number | null, rows: number): void;
  /** Stops the thread and deletes its files (a read that does not end in a build). */
  dispose(): void;
}

/** A search index worker thread and the shared state through which it says how far it is. */
class IndexThread implements StagingSearchIndex {
  readonly scratchFile: string;
  readonly buildFile: string;
  readonly #worker: Worker;
  readonly #flags: Int32Array;
  readonly #since = performance.now();
  #givenUp = false;

  /** @throws when the worker cannot be created */
  constructor(db: Database.Database, resource: Resource, fillChunkRows: number, staged: StagedRead | null) {
    this.scratchFile = scratchFileOf(db.name, resource);
    this.buildFile = buildFileOf(db.name, resource);
    removeScratch(this.scratchFile);
    removeScratch(this.buildFile);
    const state = new SharedArrayBuffer(4 * Object.keys(SLOT).length);
    this.#flags = new Int32Array(state);
    const workerData: SearchIndexWorkerData = { cacheFile: db.name, scratchFile: this.scratchFile, buildFile: this.buildFile, resource, fillChunkRows, staged, state };
    this.#worker = new Worker(entryUrl('searchIndexWorker'), { workerData });
    // A failure is said through `state`; the thread's own error event could not reach a blocked build.
    this.#worker.on('error', () => {});
  }

  pageWritten(page: number, firstRowid: number | null, rows: number): void {
    if (Atomics.load(this.#flags, SLOT.building) === 0) this.#post({ page, firstRowid, rows });
  }

  /** Starts the build's part: every page is staged. */
  build(): void {
    Atomics.store(this.#flags, SLOT.building, 1);
    this.#post('build');
  }

  #post(message: SearchIndexMessage): void {
    try {
      this.#worker.postMessage(message);
    } catch {
      // A thread that has ended says so through its outcome slot.
    }
  }

  /** Whether the index the thread filled while the pages were staged was kept. */
  keptStaged(): boolean {
    return Atomics.load(this.#flags, SLOT.staged) === 1;
  }

  /**
   * Blocks until `slot` holds `value` or the worker has ended; gives the worker up (and stops it)
   * if its code has not started after a while (its script missing). The build cannot yield to the
   * event loop, so the worker says how far it is through shared memory.
   * @returns whether `slot` holds `value`
   */
  waitFor(slot: number, value: number): boolean {
    const flags = this.#flags;
    while (!this.#givenUp && Atomics.load(flags, slot) !== value && Atomics.load(flags, SLOT.outcome) === OUTCOME.running) {
      Atomics.wait(flags, slot, Atomics.load(flags, slot), 500);
      if (Atomics.load(flags, SLOT.started) === 0 && performance.now() - this.#since > WORKER_START_TIMEOUT_MS) {
        this.#givenUp = true;
        void this.#worker.terminate();
      }
    }
    return Atomics.load(flags, slot) === value;
  }

  dispose(): void {
    // A thread that has said how it ended has closed its files, and ends by itself once told to
    // stop checkpointing; one that still runs is stopped.
    Atomics.store(this.#flags, SLOT.stop, 1);
    Atomics.notify(this.#flags, SLOT.stop);
    if (Atomics.load(this.#flags, SLOT.outcome) === OUTCOME.running) void this.#worker.terminate();
    removeScratch(this.scratchFile);
    removeScratch(this.buildFile);
  }
}

/**
 * Starts a thread that indexes `resource`'s pages as a read stages them, when the read has at
 * least `workerMinRows` rows and the cache is a file: each page's rows under their places in the
 * service's order (row i of page p at p × pageSize + i + 1). The build keeps that index when
 * those places are the default order (the service lists in it) and nothing was staged twice.
 * @param db the sync connection, its staging empty
 * @param read the pages of the read ({@link StagedRead}); `count` its rows
 * @returns the thread, or null (none needed, or it could not start: the build then starts one)
 */
export function indexWhileStaging(db: Database.Database, resource: Resource, read: StagedRead & { count: number }, workerMinRows = WORKER_MIN_ROWS): StagingSearchIndex | null {
  if (read.count < workerMinRows || db.memory) return null;
  try {
    return new IndexThread(db, resource, FILL_CHUNK_ROWS, { pageSize: read.pageSize, pages: read.pages });
  } catch {
    return null;
  }
}

/**
 * Starts filling `resource`'s search index for the build: in the thread `staged` that indexed the
 * pages as they were staged, or in a new worker thread when there are at least `workerMinRows`
 * staged rows and the cache is a file, else (at {@link SearchIndexBuild.finish}) in the
 * connection.
 * @param db the sync connection, outside a transaction, with the staging committed
 * @param fillChunkRows rows a new worker indexes a statement ({@link FILL_CHUNK_ROWS})
 * @param staged the read's thread ({@link indexWhileStaging}), now the build's to dispose of
 */
export function startSearchIndex(db: Database.Database, resource: Resource, workerMinRows = WORKER_MIN_ROWS, fillChunkRows = FILL_CHUNK_ROWS, staged?: StagingSearchIndex | null): SearchIndexBuild {
  const { stage, threadPositions } = BUILD_SOURCES[resource];
  const { fts } = SOURCES[resource];
  const inConnection: SearchIndexBuild = {
    threadPositions: [],
    threadFile: () => null,
    finish: () => fillFromMirror(db, resource),
    builtIn: () => 'connection',
    dispose: () => {},
  };
  let thread: IndexThread;
  if (staged instanceof IndexThread && !db.inTransaction) thread = staged;
  else {
    staged?.dispose();
    const rows = (db.prepare(`SELECT count(*) AS n FROM main.${stage}`).get() as { n: number }).n;
    if (rows < workerMinRows || db.memory || db.inTransaction) return inConnection;
    try {
      thread = new IndexThread(db, resource, fillChunkRows, null);
    } catch {
      return inConnection;
    }
  }
  thread.build();
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
    threadFile: () => (thread.waitFor(SLOT.written, 1) ? attach(thread.buildFile, 'search_build') : null),
    finish() {
      if (!thread.waitFor(SLOT.outcome, OUTCOME.done)) {
        removeScratch(thread.scratchFile);
        fellBack = true;
        fillFromMirror(db, resource);
        return;
      }
      attach(thread.scratchFile, 'search_scratch');
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
    builtIn: () => (fellBack ? 'connection' : thread.keptStaged() ? 'staging' : 'worker'),
    dispose() {
      for (const alias of attached.splice(0)) db.exec(`DETACH DATABASE ${alias}`);
      thread.dispose();
    },
  };
}
