/**
 * The sort positions of a build (publish.ts): for every staged row its default-order position
 * (`rn`, the new mirror's rowid) and one position per sortable column (positions.ts), written to a
 * narrow table `build_positions (rn INTEGER PRIMARY KEY, srow, pos_…)` that the build then joins to
 * the staged rows. A large build computes them in a worker thread of its own (positionsWorker.ts),
 * on another core, while the sync connection builds the search index: the two are the largest
 * parts of a build and need nothing of each other. A small one computes them in the connection
 * itself, where a thread would cost more to start than it saves.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { dropLocaleRanks, withLocaleRanks } from './collation.ts';
import { CONTACT_DEFAULT_ORDER, CONTACT_POSITIONS, ORDER_DEFAULT_ORDER, ORDER_POSITIONS, TIE } from './positions.ts';

/** The staging table of each resource, and its positions. */
const SOURCES: Record<Resource, { stage: string; positions: Record<string, string>; defaultOrder: string }> = {
  contacts: { stage: 'stage_contacts', positions: CONTACT_POSITIONS, defaultOrder: CONTACT_DEFAULT_ORDER },
  orders: { stage: 'stage_orders', positions: ORDER_POSITIONS, defaultOrder: ORDER_DEFAULT_ORDER },
};

/** Staged rows from which a build computes its positions in a worker thread (fewer: in the connection). */
export const WORKER_MIN_ROWS = 50_000;

/** How long a worker thread may take to start before the build computes the positions itself (ms). */
const WORKER_START_TIMEOUT_MS = 20_000;

/**
 * Writes `build_positions` of `resource` into schema `target` of `db` from its staging table in
 * schema `source` (the same connection, or a worker's connection with the cache attached).
 * The window sorts run over the staged rows' keys only; text is ranked in locale order first
 * (collation.ts), one key per distinct value.
 * @param source schema of the staging table ('main', or the worker's name for the attached cache)
 * @param target schema of the table written ('temp', or the worker's own file)
 */
export function writePositions(db: Database.Database, resource: Resource, source: string, target: string): void {
  const { stage, positions, defaultOrder } = SOURCES[resource];
  const names = Object.keys(positions);
  const table = `${source}.${stage}`;
  // SQLite sizes each sorter by the page cache, and the window sorts run at once: a small cache
  // for this one statement keeps peak memory down at no cost in time (the sorts spill to files).
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -1024');
  try {
    const exprs = withLocaleRanks(db, table, names.map((k) => positions[k] as string));
    db.exec(`DROP TABLE IF EXISTS ${target}.build_positions`);
    db.exec(`CREATE TABLE ${target}.build_positions (rn INTEGER PRIMARY KEY, srow INTEGER NOT NULL, ${names.map((n) => `${n} INTEGER`).join(', ')})`);
    db.exec(`INSERT INTO ${target}.build_positions (rn, srow, ${names.join(', ')})
      SELECT row_number() OVER (ORDER BY ${defaultOrder}), rowid, ${exprs.map((e) => `row_number() OVER (ORDER BY ${e}, ${TIE}) - 1`).join(', ')} FROM ${table}`);
  } finally {
    dropLocaleRanks(db);
    db.pragma(`cache_size = ${cacheSize}`);
  }
}

/**
 * Writes `temp.build_order (rn INTEGER PRIMARY KEY, srow)`: the default order alone, what the
 * search index needs (its rowids are the mirror's) while the other positions are still computed.
 */
function writeDefaultOrder(db: Database.Database, resource: Resource): void {
  const { stage, defaultOrder } = SOURCES[resource];
  db.exec('DROP TABLE IF EXISTS temp.build_order');
  db.exec('CREATE TEMP TABLE build_order (rn INTEGER PRIMARY KEY, srow INTEGER NOT NULL)');
  db.exec(`INSERT INTO temp.build_order (rn, srow) SELECT row_number() OVER (ORDER BY ${defaultOrder}), rowid FROM main.${stage}`);
}

/** What the worker thread is given (positionsWorker.ts). */
export interface PositionsWorkerData {
  /** The cache file: the worker attaches it and reads its staging table, nothing else. */
  cacheFile: string;
  /** The worker's own file, where it writes `build_positions`. */
  scratchFile: string;
  resource: Resource;
  /**
   * Two Int32 slots: [0] 0 while the worker runs, 1 once it has written the positions, 2 if it
   * failed; [1] 1 once the worker's code runs.
   */
  state: SharedArrayBuffer;
}

