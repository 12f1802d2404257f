/**
 * A large read's staging writes on a thread of their own (DESIGN.md "Sync"): a second connection
 * to the cache inserts each page's column values, computed on the sync's thread
 * (ingest.ts `stagedValues`), while the sync's thread fetches, parses and validates the next
 * pages. The two halves of a page's work then run on two cores instead of one after the other.
 * The sync's thread writes nothing to the staging while pages are in the thread's hands
 * (staging.ts `MirrorStaging` waits for them), so the two connections do not wait for each other.
 * The thread's side is stageWriter.thread.ts.
 */
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { entryUrl } from '../../entries.ts';
import type { StagedValues } from './ingest.ts';

/** What the worker is started with. */
export interface StageWriterWorkerData {
  /** The cache file, opened and migrated by the sync's connection. */
  cacheFile: string;
}

/** A message to the worker: a page to write, or the end of the read. */
export type StageWriterRequest = { id: number; pass: number; page: number; serverCount: number; values: StagedValues } | 'close';

/**
 * What the worker says: that it has opened its connection ('running'), or its answer to a page:
 * the rowid of its first row, or SQLite's error.
 */
export type StageWriterReply = 'running' | { id: number; firstRowid: number | null } | { id: number; error: { name: string; message: string; code?: string } };

/**
 * The thread stopped (its script missing, its connection not opened, the thread ended) before it
 * answered: the page was not written by it, or its write was rolled back.
 */
export class StageWriterStopped extends Error {
  constructor(cause: unknown) {
    super(`the staging writer thread stopped (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = 'StageWriterStopped';
  }
}

/**
 * Rows of a read from which its pages are written by the thread: from about 80 pages of orders the
 * overlap gains more than the thread's start (tens of ms) costs.
 */
export const WRITER_MIN_ROWS = 20_000;

/** The sync's side of the thread: pages go in, each write's outcome comes back in order. */
export class StageWriterThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (firstRowid: number | null) => void; reject: (error: Error) => void }>();
  readonly #exited: Promise<void>;
  #nextId = 0;
  #stopped: StageWriterStopped | null = null;
  #running = false;

  /**
   * Starts the thread on `db`'s file. It opens its connection as it starts: a failure then
   * rejects the first write with {@link StageWriterStopped}.
   * @param db the sync's connection to a cache file
   * @throws when the worker cannot be created
   */
  constructor(db: Database.Database, workerUrl: URL = entryUrl('stageWriterWorker')) {
    this.#worker = new Worker(workerUrl, { workerData: { cacheFile: db.name } satisfies StageWriterWorkerData });
    this.#worker.on('message', (reply: StageWriterReply) => {
      if (reply === 'running') {
        this.#running = true;
        return;
      }
      const waiting = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (!waiting) return;
      if ('error' in reply) waiting.reject(Object.assign(new Error(reply.error.message), reply.error));
      else waiting.resolve(reply.firstRowid);
    });
    this.#worker.on('error', (error) => this.#stop(error));
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', (code) => {
        this.#stop(new Error(`exit code ${code}`));
        resolve();
      });
    });
  }

  /** Whether the thread has opened its connection (and not stopped since). */
  get running(): boolean {
    return this.#running && !this.#stopped;
  }

  /**
   * Writes one page in the thread (one transaction, as ingest.ts `StageWriter.writeValues`).
   * @returns the staging rowid of the page's first row, or null for an empty page
   * @throws SQLite's error (with its `code`, SQLITE_FULL for a full disk) when the write failed;
   *   {@link StageWriterStopped} when the thread stopped before it answered
   */
  write(pass: number, page: number, serverCount: number, values: StagedValues): Promise<number | null> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, pass, page, serverCount, values } satisfies StageWriterRequest);
    });
  }

  /** Lets the thread finish the pages it has, close its connection and end; resolves once it has ended. */
  close(): Promise<void> {
    if (!this.#stopped) this.#worker.postMessage('close' satisfies StageWriterRequest);
    return this.#exited;
  }

  #stop(cause: unknown): void {
    this.#stopped ??= new StageWriterStopped(cause);
    for (const waiting of this.#pending.values()) waiting.reject(this.#stopped);
    this.#pending.clear();
  }
}
