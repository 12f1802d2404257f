/**
 * Running a CSV export (issue 7): the rows of a view (or everything) streamed from the SQLite cache
 * into a file, with constant memory, progress and cancel, and atomically:
 *
 *  1. the target path is checked (absolute, its folder exists, it is not a folder);
 *  2. rows are read with one prepared statement (`iterate()` + `raw()`, one row in memory at a
 *     time) on a separate read-only connection inside one read transaction, so the count and the
 *     rows come from the same snapshot even while a sync publishes, and the caller's connection
 *     stays free for other queries while the export yields to the event loop;
 *  3. CSV text is written to a temporary file in the target folder
 *     (`.<name>.<pid>-<random>.letterdesk-tmp`), fsynced, closed, then renamed over the target;
 *  4. on any failure or cancel the temporary file is removed and nothing appears (or changes)
 *     under the chosen name. A process killed mid-way can leave only the temporary file; the next
 *     export into the same folder removes such leftovers whose process is gone.
 */
import Database from 'better-sqlite3';
import { closeSync, fchmodSync, fsyncSync, openSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { exportRequestSchema, type ExportKind, type ExportRequest } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { describeIssues } from '../../../shared/zodIssues.ts';
import { processAlive } from '../lockFiles.ts';
import { contactViewSql, orderViewSql, type ViewSql } from '../cache/views.ts';
import { logger } from '../log.ts';
import { cacheFileSet, profilesFilePath, syncLockPath } from '../paths.ts';
import { resolveColumns, type ExportColumnDef } from './columns.ts';
import { CsvFileWriter, type CsvValue } from './csv.ts';

/** Progress of a running export. */
export interface ExportRunProgress {
  rowsDone: number;
  rowsTotal: number;
}

/** Options of {@link runExport}. */
export interface RunExportOptions {
  /** Called at most every {@link PROGRESS_INTERVAL_MS} while rows are written, and once at the end. */
  onProgress?(progress: ExportRunProgress): void;
  /** Aborting cancels the export: it rejects with `CANCELLED` and leaves no file. */
  signal?: AbortSignal;
}

/** What a finished export reports. */
export interface ExportOutcome {
  /** Data rows written (the header row not counted). */
  rows: number;
}

/** Minimum time between two progress reports (ms). */
export const PROGRESS_INTERVAL_MS = 100;
/** Rows between two checks of the clock (cancel, progress, yielding to the event loop). */
const ROWS_PER_CHECK = 2048;
/** Longest stretch of work before the export lets the event loop run (cancel messages, IPC). */
const YIELD_EVERY_MS = 40;
/** Suffix of temporary files; {@link removeStaleTempFiles} looks for it. */
export const TEMP_SUFFIX = '.letterdesk-tmp';

/**
 * A file name for an export: `letterdesk-<profile>-<kind>-<YYYY-MM-DD>.csv` (local date). The
 * profile name keeps only letters and digits (any script), other runs become `-`, so a name like
 * `../../etc` or `C:\x` cannot steer the path; at most 40 characters of it are used.
 * @param profileName the profile's display name
 * @param kind contacts | orders | recipients
 * @param date the day to put in the name (local calendar date)
 */
export function defaultExportFileName(profileName: string, kind: ExportKind, date: Date): string {
  const slug =
    profileName
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/g, '') || 'profile';
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
  return `letterdesk-${slug}-${kind}-${day}.csv`;
}

/**
 * Checks an export target and returns it normalised.
 * @param path where the CSV should go
 * @returns the absolute, normalised path
 * @param protectedFiles files an export must never replace (Letterdesk's own: the cache and what
 *   belongs to it, the profiles file)
 * @throws LetterdeskError VALIDATION when the path is not absolute, its folder does not exist or is
 *   not a folder, the path names a folder (also one that does not exist yet: "reports/"), or it is
 *   one of `protectedFiles`
 */
