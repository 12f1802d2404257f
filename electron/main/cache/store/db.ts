/**
 * Opening a cache file (DESIGN.md "Cache"): pragmas, migrations, damaged-file detection.
 *
 * Damage detection has two levels, so that opening a 1M-row cache stays instant (issue 8, cold
 * open ≤ 50 ms) while a file left behind by a crash is still checked in full (issue 9):
 *  - every open: a structural check that costs well under a millisecond — the 100-byte header
 *    (magic string, page size, and a file shorter than the page count it declares), the schema,
 *    and the root page of every table;
 *  - after an unclean shutdown only: `PRAGMA quick_check`, which reads the whole file (about 7 s
 *    for a 1M-contact cache). An unclean shutdown is recognised by the session marker
 *    `<file>.open` (the owner's process id), which the first connection that checks the file
 *    writes and its `close()` removes; a marker whose process is gone means the last session
 *    ended without closing the cache.
 */
import { processAlive } from '../../base/lockFiles.ts';
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { LetterdeskError, isLetterdeskError } from '../../../../shared/errors.ts';
import { SESSION_MARKER_SUFFIX, cacheFileSet } from '../../base/paths.ts';
import { registerLocaleKey } from './collation.ts';
import { attachHistoryOnOpen } from './history.ts';
import { SCHEMA_VERSION, assertNotTooNew, migrate } from './migrations/index.ts';

/**
 * Logs through base/log.ts, loaded on first use: the database worker imports this module, and loading
 * electron-log up front would add ~30 ms to every cache open (issue 8, cold open).
 */
function log(level: 'info' | 'warn' | 'error', ...args: unknown[]): void {
  void import('../../base/log.ts').then(({ logger }) => logger[level](...args));
}

/** Options of {@link openCache}. */
export interface OpenCacheOptions {
  /** Open without creating or migrating (a reader next to a writer). Default false. */
  readonly?: boolean;
  /**
   * Skip every check (a second connection to a file the first one just checked, e.g. the sync
   * worker's or the CLI's next to the database worker's). Default false.
   */
  skipCheck?: boolean;
}

