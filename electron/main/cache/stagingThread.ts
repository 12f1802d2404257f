/**
 * Writing a read's pages into staging on a thread of their own (DESIGN.md "Sync"): while pages
 * arrive, the sync's thread receives, parses and validates them and computes their column values
 * (ingest.ts `pageValues`); the inserts, the larger share of the work, run in a worker thread with
 * a connection of its own (stagingWorker.ts), on the other core. Each page is still one
 * transaction that records it in `sync_pages`, so a page counts as read only once it is written.
 * If the thread cannot run (its script missing, or it dies), the pages it has not confirmed are
 * written by the sync's own connection and the read goes on there.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { StageWriter, type PageValues } from './ingest.ts';

/** Pages a read must fetch for its staging to be written on a thread (fewer: on the sync's thread). */
export const THREAD_MIN_PAGES = 8;

/**
 * The thread's heap: it holds a page's values at a time, so a small young generation serves it
 * (the sync process's own, sized for megabytes of JSON a page, would make the thread's heap grow
 * to several times that). Running out ends the thread, and the connection takes over.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 24 };

/** The message that asks the thread to close its connection and end. */
export const CLOSE = 'close';

/** How long the thread may take to end by itself before it is stopped (ms). */
const CLOSE_TIMEOUT_MS = 2000;

/** What the thread is given (stagingWorker.ts). */
export interface StagingWorkerData {
  /** The cache file: the thread opens its own connection to it. */
  cacheFile: string;
}

/** A page for the thread to write. */
export interface StagingWorkerRequest {
  seq: number;
  pass: number;
  page: number;
  serverCount: number;
  values: PageValues;
}

/** The thread's answer for one page: written, or the error its transaction threw. */
export type StagingWorkerReply = { seq: number; error?: undefined } | { seq: number; error: { name: string; message: string; code?: string } };

/** The thread's entry: `stagingWorker.ts` from the sources, `stagingWorker.js` in the build. */
function workerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('../stagingWorker.ts', import.meta.url) : new URL('./stagingWorker.js', import.meta.url);
}

/** An error as the thread reported it, with SQLite's code kept (failures.ts maps `SQLITE_FULL`). */
function reported(error: { name: string; message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), { name: error.name, ...(error.code ? { code: error.code } : {}) });
}

interface Pending {
  request: StagingWorkerRequest;
  written: () => void;
  failed: (error: Error) => void;
}

/**
 * A thread writing staged pages. Use {@link StagingThread.start}; hand it pages with
 * {@link write}, and {@link settle} it before the connection reads or writes the staging again.
 * The pages in flight are as many as the read's lanes, each waiting for its page to be written.
 */
export class StagingThread {
  readonly #db: Database.Database;
  readonly #worker: Worker;
  /** Pages handed over and not confirmed, by sequence number (written here if the thread dies). */
  readonly #pending = new Map<number, Pending>();
  #seq = 0;
  /** Set once the thread is gone or settled: pages are then written on the sync's thread. */
  #fallback: StageWriter | null = null;
  #idle: (() => void)[] = [];

  private constructor(db: Database.Database, worker: Worker) {
    this.#db = db;
    this.#worker = worker;
    worker.on('message', (reply: StagingWorkerReply) => {
      const pending = this.#pending.get(reply.seq);
      this.#pending.delete(reply.seq);
      if (reply.error) pending?.failed(reported(reply.error));
      else pending?.written();
      this.#wakeIfIdle();
    });
    worker.on('error', () => this.#takeOver());
    worker.on('exit', () => this.#takeOver());
  }

  /**
   * Starts a thread for the staging of `db`'s file.
   * @param script the thread's entry (the tests point it elsewhere to see the connection take over)
   * @returns null when the connection cannot share its file with a thread (in memory, or inside
   *   a transaction) or the thread cannot be created
   */
  static start(db: Database.Database, script: URL = workerUrl()): StagingThread | null {
    if (db.memory || db.inTransaction) return null;
    try {
      return new StagingThread(db, new Worker(script, { workerData: { cacheFile: db.name } satisfies StagingWorkerData, resourceLimits: RESOURCE_LIMITS }));
    } catch {
      return null;
    }
  }

  /**
   * Writes one page on the thread.
   * @returns once the page's transaction has committed
   * @throws what the page's transaction threw (`SQLITE_FULL` on a full disk, for instance)
   */
  write(pass: number, page: number, serverCount: number, values: PageValues): Promise<void> {
    if (this.#fallback) {
      this.#fallback.writeValues(pass, page, serverCount, values);
      return Promise.resolve();
    }
    const request: StagingWorkerRequest = { seq: ++this.#seq, pass, page, serverCount, values };
    return new Promise<void>((written, failed) => {
      this.#pending.set(request.seq, { request, written, failed });
      this.#worker.postMessage(request);
    });
  }

  /** Waits until every page handed over is written (or has failed), then stops the thread. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0 && !this.#fallback) await new Promise<void>((r) => this.#idle.push(r));
    if (this.#fallback) return;
    this.#fallback = new StageWriter(this.#db); // from here on nothing is sent to the thread
    // The thread closes its connection and ends by itself, so that what it allocated is freed
    // (and reused by the build's threads) rather than dropped with the thread.
    const ended = new Promise<void>((r) => this.#worker.once('exit', () => r()));
    this.#worker.postMessage(CLOSE);
    await Promise.race([ended, new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS).unref())]);
    await this.#worker.terminate();
  }

  /** The thread is gone before it confirmed every page: the sync's connection writes them, in order. */
  #takeOver(): void {
    if (this.#fallback) return;
    const writer = new StageWriter(this.#db);
    this.#fallback = writer;
    const pending = [...this.#pending.values()].sort((a, b) => a.request.seq - b.request.seq);
    this.#pending.clear();
    for (const { request: r, written, failed } of pending) {
      try {
        writer.writeValues(r.pass, r.page, r.serverCount, r.values);
        written();
      } catch (error) {
        failed(error as Error);
      }
    }
    this.#wakeIfIdle();
  }

  #wakeIfIdle(): void {
    if (this.#pending.size > 0) return;
    const idle = this.#idle;
    this.#idle = [];
    for (const w of idle) w();
  }
}