/** The Int32 slots of {@link PositionsWorkerData.state}. */
export const SLOT = { outcome: 0, started: 1 } as const;
/** The values of the outcome slot. */
export const OUTCOME = { running: 0, done: 1, failed: 2 } as const;

/** The worker thread's entry: `positionsWorker.ts` from the sources, `positionsWorker.js` in the build. */
function workerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../positionsWorker.ts', import.meta.url) : new URL('./positionsWorker.js', import.meta.url);
}

/** The positions of a build, being computed or ready. */
export interface PositionsBuild {
  /** The table of the default order (`rn`, `srow`), for what must be built before the positions are. */
  order(): string;
  /** Whether {@link table} answers at once (the positions were computed in the connection). */
  ready(): boolean;
  /**
   * Waits for the positions (blocking the thread: the build is synchronous) and returns the
   * table to join: `temp.build_positions`, or the worker's table in an attached file.
   * @throws what computing the positions in the connection throws, when the worker failed
   */
  table(): string;
  /** Where the positions were computed (known once {@link table} has returned). */
  computedIn(): 'worker' | 'connection';
  /** Detaches and deletes the worker's file, drops the temporary tables. */
  dispose(): void;
}

/** Where a build's worker writes its positions: beside the cache, so a full disk shows the same. */
export function scratchFileOf(cacheFile: string, resource: Resource): string {
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

/**
 * Starts computing the positions of `resource`'s staged rows: in a worker thread when there are
 * at least `workerMinRows` of them and the cache is a file, else in `db` right away.
 * @param db the sync connection, outside a transaction (the worker reads its committed staging)
 */
export function startPositions(db: Database.Database, resource: Resource, workerMinRows = WORKER_MIN_ROWS): PositionsBuild {
  const { stage } = SOURCES[resource];
  const rows = (db.prepare(`SELECT count(*) AS n FROM main.${stage}`).get() as { n: number }).n;
  if (rows < workerMinRows || db.memory || db.inTransaction) return inConnection(db, resource);
  const scratchFile = scratchFileOf(db.name, resource);
  removeScratch(scratchFile);
  const state = new SharedArrayBuffer(8);
  const flags = new Int32Array(state);
  let worker: Worker;
  try {
    worker = new Worker(workerUrl(), { workerData: { cacheFile: db.name, scratchFile, resource, state } satisfies PositionsWorkerData });
  } catch {
    return inConnection(db, resource);
  }
  // A failure is said through `state`; the thread's own error event could not reach a blocked build.
  worker.on('error', () => {});
  let result: string | null = null;
  let fallback: PositionsBuild | null = null;
  let ordered = false;
  return {
    ready: () => false,
    order() {
      if (!ordered) writeDefaultOrder(db, resource);
      ordered = true;
      return 'temp.build_order';
    },
    table() {
      if (fallback) return fallback.table();
      if (result) return result;
      // The worker says when it is done through shared memory: the build cannot yield to the
      // event loop. A worker that has not started after a while (its script missing) is given up.
      const since = performance.now();
      while (Atomics.load(flags, SLOT.outcome) === OUTCOME.running) {
        Atomics.wait(flags, SLOT.outcome, OUTCOME.running, 500);
        if (Atomics.load(flags, SLOT.started) === 0 && performance.now() - since > WORKER_START_TIMEOUT_MS) break;
      }
      const done = Atomics.load(flags, SLOT.outcome) === OUTCOME.done;
      void worker.terminate();
      if (!done) {
        removeScratch(scratchFile);
        fallback = inConnection(db, resource);
        return fallback.table();
      }
      db.prepare('ATTACH DATABASE ? AS build_scratch').run(scratchFile);
      result = 'build_scratch.build_positions';
      return result;
    },
    computedIn: () => (fallback ? 'connection' : 'worker'),
    dispose() {
      fallback?.dispose();
      void worker.terminate();
      if (result) db.exec('DETACH DATABASE build_scratch');
      result = null;
      removeScratch(scratchFile);
      db.exec('DROP TABLE IF EXISTS temp.build_order');
    },
  };
}

function inConnection(db: Database.Database, resource: Resource): PositionsBuild {
  writePositions(db, resource, 'main', 'temp');
  return {
    ready: () => true,
    order: () => 'temp.build_positions',
    table: () => 'temp.build_positions',
    computedIn: () => 'connection',
    dispose: () => db.exec('DROP TABLE IF EXISTS temp.build_positions'),
  };
}
