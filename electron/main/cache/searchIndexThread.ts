/**
 * The worker thread's side of searchIndexBuild.ts: computes some of a build's sort positions into
 * a file of its own and builds its search index into another, with the cache attached, on a
 * connection of its own (another core than the sync connection's).
 */
import Database from 'better-sqlite3';
import { registerLocaleKey } from './collation.ts';
import { INPUTS, OUTCOME, SLOT, fillInScratch, type SearchIndexWorkerData } from './searchIndexBuild.ts';

/** How long the thread sleeps between looks at the inputs slot while it waits for the build (ms). */
const INPUTS_POLL_MS = 200;

/**
 * Computes the positions of `data.resource`'s `threadPositions` into `data.positionsFile` (setting
 * the positions slot), then builds its search index into `data.scratchFile` once the build has
 * committed its inputs, and sets the outcome slot of `data.state` (done or failed), waking the
 * waiting build. Never throws.
 */
export function buildSearchIndexInWorker(data: SearchIndexWorkerData): void {
  const flags = new Int32Array(data.state);
  Atomics.store(flags, SLOT.started, 1);
  let outcome: number = OUTCOME.failed;
  let db: Database.Database | null = null;
  try {
    db = new Database(data.scratchFile);
    // A throwaway file: no journal to keep, no fsync; the default order's table in a temporary file.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('temp_store = FILE');
    db.pragma('busy_timeout = 5000');
    registerLocaleKey(db);
    db.prepare('ATTACH DATABASE ? AS cache').run(data.cacheFile);
    db.prepare('ATTACH DATABASE ? AS positions').run(data.positionsFile);
    db.pragma('positions.journal_mode = OFF');
    db.pragma('positions.synchronous = OFF');
    fillInScratch(db, data.resource, {
      positionsWritten() {
        Atomics.store(flags, SLOT.positions, 1);
        Atomics.notify(flags, SLOT.positions);
      },
      inputsCommitted() {
        while (Atomics.load(flags, SLOT.inputs) === INPUTS.pending) Atomics.wait(flags, SLOT.inputs, INPUTS.pending, INPUTS_POLL_MS);
        return Atomics.load(flags, SLOT.inputs) === INPUTS.committed;
      },
    });
    outcome = OUTCOME.done;
  } catch (error) {
    console.error('search index: building it in a worker failed; the build fills it itself', error);
  } finally {
    try {
      db?.close();
    } catch {
      // The file is deleted by the build either way.
    }
    Atomics.store(flags, SLOT.outcome, outcome);
    // The build may be waiting on either slot.
    Atomics.notify(flags, SLOT.outcome);
    Atomics.notify(flags, SLOT.positions);
  }
}