export function validateExportPath(path: string, protectedFiles: readonly string[] = []): string {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
    throw new LetterdeskError('VALIDATION', 'Choose a file to export to.');
  }
  if (!isAbsolute(path)) throw new LetterdeskError('VALIDATION', `The export path "${path}" is not absolute; give the full path of the file.`);
  if (/[\\/]$/.test(path) && path.length > 1) throw new LetterdeskError('VALIDATION', `"${path}" names a folder; give a file name inside it.`);
  const target = resolve(path);
  const folder = dirname(target);
  let folderStat;
  try {
    folderStat = statSync(folder);
  } catch {
    throw new LetterdeskError('VALIDATION', `The folder "${folder}" does not exist; create it or choose another folder.`);
  }
  if (!folderStat.isDirectory()) throw new LetterdeskError('VALIDATION', `"${folder}" is not a folder; choose a file inside a folder.`);
  try {
    if (statSync(target).isDirectory()) throw new LetterdeskError('VALIDATION', `"${target}" is a folder; give a file name inside it.`);
  } catch (error) {
    if (isLetterdeskError(error)) throw error;
    // Does not exist yet: fine.
  }
  const same = sameFile(target);
  if (protectedFiles.some(same)) {
    throw new LetterdeskError('VALIDATION', `"${target}" is one of Letterdesk's own files (its cache or profiles); exporting there would destroy it. Choose another name or folder.`);
  }
  return target;
}

/** Whether a path names the same file as `target` (through symbolic links; case-insensitive where the OS usually is). */
function sameFile(target: string): (other: string) => boolean {
  const canonical = (p: string): string => {
    let folder = dirname(p);
    try {
      folder = realpathSync(folder);
    } catch {
      // a folder that does not exist holds no file to protect
    }
    const full = join(folder, basename(p));
    return process.platform === 'win32' || process.platform === 'darwin' ? full.toLowerCase() : full;
  };
  const mine = canonical(target);
  return (other) => canonical(resolve(other)) === mine;
}

/** A cache file of any profile, or one of its companions (`<profile id>.sqlite`, `-wal`, `-shm`, `-journal`, `.open`, `.sync-lock`). */
const CACHE_PART = /\.sqlite(?:-wal|-shm|-journal|\.open|\.sync-lock)?$/;

/**
 * Letterdesk's own files next to the cache `db` reads: the database, its journal, WAL, shared
 * memory, session marker and sync lock, the caches of the other profiles (and theirs) in the same
 * folder, and the profiles file of the data folder it sits in.
 */
function ownFilesOf(db: Database.Database): string[] {
  const file = db.name;
  if (!file || !isAbsolute(file)) return [];
  const folder = dirname(file);
  let others: string[] = [];
  try {
    others = readdirSync(folder).filter((name) => CACHE_PART.test(name)).map((name) => join(folder, name));
  } catch {
    // an unreadable folder: the export's own checks report it
  }
  return [...cacheFileSet(file), syncLockPath(file), ...others, profilesFilePath(dirname(folder))];
}

/** The SQL of an export, with its bound parameters and the resolved columns. */
export interface ExportSql {
  /** `SELECT <columns> FROM … WHERE … ORDER BY …` */
  select: string;
  /** `SELECT count(*) FROM … WHERE …` */
  count: string;
  params: Record<string, unknown>;
  columns: ExportColumnDef[];
}

/**
 * Builds the SQL of an export from the view SQL of the cache (electron/main/cache/views.ts), so the
 * rows are exactly those of the view in view order; recipients follow their order's view order,
 * then their position in the order.
 */
