/**
 * The async main-side client of the database worker. The Electron main thread and the handlers
 * talk to the cache only through this, so no query ever blocks the main event loop for longer than
 * a page read. Its read methods are derived from the worker's method table (methods.ts
 * `CACHE_METHODS`, protocol.ts `methodClientBase`); its jobs (an export, the records of a view)
 * report progress and can be cancelled.
 *
 * A worker thread takes tens of milliseconds to start, so while it does, page-sized reads of a
 * cleanly closed, current cache are answered on the calling thread by a read-only startup reader
 * (store/db.ts `openStartupReader`); everything else waits for the worker.
 *
 * Facet counts (methods.ts `SCAN_METHODS`) scan a whole view: they are answered by a second
 * worker, started on their first call, with its own connection to the same file, so the queries
 * asked while they run are answered at once. Each connection reads the last committed snapshot.
 * One scan runs at a time; a scan asked while another of the same method still waits replaces it
 * (the one replaced is answered CANCELLED): only the counts of the latest result are worth a scan.
 * The scans' worker closes when no scan has been asked for a while, and starts again on the next.
 */
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { ExportRequest } from '../../../../shared/contract.ts';
import { LetterdeskError, fromErrorPayload } from '../../../../shared/errors.ts';
import type { ContactQuery, OrderQuery } from '../../../../shared/query.ts';
import { entryUrl } from '../../entries.ts';
import { openStartupReader } from '../store/db.ts';
import { CACHE_METHODS, SCAN_METHODS, STARTUP_READ_METHODS, type CacheJobs, type CacheMethodName, type CacheMethods, type ExportProgressValue, type RecordsArgs } from './methods.ts';
import { methodClientBase, type HostRequest, type HostResponse, type HostWorkerData, type JobArgs, type JobOptions, type JobProgress, type JobResult, type MethodArgs, type MethodResult } from './protocol.ts';

export type { ExportProgressValue } from './methods.ts';

/** How long the scans' worker stays open after its last scan (ms): then its memory is given back. */
export const SCAN_WORKER_IDLE_MS = 60_000;

/** How long a worker whose connection closed cleanly gets to end by itself before it is stopped (ms). */
const WORKER_EXIT_WAIT_MS = 2_000;

/**
 * Waits for a worker that has closed its connection and its port to end by itself: its event loop
 * is then empty and the thread exits, releasing its SQLite objects in order, where `terminate()`
 * would stop it from outside at whatever point its exit had reached. A worker still running after
 * `ms` (something kept its event loop alive) is terminated.
 */
async function endWorker(worker: Worker, ms: number): Promise<void> {
  if (worker.threadId === -1) return;
  const exited = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!exited) await worker.terminate();
}

/** Where the worker entry is (entries.ts): `electron/main/dbWorker.ts` from the sources, `dbWorker.js` in the build. */
export function defaultWorkerUrl(): URL {
  return entryUrl('dbWorker');
}

type Request = HostRequest<CacheMethods, CacheJobs>;
type Response = HostResponse<CacheMethods, CacheJobs>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (value: unknown) => void;
}

/**
 * Async access to one cache file through its own worker thread: one method per entry of
 * `CACHE_METHODS` (`queryContacts(query, window)`, `countContacts(query)`, `contactFacets(query)`,
 * `getContact(id)`, the same for orders, `resourceStates()`, `syncHistory(limit)`), the jobs
 * ({@link CacheClient.exportFile}, {@link CacheClient.records}, or any job by {@link CacheClient.runJob}),
 * and {@link CacheClient.close}.
 */