/** Mode of a cache file and its companions: readable and writable by the user only. */
const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes the cache file `file` private before SQLite opens it for writing (Linux, macOS): creates
 * it empty with mode 0600 when missing (SQLite gives the WAL, shared-memory and journal files it
 * creates the database's mode), and narrows it, those files and the session marker to the user
 * when an older version left them readable by others. Best effort: a failure here leaves the
 * open to report any real problem.
 */
function makePrivate(file: string): void {
  if (process.platform === 'win32') return;
  createPrivateFile(file);
  for (const path of cacheFileSet(file)) {
    try {
      const mode = statSync(path).mode;
      if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
    } catch {
      // absent, or not ours to change
    }
  }
}

/**
 * Creates `file` empty with mode 0600 when it is missing (Linux, macOS), so that SQLite, which
 * opens an existing file as it is and gives its journal files the database's mode, keeps it and
 * them private. Does nothing when the file exists or cannot be created (the open that follows
 * reports a real problem).
 */
export function createPrivateFile(file: string): void {
  if (process.platform === 'win32') return;
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch {
    // it exists (or cannot be created: the open says why)
  }
}

/**
 * The CREATE statement of table `table` (virtual or not) in schema `schema` of `db`, naming the
 * table it creates `as` instead (optionally schema-qualified): a copy with the exact definition,
 * so that the migrations stay the one truth of every table.
 * @throws Error when the schema has no such table
 */
export function tableDefinitionAs(db: Database.Database, schema: string, table: string, as: string): string {
  const sql = db.prepare(`SELECT sql FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`).pluck().get(table) as string | undefined;
  if (!sql) throw new Error(`cache schema has no table ${table}`);
  return sql.replace(/^CREATE (VIRTUAL )?TABLE\s+("?)(\w+)\2/, (_m, virt: string | undefined) => `CREATE ${virt ?? ''}TABLE ${as}`);
}

/** The session marker of a cache file: present while a connection that checked it is open. */
export const sessionMarkerPath = (file: string): string => `${file}${SESSION_MARKER_SUFFIX}`;

const DAMAGE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CANTOPEN_ISDIR']);

/**
 * How a connection of the app reads: it waits up to 5 s for a writer, keeps a page cache of
 * `cacheMiB`, sorts in memory and reads the first 256 MiB of the file memory-mapped.
 */
function applyReadPragmas(db: Database.Database, cacheMiB: number): void {
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${cacheMiB * 1024}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('mmap_size = 268435456');
}

function applyPragmas(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = OFF');
  applyReadPragmas(db, 64);
  // A build writes the whole resource in one transaction (GBs of WAL at 1M contacts); once
  // checkpointed, the WAL file is cut back to this size instead of keeping its peak on disk.
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
}

/** Bytes the WAL file is truncated to after a checkpoint (`journal_size_limit`). */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * Helper threads SQLite may use for one statement's large sorts (`PRAGMA threads`): one per core
 * besides the calling thread, at most 4. The sync's build sorts every row once per sort column (the
 * sort positions) and once per index; nothing else needs those cores meanwhile (no pages are being
 * fetched), except a large build's search index thread, which takes one core
 * ({@link sorterThreadsBeside}).
 */
export const SORTER_THREADS = sorterThreadsBeside(0);

/**
 * The sorter helper threads for a connection while `busy` other threads of the process keep a
 * core each busy: one per remaining core besides the calling thread, at most 4, none on a machine
 * with no core to spare. Helpers on a core that is already busy only add the cost of splitting
 * and merging the sorts, and the memory of their own sorters.
 */
export function sorterThreadsBeside(busy: number): number {
  return Math.max(0, Math.min(4, availableParallelism() - 1 - busy));
}

/**
 * Settings of a connection that writes a whole resource (the sync's staging writes and build,
 * issue 8): bounded memory, fewer checkpoints, and the other cores for sorting ({@link SORTER_THREADS}).
 *  - No mmap (every file page the build touches would stay resident), 4 MiB page caches (the
 *    file's and the temporary tables'), and the build's sorts / temp b-trees in temporary files:
 *    peak RSS of a 100k-contact build 492 → 201 MiB at the same build time. The page cache also
 *    bounds each of the build's sorters (ten window sorts run at once for the sort positions):
 *    300k contacts build peak 426 → 294 MiB.
 *  - A checkpoint (copy WAL → file, then fsync) every 16,000 pages (~64 MiB) instead of SQLite's
 *    1,000: a 1,000-contact page writes ~3 MiB, so the default checkpointed after every page.
 *    Staging 100k contacts: 2.2–3.2 s → 1.8–2.0 s. Safety is unchanged (WAL, synchronous =
 *    NORMAL): a power cut can lose commits since the last checkpoint, never corrupt the file,
 *    and staged pages lost that way are fetched again by the resumed sync (`sync_pages` commits
 *    with its rows).
 * @param db a connection from {@link openCache}
 */
export function useBulkWriteSettings(db: Database.Database): void {
  db.pragma('mmap_size = 0');
  db.pragma('cache_size = -4096');
  // Temporary tables (the build's sort positions) have a page cache of their own, at SQLite's
  // default size unless set.
  db.pragma('temp.cache_size = -4096');
  db.pragma('temp_store = FILE');
  db.pragma('wal_autocheckpoint = 16000');
  db.pragma(`threads = ${SORTER_THREADS}`);
}

/**
 * Opens (creating if needed) the cache at `file`, sets WAL + synchronous=NORMAL, migrates, and
 * attaches its observed history (history.ts; created beside it unless `readonly`). On Linux and
 * macOS the file and its companions are private to the user (0600; see makePrivate).
 * @param file absolute path of the SQLite file
 * @returns an open better-sqlite3 connection at the latest schema
 * @throws LetterdeskError CACHE_TOO_NEW (file written by a newer app; left untouched),
 *   CACHE_DAMAGED (file unreadable; moved aside to `<file>.damaged-<time>`, never deleted; a fresh
 *   empty cache is NOT created so the caller decides), DISK_FULL
 */
export function openCache(file: string, options: OpenCacheOptions = {}): Database.Database {
  let db: Database.Database | null = null;
  try {
    if (!options.skipCheck) checkHeader(file);
    if (!options.readonly) makePrivate(file);
    db = new Database(file, { readonly: options.readonly === true });
    db.pragma('busy_timeout = 5000');
    registerLocaleKey(db);
    let ownsMarker = false;
    if (!options.skipCheck) {
      checkStructure(db);
      const session = options.readonly ? 'ours' : claimSession(file);
      if (session === 'unclean') {
        const started = performance.now();
        const check = db.pragma('quick_check(1)', { simple: true });
        log('info', `cache: quick_check after an unclean shutdown: ${String(check)} (${Math.round(performance.now() - started)} ms)`);
        if (check !== 'ok') throw Object.assign(new Error(`quick_check: ${String(check)}`), { code: 'SQLITE_CORRUPT' });
      }
      ownsMarker = session !== 'ours';
    }
    // Refuse a newer file before anything (even journal_mode) writes to it.
    assertNotTooNew(db);
    if (!options.readonly) {
      applyPragmas(db);
      migrate(db);
    }
    attachHistoryOnOpen(db, options.readonly === true);
    if (ownsMarker) {
      writeFileSync(sessionMarkerPath(file), String(process.pid), { mode: PRIVATE_FILE_MODE });
      releaseMarkerOnClose(db, file);
    }
    return db;
  } catch (error) {
    db?.close();
    if (isLetterdeskError(error)) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_FULL') throw new LetterdeskError('DISK_FULL', 'The disk is full: the cache could not be opened. Free some space and try again.');
    if (DAMAGE_CODES.has(code) && existsSync(file)) {
      rmSync(sessionMarkerPath(file), { force: true });
      throw moveAside(file, error);
    }
    throw error;
  }
}

/**
 * Opens `file` read-only for the first reads of a session, on the calling thread, while the
 * database worker is still starting (issue 8, cold open: a worker thread takes 40–60 ms to start
 * here, the cache's own open and first page ~7 ms at 1M). Only a file that needs nothing but reads
 * qualifies: it exists, its last session closed it cleanly (no session marker, so no
 * `quick_check` is due), it is at this app's schema version (no migration), and it passes the
 * every-open checks (header, schema, table roots).
 * @param file absolute path of the SQLite file
 * @returns a read-only connection with a small page cache, or null when the file does not
 *   qualify or anything fails — never throws, never moves, creates or changes a file: the worker's
 *   {@link openCache} then does the real open and reports any problem.
 */
export function openStartupReader(file: string): Database.Database | null {
  let db: Database.Database | null = null;
  try {
    if (existsSync(sessionMarkerPath(file)) || statSync(file).size === 0) return null;
    checkHeader(file);
    db = new Database(file, { readonly: true, fileMustExist: true });
    if ((db.pragma('user_version', { simple: true }) as number) !== SCHEMA_VERSION) {
      db.close();
      return null;
    }
    checkStructure(db);
    registerLocaleKey(db);
    db.pragma('cache_size = -8192'); // 8 MiB: a few pages are read before the worker takes over
    attachHistoryOnOpen(db, true);
    return db;
  } catch {
    db?.close();
    return null;
  }
}

/**
 * Opens the cache `file`, which {@link openCache} has opened and migrated, for a second connection
 * that writes the staging of a read (build/stageWriter.ts): no checks, no migration, no session
 * marker; the same durability as the sync's connection (WAL, synchronous = NORMAL) and its bulk
 * write settings ({@link useBulkWriteSettings}).
 * @throws what better-sqlite3 throws when the file cannot be opened
 */
export function openStagingWriter(file: string): Database.Database {
  const db = new Database(file, { fileMustExist: true });
  try {
    registerLocaleKey(db);
    applyPragmas(db);
    useBulkWriteSettings(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens `file` read-only for the scans (facet counts) of a second database worker, beside the one
 * that opened, checked and migrated it (worker/client.ts): no checks, no migration, no session marker,
 * nothing moved or written. Memory-mapped reads and sorts in memory, as the main connection; a
 * smaller page cache, since a scan reads each page once.
 * @throws what better-sqlite3 throws when the file cannot be opened
 */
export function openScanReader(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    registerLocaleKey(db);
    applyReadPragmas(db, 16);
    attachHistoryOnOpen(db, true);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Reads the 100-byte header of `file` (SQLite file format §1.3) and throws an error with code
 * SQLITE_NOTADB / SQLITE_CORRUPT for a file that is not a database or is shorter than the page
 * count its header declares (a truncated copy). A missing or empty file passes (it is created).
 * The size test is skipped while a non-empty `-wal` exists: the header is then only as new as the
 * last checkpoint, and the WAL may legitimately hold the pages beyond the end of the file.
 */
function checkHeader(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return;
  }
  if (size === 0) return;
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (read < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) {
    throw Object.assign(new Error('not a SQLite database (header)'), { code: 'SQLITE_NOTADB' });
  }
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw Object.assign(new Error(`invalid page size ${rawPageSize} in the header`), { code: 'SQLITE_CORRUPT' });
  }
  const pageCount = header.readUInt32BE(28);
  const countValid = header.readUInt32BE(24) === header.readUInt32BE(92);
  const walSize = (() => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  })();
  if (countValid && walSize === 0 && size < pageCount * pageSize) {
    throw Object.assign(new Error(`truncated: ${size} bytes, the header declares ${pageCount} pages of ${pageSize}`), { code: 'SQLITE_CORRUPT' });
  }
}

/**
 * Parses the schema and reads the first row of every ordinary table (its root page and the
 * leftmost path below it): microseconds, and catches a damaged schema page or table root.
 * Throws the SQLite error (SQLITE_NOTADB / SQLITE_CORRUPT) it meets.
 */
function checkStructure(db: Database.Database): void {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'").pluck().all() as string[];
  for (const name of tables) db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}" LIMIT 1`).get();
}

/**
 * Looks at the session marker of `file`: 'clean' (none: the last session closed the cache),
 * 'ours' (a live process, this one included, has the cache open and owns the marker), or
 * 'unclean' (the marker's process is gone: it ended without closing the cache).
 */
function claimSession(file: string): 'clean' | 'ours' | 'unclean' {
  let text: string;
  try {
    text = readFileSync(sessionMarkerPath(file), 'utf8');
  } catch {
    return 'clean';
  }
  const pid = Number.parseInt(text, 10);
  return Number.isSafeInteger(pid) && pid > 0 && processAlive(pid) ? 'ours' : 'unclean';
}

/** Makes `db.close()` also remove the session marker this connection wrote. */
function releaseMarkerOnClose(db: Database.Database, file: string): void {
  const close = db.close.bind(db);
  db.close = () => {
    close();
    rmSync(sessionMarkerPath(file), { force: true });
    return db;
  };
}

function moveAside(file: string, cause: unknown): LetterdeskError {
  const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(file, aside);
    for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  } catch (renameError) {
    log('error', 'cache: could not move a damaged cache aside', renameError);
    return new LetterdeskError('CACHE_DAMAGED', `The cache file ${file} is damaged and could not be moved aside. Close other programs using it, then clear the cache.`, { cause });
  }
  log('warn', `cache: damaged cache moved to ${aside}`);
  return new LetterdeskError(
    'CACHE_DAMAGED',
    `The cache file was damaged; it was moved to ${aside} (nothing was deleted). Sync again to rebuild the cache.`,
    { cause, details: { movedTo: aside } },
  );
}
