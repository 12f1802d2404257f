/**
 * The async main-side client of the database worker (worker.ts). The Electron main thread and the
 * handlers talk to the cache only through this, so no query ever blocks the main event loop for
 * longer than a page read: while the worker starts (40–60 ms for a worker thread here), page-sized
 * reads of a cleanly closed, current cache are answered on the calling thread by a read-only
 * startup reader (db.ts `openStartupReader`, a few ms at 1M rows), so the first page does not wait
 * for the thread (issue 8, cold open). Everything else waits for the worker.
 */
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { ContactDetail, ExportRequest, OrderDetail, ResourceState, SyncRun } from '../../../shared/contract.ts';
import { LetterdeskError, fromErrorPayload } from '../../../shared/errors.ts';
import type { ContactFacets, ContactQuery, ContactRow, OrderFacets, OrderQuery, OrderRow, RowCount, RowPage, RowWindow } from '../../../shared/query.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { openStartupReader } from './db.ts';
import { QUERY_METHODS, STARTUP_READ_METHODS, type QueryMethod } from './queries.ts';
import type { WorkerRequest, WorkerResponse } from './worker.ts';

/** Where the worker script is: the `.ts` source next to this file, or `dbWorker.js` in the built app. */
export function defaultWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./dbWorker.js', import.meta.url);
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (value: unknown) => void;
}

/** Export progress as the export module reports it. */
export interface ExportProgressValue {
  rowsDone: number;
  rowsTotal: number;
}

/** Async access to one cache file through its own worker thread. */
export class CacheClient {
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

  private constructor(worker: Worker) {
    this.worker = worker;
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
   * @throws LetterdeskError CACHE_TOO_NEW / CACHE_DAMAGED / DISK_FULL from the open
   */
  static open(file: string, options: { workerUrl?: URL; startupReader?: boolean; onLateFailure?: (error: Error) => void } = {}): Promise<CacheClient> {
    const worker = new Worker(options.workerUrl ?? defaultWorkerUrl(), { workerData: { file } });
    const client = new CacheClient(worker);
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
      const onFirst = (msg: WorkerResponse) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (msg.type === 'ready') {
          client.markStarted();
          client.closeReader();
          worker.on('message', (m: WorkerResponse) => client.onMessage(m));
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

  private onMessage(msg: WorkerResponse): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') {
      p.onProgress?.(msg.value);
      return;
    }
    if (msg.type !== 'result') return;
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(fromErrorPayload(msg.error));
  }

  private failAll(error: Error): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new LetterdeskError('INTERNAL', `The database worker failed: ${error.message}. Details are in the log file.`));
    this.pending.clear();
  }

  private send<T>(message: DistributiveOmit<WorkerRequest, 'id'>, onProgress?: (value: unknown) => void): { id: number; promise: Promise<T> } {
    if (this.closed) return { id: 0, promise: Promise.reject(this.failure ?? new LetterdeskError('INTERNAL', 'The cache is closed. Reopen the profile.')) };
    const id = this.nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress });
    });
    this.worker.postMessage({ ...message, id });
    return { id, promise };
  }

  private call<T>(method: QueryMethod, ...args: unknown[]): Promise<T> {
    if (this.reader && STARTUP_READ_METHODS.has(method)) {
      try {
        const fn = QUERY_METHODS[method] as (db: Database.Database, ...a: unknown[]) => T;
        return Promise.resolve(fn(this.reader, ...args));
      } catch {
        // Whatever it was (bad input, a page the checks did not reach), the worker answers it
        // with the full open behind it: the same result or the error to show.
        this.closeReader();
      }
    }
    return this.send<T>({ type: 'query', method, args }).promise;
  }

  /** A window of the contacts view (total capped, see queries.ts). */
  queryContacts(query: ContactQuery, window: RowWindow): Promise<RowPage<ContactRow>> {
    return this.call('queryContacts', query, window);
  }
  /** Exact count of the contacts view. */
  countContacts(query: ContactQuery): Promise<RowCount> {
    return this.call('countContacts', query);
  }
  /** Facet counts of the contacts view. */
  contactFacets(query: ContactQuery): Promise<ContactFacets> {
    return this.call('contactFacets', query);
  }
  /** One contact and its orders, or null. */
  getContact(id: string): Promise<ContactDetail | null> {
    return this.call('getContact', id);
  }
  /** A window of the orders view. */
  queryOrders(query: OrderQuery, window: RowWindow): Promise<RowPage<OrderRow>> {
    return this.call('queryOrders', query, window);
  }
  /** Exact count of the orders view. */
  countOrders(query: OrderQuery): Promise<RowCount> {
    return this.call('countOrders', query);
  }
  /** Facet counts of the orders view. */
  orderFacets(query: OrderQuery): Promise<OrderFacets> {
    return this.call('orderFacets', query);
  }
  /** One order and its recipients, or null. */
  getOrder(id: string): Promise<OrderDetail | null> {
    return this.call('getOrder', id);
  }
  /** Rows, last sync and last error of each resource. */
  resourceStates(): Promise<Record<Resource, ResourceState>> {
    return this.call('resourceStates');
  }
  /** The most recent sync runs, newest first. */
  syncHistory(limit: number): Promise<SyncRun[]> {
    return this.call('syncHistory', limit);
  }

  /**
   * Runs a CSV export inside the worker (electron/main/export/run.ts `runExport`).
   * @returns what runExport returns (`{ rows }`)
   */
  exportCsv(request: ExportRequest, path: string, options: { signal?: AbortSignal; onProgress?: (p: ExportProgressValue) => void } = {}): Promise<{ rows: number }> {
    const { id, promise } = this.send<{ rows: number }>({ type: 'export', request, path }, (v) => options.onProgress?.(v as ExportProgressValue));
    const onAbort = () => this.worker.postMessage({ id: this.nextId++, type: 'cancel', target: id } satisfies WorkerRequest);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    return promise.finally(() => options.signal?.removeEventListener('abort', onAbort));
  }

  /**
   * Closes the connection and stops the worker. A worker still opening the file is let finish
   * first, so that its connection closes cleanly (no session marker left behind).
   */
  async close(): Promise<void> {
    this.closeReader();
    await this.started;
    if (this.closed) {
      if (this.failure) await this.worker.terminate();
      return;
    }
    try {
      await this.send({ type: 'close' }).promise;
    } catch {
      // already gone
    }
    this.closed = true;
    await this.worker.terminate();
  }
}
