/**
 * The worker thread's side of sortPositions.ts: computes `build_positions` into a file of its own
 * with the cache attached, on a connection of its own (another core than the sync connection's).
 */
import Database from 'better-sqlite3';
import { registerLocaleKey } from './collation.ts';
import { OUTCOME, SLOT, writePositions, type PositionsWorkerData } from './sortPositions.ts';

/**
 * Writes the positions of `data.resource` into `data.scratchFile` and sets the outcome slot of
 * `data.state` (done or failed), waking the waiting build. Never throws.
 */
export function computePositionsInWorker(data: PositionsWorkerData): void {
  const flags = new Int32Array(data.state);
  Atomics.store(flags, SLOT.started, 1);
  let outcome: number = OUTCOME.failed;
  let db: Database.Database | null = null;
  try {
    db = new Database(data.scratchFile);
    registerLocaleKey(db);
    // A throwaway file: no journal to keep, no fsync; sorts spill to temporary files.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('temp_store = FILE');
    db.pragma('busy_timeout = 5000');
    db.prepare('ATTACH DATABASE ? AS cache').run(data.cacheFile);
    writePositions(db, data.resource, 'cache', 'main');
    outcome = OUTCOME.done;
  } catch (error) {
    console.error('sort positions: computing them in a worker failed; the build computes them itself', error);
  } finally {
    try {
      db?.close();
    } catch {
      // The file is deleted by the build either way.
    }
    Atomics.store(flags, SLOT.outcome, outcome);
    Atomics.notify(flags, SLOT.outcome);
  }
}
