/**
 * Opening a cache file (DESIGN.md "Cache"): pragmas, migrations, damaged-file detection.
 */
import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { logger } from '../log.ts';
import { assertNotTooNew, migrate } from './migrations/index.ts';

/** Options of {@link openCache}. */
export interface OpenCacheOptions {
  /** Open without creating or migrating (a reader next to a writer). Default false. */
  readonly?: boolean;
  /** Skip the quick_check on open (a second connection to a file just checked). Default false. */
  skipCheck?: boolean;
}

const DAMAGE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CANTOPEN_ISDIR']);

function applyPragmas(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = OFF');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536'); // 64 MiB page cache
  db.pragma('temp_store = MEMORY');
  db.pragma('mmap_size = 268435456');
}

/**
 * Opens (creating if needed) the cache at `file`, sets WAL + synchronous=NORMAL, and migrates.
 * @param file absolute path of the SQLite file
 * @returns an open better-sqlite3 connection at the latest schema
 * @throws LetterdeskError CACHE_TOO_NEW (file written by a newer app; left untouched),
 *   CACHE_DAMAGED (file unreadable; moved aside to `<file>.damaged-<time>`, never deleted; a fresh
 *   empty cache is NOT created so the caller decides), DISK_FULL
 */
export function openCache(file: string, options: OpenCacheOptions = {}): Database.Database {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: options.readonly === true });
    db.pragma('busy_timeout = 5000');
    if (!options.skipCheck) {
      const check = db.pragma('quick_check(1)', { simple: true });
      if (check !== 'ok') throw Object.assign(new Error(`quick_check: ${String(check)}`), { code: 'SQLITE_CORRUPT' });
    }
    // Refuse a newer file before anything (even journal_mode) writes to it.
    assertNotTooNew(db);
    if (!options.readonly) {
      applyPragmas(db);
      migrate(db);
    }
    return db;
  } catch (error) {
    db?.close();
    if (isLetterdeskError(error)) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_FULL') throw new LetterdeskError('DISK_FULL', 'The disk is full: the cache could not be opened. Free some space and try again.');
    if (DAMAGE_CODES.has(code) && existsSync(file)) throw moveAside(file, error);
    throw error;
  }
}

function moveAside(file: string, cause: unknown): LetterdeskError {
  const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(file, aside);
    for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  } catch (renameError) {
    logger.error('cache: could not move a damaged cache aside', renameError);
    return new LetterdeskError('CACHE_DAMAGED', `The cache file ${file} is damaged and could not be moved aside. Close other programs using it, then clear the cache.`, { cause });
  }
  logger.warn(`cache: damaged cache moved to ${aside}`);
  return new LetterdeskError(
    'CACHE_DAMAGED',
    `The cache file was damaged; it was moved to ${aside} (nothing was deleted). Sync again to rebuild the cache.`,
    { cause, details: { movedTo: aside } },
  );
}