export function exportSql(request: ExportRequest): ExportSql {
  const columns = resolveColumns(request.kind, request.columns);
  const list = columns.map((c) => c.sql).join(', ');
  let view: ViewSql;
  let from: string;
  let orderBy: string;
  if (request.kind === 'contacts') {
    view = contactViewSql(request.query ?? {});
    from = view.from;
    orderBy = view.orderBy;
  } else {
    view = orderViewSql(request.query ?? {});
    from = request.kind === 'orders' ? view.from : `${view.from} JOIN order_recipients r ON r.order_id = o.id`;
    orderBy = request.kind === 'orders' ? view.orderBy : `${view.orderBy}, r.position`;
  }
  return {
    select: `SELECT ${list} FROM ${from} WHERE ${view.where} ORDER BY ${orderBy}`,
    count: `SELECT count(*) FROM ${from} WHERE ${view.where}`,
    params: view.params,
    columns,
  };
}


/**
 * Removes temporary files of earlier exports into `folder` whose process no longer runs (a crash or
 * SIGKILL mid-export). Best effort; never throws.
 */
export function removeStaleTempFiles(folder: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (!name.startsWith('.') || !name.endsWith(TEMP_SUFFIX)) continue;
      const m = /\.(\d+)-[0-9a-f]+\.letterdesk-tmp$/.exec(name);
      if (!m || processAlive(Number(m[1]))) continue;
      try {
        unlinkSync(join(folder, name));
      } catch {
        // someone else removed it
      }
    }
  } catch {
    // unreadable folder: the export itself will report the problem
  }
}

/** At most `bytes` bytes of `text` in UTF-8, cut between characters. */
function utf8Prefix(text: string, bytes: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    used += Buffer.byteLength(ch);
    if (used > bytes) break;
    out += ch;
  }
  return out;
}