export class CacheClient extends methodClientBase(CACHE_METHODS) {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** The startup reader, until the worker is ready (or null from the start). */
  private reader: Database.Database | null = null;
  /** Why the worker could not open the file, when that was found after a startup reader answered. */
  private failure: Error | null = null;
  /** Settles (never rejects) when the worker has answered its open, ready or failed. */
  readonly started: Promise<void>;
  private markStarted: () => void = () => {};
  /** How to open the worker of the scans: the file and the worker script; null: this client is that worker's. */
  private readonly scanOpen: { file: string; workerUrl: URL | undefined } | null;
  /** The client of the scans' worker, once asked for; it resolves to null when it could not start (the scans then run here). */
  private scanner: Promise<CacheClient | null> | null = null;
  /** Scans asked while another runs, at most one per method, in the order asked. */
  private readonly scansWaiting = new Map<CacheMethodName, { run: () => Promise<unknown>; resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private scanRunning = false;
  /** How long the scans' worker stays open after its last scan (ms). */
  private readonly scanIdleMs: number;
  private scanIdleTimer: ReturnType<typeof setTimeout> | null = null;

  private constructor(worker: Worker, scanOpen: { file: string; workerUrl: URL | undefined } | null, scanIdleMs: number) {
    super();
    this.worker = worker;
    this.scanOpen = scanOpen;
    this.scanIdleMs = scanIdleMs;
    this.started = new Promise((resolve) => {
      this.markStarted = resolve;
    });
  }

  /**
   * Spawns the worker and opens (creating and migrating if needed) the cache file in it. When the
   * file qualifies for a startup reader, resolves at once and answers page reads on the calling
   * thread until the worker is ready; an error of the worker's open then fails every later call
   * (and {@link CacheClient.failed}) instead of the returned promise.
   * @param file absolute path of the SQLite file
   * @param options.workerUrl override of the worker script location
   * @param options.startupReader false: never read on the calling thread (default true)
   * @param options.onLateFailure called with the error when the worker's open fails after the
   *   promise resolved early
   * @param options.role 'scans': this is the scans' worker of another client (a read-only
   *   connection of a file that client opened; no scans' worker of its own)
   * @param options.scanIdleMs how long the scans' worker stays open after its last scan, in ms
   *   (default {@link SCAN_WORKER_IDLE_MS}); the next scan starts it again
   * @throws LetterdeskError CACHE_TOO_NEW / CACHE_DAMAGED / DISK_FULL from the open
   */
  static open(file: string, options: { workerUrl?: URL; startupReader?: boolean; onLateFailure?: (error: Error) => void; role?: 'scans'; scanIdleMs?: number } = {}): Promise<CacheClient> {
    const scans = options.role === 'scans';
    const worker = new Worker(options.workerUrl ?? defaultWorkerUrl(), { workerData: { file, ...(scans ? { scans } : {}) } satisfies HostWorkerData });
    const client = new CacheClient(worker, scans ? null : { file, workerUrl: options.workerUrl }, options.scanIdleMs ?? SCAN_WORKER_IDLE_MS);
    client.reader = options.startupReader === false ? null : openStartupReader(file);
    const early = client.reader !== null;
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        client.markStarted();
        client.closeReader();
        if (!early) return reject(error);
        client.fail(error);
        options.onLateFailure?.(error);
      };
      const onFirst = (msg: Response) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (msg.type === 'ready') {
          client.markStarted();
          client.closeReader();
          worker.on('message', (m: Response) => client.onMessage(m));
          worker.on('error', (e) => client.failAll(e));
          worker.on('exit', () => client.failAll(new Error('the database worker stopped')));
          resolve(client);
        } else {
          void worker.terminate();
          fail(msg.type === 'result' && !msg.ok ? fromErrorPayload(msg.error) : new Error('unexpected first message from the database worker'));
        }
      };
      const onError = (e: Error) => {
        worker.off('exit', onExit);
        fail(new LetterdeskError('INTERNAL', `The database worker could not start: ${e.message}. Details are in the log file.`, { cause: e }));
      };
      const onExit = (code: number) => {
        worker.off('message', onFirst);
        worker.off('error', onError);
        fail(new LetterdeskError('INTERNAL', `The database worker stopped (exit code ${code}) before it opened the cache. Details are in the log file.`));
      };
      worker.once('message', onFirst);
      worker.once('error', onError);
      worker.once('exit', onExit);
      if (early) resolve(client);
    });
  }

  /** True when the worker could not open the file after a startup reader had answered. */
  get failed(): boolean {
    return this.failure !== null;
  }

  private closeReader(): void {
    this.reader?.close();
    this.reader = null;
  }

  /** The worker's open failed: every pending and later call rejects with `error`. */
  private fail(error: Error): void {
    this.failure = error;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  private onMessage(msg: Response): void {
    if (msg.type === 'ready') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') {
      try {
        p.onProgress?.(msg.value);
      } catch (error) {
        // The caller could not take it (a closed pipe, say): the job stops with that error.
        this.pending.delete(msg.id);
        this.post({ id: this.nextId++, type: 'cancel', target: msg.id });
        p.reject(error instanceof Error ? error : new Error(String(error)));
      } finally {
        this.post({ id: this.nextId++, type: 'ack', target: msg.id });
      }
      return;
    }
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(fromErrorPayload(msg.error));
  }

  private failAll(error: Error): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new LetterdeskError('INTERNAL', `The database worker failed: ${error.message}. Details are in the log file.`));
    this.pending.clear();
  }

  private post(message: Request): void {
    if (!this.closed) this.worker.postMessage(message);
  }

  private send<T>(message: DistributiveOmit<Request, 'id'>, onProgress?: (value: unknown) => void): { id: number; promise: Promise<T> } {
    if (this.closed) return { id: 0, promise: Promise.reject(this.failure ?? new LetterdeskError('INTERNAL', 'The cache is closed. Reopen the profile.')) };
    const id = this.nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(onProgress ? { onProgress } : {}) });
    });
    this.worker.postMessage({ ...message, id });
    return { id, promise };
  }

  protected override call<K extends CacheMethodName>(method: K, args: MethodArgs<CacheMethods[K]>): Promise<MethodResult<CacheMethods[K]>> {
    if (this.reader && STARTUP_READ_METHODS.has(method)) {
      try {
        const read = CACHE_METHODS[method] as (db: Database.Database, ...a: unknown[]) => unknown;
        return Promise.resolve(read(this.reader, ...args) as MethodResult<CacheMethods[K]>);
      } catch {
        // Whatever it was (bad input, a page the checks did not reach), the worker answers it
        // with the full open behind it: the same result or the error to show.
        this.closeReader();
      }
    }
    if (this.scanOpen && SCAN_METHODS.has(method) && !this.closed) return this.queueScan(method, args);
    return this.ownCall(method, args);
  }

  /** Runs a scan after the one running, replacing a scan of the same method that still waits. */
  private queueScan<K extends CacheMethodName>(method: K, args: MethodArgs<CacheMethods[K]>): Promise<MethodResult<CacheMethods[K]>> {
    this.keepScans();
    return new Promise((resolve, reject) => {
      this.scansWaiting.get(method)?.reject(new LetterdeskError('CANCELLED', 'A newer request for the same counts replaced this one before it started.'));
      this.scansWaiting.delete(method);
      const run = () => this.scanClient().then((scanner) => (scanner && !scanner.closed ? scanner.call(method, args) : this.ownCall(method, args)));
      this.scansWaiting.set(method, { run, resolve: resolve as (value: unknown) => void, reject });
      this.nextScan();
    });
  }

  private nextScan(): void {
    if (this.scanRunning) return;
    const first = this.scansWaiting.entries().next();
    if (first.done) return this.idleScans();
    const [method, scan] = first.value;
    this.scansWaiting.delete(method);
    this.scanRunning = true;
    scan.run().then(scan.resolve, scan.reject).finally(() => {
      this.scanRunning = false;
      this.nextScan();
    });
  }

  /** Keeps the scans' worker open: a scan is asked. */
  private keepScans(): void {
    if (this.scanIdleTimer) clearTimeout(this.scanIdleTimer);
    this.scanIdleTimer = null;
  }

  /**
   * Closes the scans' worker once no scan has been asked for {@link scanIdleMs}: its page cache
   * and the file pages it mapped are given back while nobody counts facets.
   */
  private idleScans(): void {
    this.keepScans();
    if (!this.scanner || this.closed) return;
    this.scanIdleTimer = setTimeout(() => {
      this.scanIdleTimer = null;
      if (this.scanRunning || this.scansWaiting.size > 0 || this.closed) return;
      const scanner = this.scanner;
      this.scanner = null;
      void scanner?.then((c) => c?.close());
    }, this.scanIdleMs);
    this.scanIdleTimer.unref?.();
  }

  /** Whether the scans' worker is open now (it opens on the first scan and closes when idle). */
  async scansOpen(): Promise<boolean> {
    const scanner = await this.scanner;
    return scanner !== null && scanner !== undefined && !scanner.closed;
  }

  private ownCall<K extends CacheMethodName>(method: K, args: MethodArgs<CacheMethods[K]>): Promise<MethodResult<CacheMethods[K]>> {
    return this.send<MethodResult<CacheMethods[K]>>({ type: 'call', method, args } as DistributiveOmit<Request, 'id'>).promise;
  }

  /**
   * The client of the scans' worker, opened on first use once this client's worker is ready (the
   * file is then migrated and checked). If it cannot start, the scans are answered by this
   * client's own worker, as they are by a second worker that failed later.
   */
  private scanClient(): Promise<CacheClient | null> {
    const how = this.scanOpen;
    if (!how) return Promise.resolve(null);
    this.scanner ??= this.started.then(() =>
      this.closed ? null : CacheClient.open(how.file, { startupReader: false, role: 'scans', ...(how.workerUrl ? { workerUrl: how.workerUrl } : {}) }).catch(() => null),
    );
    return this.scanner;
  }

  /**
   * Runs one job of {@link CacheJobs} in the worker.
   * @param options.signal aborting it cancels the job (it rejects with the job's CANCELLED error)
   * @param options.onProgress receives the job's progress values in order, all before it resolves;
   *   if it throws, the job is cancelled and rejects with that error
   */
  runJob<K extends keyof CacheJobs>(job: K, args: JobArgs<CacheJobs[K]>, options: JobOptions<JobProgress<CacheJobs[K]>> = {}): Promise<JobResult<CacheJobs[K]>> {
    const { signal } = options;
    // A job reads synchronously between its checks: one started now could finish before it saw a cancel.
    if (signal?.aborted) return Promise.reject(new LetterdeskError('CANCELLED', 'Cancelled before it started; nothing was done.'));
    const onProgress = options.onProgress as ((value: unknown) => void) | undefined;
    const { id, promise } = this.send<JobResult<CacheJobs[K]>>({ type: 'job', job, args } as DistributiveOmit<Request, 'id'>, onProgress);
    if (!signal) return promise;
    const onAbort = () => this.post({ id: this.nextId++, type: 'cancel', target: id });
    signal.addEventListener('abort', onAbort, { once: true });
    return promise.finally(() => signal.removeEventListener('abort', onAbort));
  }

  /**
   * Writes a CSV file or xlsx workbook of a view in the worker (the `exportFile` job, export/write.ts `writeExport`).
   * @param request what to export (kind, view query, columns, CSV options)
   * @param path absolute path of the file to create or replace (atomically)
   * @returns the number of data rows written
   * @throws LetterdeskError VALIDATION, CANCELLED, DISK_FULL as `writeExport`
   */
  exportFile(request: ExportRequest, path: string, options: { signal?: AbortSignal; onProgress?: (p: ExportProgressValue) => void } = {}): Promise<{ rows: number; sheets?: string[] }> {
    return this.runJob('exportFile', { request, path }, options);
  }

  /**
   * Reads the raw JSON of the records of a view (exactly as the service sent them), in view order,
   * at most `limit`, as chunks of about 1 MiB of JSON text (the `records` job, read/records.ts).
   * @param onChunk receives each chunk (JSON texts of records) in order, all before the promise
   *   resolves; while it has not taken a few chunks the worker waits
   * @param options.derived add Letterdesk's derived key to each record (read/records.ts `RecordsArgs`)
   * @returns the number of records read
   * @throws LetterdeskError VALIDATION (kind, limit), CANCELLED (signal aborted; chunks already
   *   delivered stay delivered)
   */
  records(
    kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, limit: number, onChunk: (raws: string[]) => void,
    options: { signal?: AbortSignal; derived?: RecordsArgs['derived'] } = {},
  ): Promise<{ rows: number }> {
    const { derived, ...rest } = options;
    return this.runJob('records', { kind, query, limit, ...(derived ? { derived } : {}) }, { ...rest, onProgress: onChunk });
  }

  /**
   * Closes the connection and ends the worker: it closes its connection and its port and exits by
   * itself (stopped if it has not within a few seconds). A worker still opening the file is let
   * finish first, so that its connection closes cleanly (no session marker left behind).
   */
  async close(): Promise<void> {
    this.closeReader();
    this.keepScans();
    const scanner = this.scanner;
    this.scanner = Promise.resolve(null);
    await (await scanner)?.close();
    await this.started;
    if (this.closed) {
      if (this.failure) await this.worker.terminate();
      return;
    }
    let closedCleanly = false;
    try {
      await this.send({ type: 'close' }).promise;
      closedCleanly = true;
    } catch {
      // already gone
    }
    this.closed = true;
    if (closedCleanly) await endWorker(this.worker, WORKER_EXIT_WAIT_MS);
    else await this.worker.terminate();
  }
}
