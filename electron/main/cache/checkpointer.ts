/**
 * WAL checkpoints on a thread of their own while the sync connection stages pages (DESIGN.md
 * "Sync"). A checkpoint copies every page the WAL holds into the cache file, a system call a page
 * each way; run by the writing connection after its commits (`wal_autocheckpoint`), that copying
 * takes about a fifth of the fetch's staging time, on the one thread that also parses, validates
 * and writes the pages. Here a worker thread checkpoints (PASSIVE: it never waits for or blocks
 * the writer) on the core the fetch leaves idle, and the writer's own checkpoints are off until
 * {@link Checkpointer.stop}. Safety is SQLite's: a checkpointing connection syncs the WAL and the
 * file as the writer's would (synchronous = NORMAL).
 */
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** Milliseconds between two checkpoints of the worker (each copies what was committed since the last). */
export const CHECKPOINT_INTERVAL_MS = 100;

/** Frames (pages) in the WAL from which the worker has the writer start it again: the writer's own checkpoint size (db.ts). */
export const RESTART_FRAMES = 16_000;

/** What the worker is given (checkpointWorker.ts). */
export interface CheckpointWorkerData {
  /** The cache file, opened by the worker with a connection of its own. */
  cacheFile: string;
  intervalMs: number;
  /** Frames in the WAL from which the worker has the writer start it again ({@link RESTART_FRAMES}). */
  restartFrames: number;
  /** Int32 slot 0: set to 1 to stop the worker. */
  state: SharedArrayBuffer;
}

/** Checkpoints running on a worker thread for one connection; see {@link startCheckpointer}. */
export interface Checkpointer {
  /**
   * Gives the checkpoints back to the connection (its `wal_autocheckpoint` as before) and tells the
   * worker to stop after its current checkpoint. Idempotent; never throws.
   */
  stop(): void;
}

/** The worker's entry: `checkpointWorker.ts` from the sources, `checkpointWorker.js` in the build. */
function workerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../checkpointWorker.ts', import.meta.url) : new URL('./checkpointWorker.js', import.meta.url);
}

/**
 * Starts checkpointing `db`'s cache file on a worker thread every `intervalMs`, and turns the
 * connection's own checkpoints off meanwhile. When the worker cannot start or ends early, the
 * connection checkpoints itself again at once.
 * @param db the writing connection (WAL, a file; for an in-memory database nothing is started)
 */
export function startCheckpointer(db: Database.Database, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  if (db.memory) return { stop: () => {} };
  const own = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const state = new SharedArrayBuffer(4);
  let stopped = false;
  const giveBack = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      db.pragma(`wal_autocheckpoint = ${own}`);
    } catch {
      // The connection was closed meanwhile: nothing left to give back.
    }
  };
  let worker: Worker;
  try {
    worker = new Worker(workerUrl(), { workerData: { cacheFile: db.name, intervalMs, restartFrames: RESTART_FRAMES, state } satisfies CheckpointWorkerData });
  } catch {
    return { stop: () => {} };
  }
  db.pragma('wal_autocheckpoint = 0');
  // An error ends the worker: the writer checkpoints again, as before it started.
  worker.on('error', () => {});
  worker.on('exit', giveBack);
  worker.unref();
  return {
    stop() {
      giveBack();
      const flags = new Int32Array(state);
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
    },
  };
}

/**
 * The worker's loop: opens `data.cacheFile`, checkpoints it (PASSIVE, then RESTART when the WAL is
 * long) every `data.intervalMs` until told to stop, and closes it. Throws on any SQLite error (the thread then ends, and the
 * writer takes its checkpoints back).
 */
export function checkpointUntilStopped(data: CheckpointWorkerData): void {
  const flags = new Int32Array(data.state);
  const db = new Database(data.cacheFile, { fileMustExist: true });
  try {
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -256');
    db.pragma('busy_timeout = 5000');
    while (Atomics.load(flags, 0) === 0) {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      // A writer that commits every few milliseconds seldom finds every frame copied when it
      // begins, so it would never start the WAL again from its beginning: once the WAL is long,
      // a checkpoint that waits for the writer's current commit (RESTART, with little left to
      // copy) makes the next writer do so.
      if ((result?.log ?? 0) >= data.restartFrames) db.pragma('wal_checkpoint(RESTART)');
      Atomics.wait(flags, 0, 0, data.intervalMs);
    }
  } finally {
    db.close();
  }
}
