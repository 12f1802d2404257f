/**
 * Writing an export, CSV or xlsx: the rows of a view (or everything) streamed from the SQLite cache into a
 * file, with constant memory, progress and cancel, and atomically:
 *
 *  1. the target path is checked (absolute, its folder exists, it is not a folder, it is none of
 *     Letterdesk's own files);
 *  2. the rows come from the cache (cache/read/exportRows.ts: one snapshot on a read-only connection,
 *     one row in memory at a time), so the count and the rows agree even while a sync publishes,
 *     and the caller's connection stays free for other queries while the export yields;
 *  3. CSV text or the xlsx workbook (xlsx.ts) is written to a temporary file in the target folder, which replaces the target only
 *     when complete (atomicFile.ts); on any failure or cancel nothing appears (or changes) under the
 *     chosen name.
 *
 * In the app this runs as the database worker's `exportFile` job ({@link exportFileJob}), whose
 * request the IPC contract validated; run.ts `runExport` validates a request from anywhere else.
 * Nothing here loads zod or the logger up front: the worker imports this module when it starts.
 */
import type Database from 'better-sqlite3';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { ExportRequest } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { openExportRows, type ExportRows } from '../cache/read/exportRows.ts';
import type { CacheJobs, ExportProgressValue } from '../cache/worker/methods.ts';
import { cacheFileSet, profilesFilePath, syncLockPath } from '../base/paths.ts';
import { createAtomicFile, fileError, removeStaleTempFiles, type AtomicFile } from '../base/atomicFile.ts';
import { workbookHeader } from '../cache/read/exportColumns.ts';
import { CsvFileWriter, type CsvValue } from './csv.ts';
import { XlsxFileWriter } from './xlsx.ts';

/** Logs through base/log.ts, loaded on first use (electron-log would add to the database worker's start). */
function log(level: 'info' | 'warn', ...args: unknown[]): void {
  void import('../base/log.ts').then(({ logger }) => logger[level](...args));
}

/** Progress of a running export. */
export type ExportRunProgress = ExportProgressValue;

/** Options of {@link writeExport} (and run.ts `runExport`). */
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
  /** An xlsx workbook's sheets, in order (more than one past Excel's rows a sheet); absent for CSV. */
  sheets?: string[];
}

/** The sheet name of an export that names none: what the rows are ("Contacts"). */
const KIND_SHEET: Record<ExportRequest['kind'], string> = { contacts: 'Contacts', orders: 'Orders', recipients: 'Recipients', templates: 'Templates', campaigns: 'Campaigns', duplicates: 'Duplicates' };

/** What {@link writeRows} writes into: a CSV or an xlsx writer. */
interface RowSink {
  writeRow(values: CsvValue[]): void;
  /** Set while the sink wants {@link drain} awaited before the next row (xlsx: chunks being compressed). */
  readonly backpressure?: boolean;
  drain?(): Promise<void>;
}

/** Minimum time between two progress reports (ms). */
export const PROGRESS_INTERVAL_MS = 100;
/** Rows between two checks of the clock (cancel, progress, yielding to the event loop). */
const ROWS_PER_CHECK = 2048;
/** Longest stretch of work before the export lets the event loop run (cancel messages, IPC). */
const YIELD_EVERY_MS = 40;

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

function cancelled(): LetterdeskError {
  return new LetterdeskError('CANCELLED', 'The export was cancelled; no file was written.');
}

/**
 * Writes one export, CSV or xlsx (`req.format`).
 * @param db an open cache connection; the rows are read through a read-only connection to the
 *   same file, so `db` stays usable while the export runs
 * @param req what to export, already valid (`exportRequestSchema`): kind, view query (null =
 *   everything), columns (null = all), CSV options
 * @param path absolute path of the file to create or replace
 * @returns the number of data rows written, once the file is in place
 * @throws LetterdeskError VALIDATION (path or column), CANCELLED (signal aborted), DISK_FULL; in
 *   every failure case no file exists under `path` unless one was there before, and then it is
 *   unchanged
 */
export async function writeExport(db: Database.Database, req: ExportRequest, path: string, options: RunExportOptions = {}): Promise<ExportOutcome> {
  const target = validateExportPath(path, ownFilesOf(db));
  const { signal } = options;
  if (signal?.aborted) throw cancelled();

  removeStaleTempFiles(dirname(target));
  const started = performance.now();
  let rows: ExportRows | null = null;
  let file: AtomicFile | null = null;
  let workbook: XlsxFileWriter | null = null;
  try {
    rows = openExportRows(db, req);
    file = createAtomicFile(target);
    let outcome: ExportOutcome;
    let bytes: number;
    if (req.format === 'xlsx') {
      const columns = rows.columns.map((c) => ({ header: workbookHeader(c), type: c.type }));
      const writer = new XlsxFileWriter(file.fd, columns, { sheetName: req.sheetName ?? KIND_SHEET[req.kind] });
      workbook = writer;
      const rowsDone = await writeRows(writer, rows, options);
      outcome = { rows: rowsDone, sheets: (await writer.finish()).sheets };
      bytes = writer.bytesWritten;
    } else {
      const writer = new CsvFileWriter(file.fd, req.options);
      writer.writeRow(rows.columns.map((c) => c.header));
      outcome = { rows: await writeRows(writer, rows, options) };
      writer.flush();
      bytes = writer.bytesWritten;
    }
    rows.close();
    file.commit();
    options.onProgress?.({ rowsDone: outcome.rows, rowsTotal: outcome.rows });
    log('info', `export: ${req.kind} ${req.format ?? 'csv'} ${outcome.rows} rows in ${Math.round(performance.now() - started)} ms (${bytes} bytes)`);
    return outcome;
  } catch (error) {
    // The compressor must stop writing before the descriptor is closed (and perhaps reused).
    workbook?.abort();
    file?.discard();
    if (!isLetterdeskError(error)) log('warn', 'export failed', error);
    throw fileError(error, target);
  } finally {
    rows?.close();
  }
}

/**
 * Writes every data row, reporting progress and letting the event loop run now and then.
 * @returns the number of data rows written
 * @throws LetterdeskError CANCELLED when the signal is aborted
 */
async function writeRows(writer: RowSink, rows: ExportRows, options: RunExportOptions): Promise<number> {
  const { signal, onProgress } = options;
  let rowsDone = 0;
  let lastProgress = 0;
  let lastYield = performance.now();
  onProgress?.({ rowsDone: 0, rowsTotal: rows.total });
  for (const row of rows.rows as IterableIterator<CsvValue[]>) {
    writer.writeRow(row);
    if (writer.backpressure) await writer.drain?.();
    rowsDone++;
    if (rowsDone % ROWS_PER_CHECK === 0) {
      const now = performance.now();
      if (now - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = now;
        onProgress?.({ rowsDone, rowsTotal: Math.max(rows.total, rowsDone) });
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
  return rowsDone;
}

/** The database worker's `exportFile` job: {@link writeExport} on the worker's connection. */
export const exportFileJob: CacheJobs['exportFile'] = (db, { request, path }, { signal, onProgress }) => writeExport(db, request, path, { signal, onProgress });