function tempPathFor(target: string): string {
  // File names are limited in bytes (255 on most file systems): a name the person could create
  // must leave room for the temporary name's dot, process id, random part and suffix.
  return join(dirname(target), `.${utf8Prefix(basename(target), 100)}.${process.pid}-${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
}

/**
 * Gives the new file the permissions of the file it replaces (a CSV of contacts someone made
 * private stays private), instead of the defaults a new file gets. Nothing to do for a new name.
 */
function keepModeOf(target: string, fd: number): void {
  let mode: number;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    return;
  }
  try {
    fchmodSync(fd, mode);
  } catch {
    // a file system without permissions (FAT, some network shares): nothing to keep
  }
}

function fileError(error: unknown, target: string): unknown {
  if (isLetterdeskError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new LetterdeskError('DISK_FULL', `The disk is full: "${target}" could not be written. Free some space and export again.`);
  if (code === 'EBUSY' || (process.platform === 'win32' && code === 'EPERM')) {
    return new LetterdeskError('VALIDATION', `"${target}" could not be replaced: it is probably open in another program (Excel?). Close it and export again, or choose another name.`);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new LetterdeskError('VALIDATION', `Letterdesk may not write to "${dirname(target)}"; choose another folder.`);
  }
  if (code === 'ENAMETOOLONG') return new LetterdeskError('VALIDATION', `The file name "${basename(target)}" is too long; choose a shorter one.`);
  return error;
}

/** Opens a second, read-only connection to the same cache file (the caller's stays free). */
function openReader(db: Database.Database): { reader: Database.Database; own: boolean } {
  if (db.memory || !db.name || db.name === ':memory:') return { reader: db, own: false };
  const reader = new Database(db.name, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  // A streaming scan needs little cache; no mmap, so a 1M-row export does not map the whole file
  // into the process (mapped pages count as its memory).
  reader.pragma('cache_size = -8192');
  reader.pragma('mmap_size = 0');
  return { reader, own: true };
}

function cancelled(): LetterdeskError {
  return new LetterdeskError('CANCELLED', 'The export was cancelled; no file was written.');
}

/**
 * Runs one CSV export.
 *
 * Two call forms: `runExport(db, request, path, { onProgress, signal })`, and the database worker's
 * `runExport(db, request, path, onProgress, signal)` (electron/main/cache/worker.ts).
 *
 * @param db an open cache connection (better-sqlite3); the export reads through its own read-only
 *   connection to the same file, so `db` stays usable while the export runs
 * @param request what to export (validated here against `exportRequestSchema`: it may come from
 *   another thread): kind, view query (null = everything), columns (null = all), CSV options
 * @param path absolute path of the file to create or replace
 * @returns the number of data rows written, once the file is in place
 * @throws LetterdeskError VALIDATION (bad request, path or column), CANCELLED (signal aborted),
 *   DISK_FULL; in every failure case no file exists under `path` unless one was there before, and
 *   then it is unchanged
 */
export async function runExport(
  db: Database.Database,
  request: unknown,
  path: string,
  optionsOrProgress?: RunExportOptions | ((progress: ExportRunProgress) => void),
  signalArg?: AbortSignal,
): Promise<ExportOutcome> {
  const options: RunExportOptions =
    typeof optionsOrProgress === 'function' ? { onProgress: optionsOrProgress, ...(signalArg ? { signal: signalArg } : {}) } : (optionsOrProgress ?? {});
  const parsed = exportRequestSchema.safeParse(request);
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `Invalid export request: ${describeIssues(parsed.error)}.`);
  const req = parsed.data;
  const target = validateExportPath(path, ownFilesOf(db));
  const sql = exportSql(req);
  const signal = options.signal;
  if (signal?.aborted) throw cancelled();

  removeStaleTempFiles(dirname(target));
  const { reader, own } = openReader(db);
  const temp = tempPathFor(target);
  let fd: number | null = null;
  let inTransaction = false;
  const started = performance.now();
  try {
    reader.exec('BEGIN');
    inTransaction = true;
    const rowsTotal = Number(reader.prepare(sql.count).pluck().get(sql.params) ?? 0);
    const stmt = reader.prepare(sql.select).raw(true);

    fd = openSync(temp, 'wx', 0o666);
    keepModeOf(target, fd);
    const writer = new CsvFileWriter(fd, req.options);
    writer.writeRow(sql.columns.map((c) => c.header));

    let rowsDone = 0;
    let lastProgress = 0;
    let lastYield = performance.now();
    options.onProgress?.({ rowsDone: 0, rowsTotal });
    for (const row of stmt.iterate(sql.params) as IterableIterator<CsvValue[]>) {
      writer.writeRow(row);
      rowsDone++;
      if (rowsDone % ROWS_PER_CHECK === 0) {
        const now = performance.now();
        if (now - lastProgress >= PROGRESS_INTERVAL_MS) {
          lastProgress = now;
          options.onProgress?.({ rowsDone, rowsTotal: Math.max(rowsTotal, rowsDone) });
        }
        if (now - lastYield >= YIELD_EVERY_MS) {
          // Let cancel messages, IPC and signals in; the statement keeps its place.
          await new Promise<void>((r) => setImmediate(r));
          lastYield = performance.now();
        }
        if (signal?.aborted) throw cancelled();
      }
    }
    if (signal?.aborted) throw cancelled();
    writer.flush();
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    reader.exec('COMMIT');
    inTransaction = false;
    renameSync(temp, target);
    syncFolder(dirname(target));
    options.onProgress?.({ rowsDone, rowsTotal: rowsDone });
    logger.info(`export: ${req.kind} ${rowsDone} rows in ${Math.round(performance.now() - started)} ms (${writer.bytesWritten} bytes)`);
    return { rows: rowsDone };
  } catch (error) {
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    try {
      unlinkSync(temp);
    } catch {
      // never created
    }
    if (!isLetterdeskError(error)) logger.warn('export failed', error);
    throw fileError(error, target);
  } finally {
    if (inTransaction) {
      try {
        reader.exec('ROLLBACK');
      } catch {
        // nothing to roll back
      }
    }
    if (own) reader.close();
  }
}

/** Makes the rename durable (POSIX); a no-op where folders cannot be opened (Windows). */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  let fd: number | null = null;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
