/**
 * The worker thread's side of searchIndexBuild.ts: builds a build's search index into a file of
 * its own with the cache attached, on a connection of its own (another core than the sync
 * connection's).
 */
import Database from 'better-sqlite3';
import { OUTCOME, SLOT, fillInScratch, type SearchIndexWorkerData } from './searchIndexBuild.ts';

/**
 * Builds the search index of `data.resource` into `data.scratchFile` and sets the outcome slot of
 * `data.state` (done or failed), waking the waiting build. Never throws.
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
    db.prepare('ATTACH DATABASE ? AS cache').run(data.cacheFile);
    fillInScratch(db, data.resource);
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
    Atomics.notify(flags, SLOT.outcome);
  }
}
