/**
 * The worker thread's side of searchIndexBuild.ts: computes part of a build into a file of its own
 * (the build file) and builds its search index into another, with the cache attached, on a
 * connection of its own (another core than the sync connection's).
 */
import Database from 'better-sqlite3';
import { registerLocaleKey } from './collation.ts';
import { createPrivateFile } from './db.ts';
import { OUTCOME, SLOT, fillInScratch, type SearchIndexWorkerData } from './searchIndexBuild.ts';

/** KiB of page cache for each database the thread's connection uses. */
const THREAD_CACHE_KIB = 2048;

/**
 * Turns the rollback journal and fsync off for `schemas` of `db`. Defensive mode (better-sqlite3's
 * default) silently keeps the journal, so it is lifted for the pragma; the mode stays once set.
 * @throws when a schema still keeps a journal afterwards
 */
export function withoutJournal(db: Database.Database, schemas: readonly string[]): void {
  db.unsafeMode(true);
  try {
    for (const schema of schemas) {
      const mode = db.pragma(`${schema}.journal_mode = OFF`, { simple: true });
      if (mode !== 'off') throw new Error(`${schema}: journal_mode stayed ${String(mode)}`);
      db.pragma(`${schema}.synchronous = OFF`);
    }
  } finally {
    db.unsafeMode(false);
  }
}

/**
 * Writes `data.resource`'s part of the build into `data.buildFile` (setting the written slot),
 * then builds its search index into `data.scratchFile`, and sets the outcome slot of `data.state`
 * (done or failed), waking the waiting build. Never throws.
 */
export function buildSearchIndexInWorker(data: SearchIndexWorkerData): void {
  const flags = new Int32Array(data.state);
  Atomics.store(flags, SLOT.started, 1);
  let outcome: number = OUTCOME.failed;
  let db: Database.Database | null = null;
  try {
    // Both files hold the cache's personal data: private like the cache's own files.
    createPrivateFile(data.scratchFile);
    createPrivateFile(data.buildFile);
    db = new Database(data.scratchFile);
    db.prepare('ATTACH DATABASE ? AS cache').run(data.cacheFile);
    db.prepare('ATTACH DATABASE ? AS build').run(data.buildFile);
    // Throwaway files: no journal to keep, no fsync; the sorts in temporary files.
    withoutJournal(db, ['main', 'build']);
    // Each file's pages are read or written mostly in order: small page caches (SQLite's default
    // here is 16 MiB each, and the sync process's memory is bounded).
    for (const schema of ['main', 'cache', 'build', 'temp']) db.pragma(`${schema}.cache_size = -${THREAD_CACHE_KIB}`);
    db.pragma('temp_store = FILE');
    db.pragma('busy_timeout = 5000');
    registerLocaleKey(db);
    fillInScratch(db, data.resource, () => {
      Atomics.store(flags, SLOT.written, 1);
      Atomics.notify(flags, SLOT.written);
    }, data.fillChunkRows);
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
    Atomics.notify(flags, SLOT.written);
  }
}
