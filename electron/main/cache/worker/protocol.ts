/**
 * The database worker's protocol, derived from two tables (the way Signal Desktop derives its
 * client and server SQL interfaces from one interface):
 *
 *  - a **method table**: synchronous reads `(db, ...args) => result` on the worker's connection;
 *  - a **job table**: long-running work `(db, args, { signal, onProgress }) => Promise<result>`,
 *    with progress and cancel.
 *
 * The messages that cross the thread boundary and the client's async methods are mapped from the
 * tables' types, so adding a query or a job is one entry, typed end to end. The worker side is
 * host.ts, the calling side client.ts.
 */
import type Database from 'better-sqlite3';
import type { ErrorPayload } from '../../../../shared/errors.ts';

/** A read served by the worker: runs synchronously on its connection. */
export type Method = (db: Database.Database, ...args: never[]) => unknown;

/** Read methods by name. */
export type MethodTable = Record<string, Method>;

/** The arguments of a method after the connection. */
export type MethodArgs<F> = F extends (db: Database.Database, ...args: infer A) => unknown ? A : never;

/** What a method returns. */
export type MethodResult<F> = F extends (...args: never[]) => infer R ? R : never;

/** The calling side of a method table: each method without the connection, answered later. */
export type MethodClient<T extends MethodTable> = { readonly [K in keyof T]: (...args: MethodArgs<T[K]>) => Promise<MethodResult<T[K]>> };

/** What a running job gets besides its arguments. */
export interface JobContext<P> {
  /** Aborted when the client cancels the job or closes the cache. */
  readonly signal: AbortSignal;
  /** Sends one progress value to the client; values arrive in order, all before the result. */
  onProgress(progress: P): void;
  /**
   * Resolves once the client has handled all but `pending` of the progress values sent (or the
   * job is aborted): a job that streams data through its progress waits on it, so the data never
   * piles up in the client's message queue faster than the client takes it.
   */
  drained(pending: number): Promise<void>;
}

/** Long-running work in the worker: `args` in, progress values of type `P`, result `R`. */
export type Job<A, P, R> = (db: Database.Database, args: A, context: JobContext<P>) => Promise<R>;

/** Jobs by name. */
export type JobTable = Record<string, Job<never, unknown, unknown>>;

/** The argument object of a job. */
export type JobArgs<F> = F extends (db: Database.Database, args: infer A, ...rest: never[]) => unknown ? A : never;

/** The progress values a job sends. */
export type JobProgress<F> = F extends (db: Database.Database, args: never, context: JobContext<infer P>) => unknown ? P : never;

/** What a job resolves with. */
export type JobResult<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

/** How the client starts one job: what to report progress to, and what cancels it. */
export interface JobOptions<P> {
  signal?: AbortSignal;
  onProgress?: (progress: P) => void;
}

/** A call of a method: its name and its arguments, checked against the table. */
export type CallRequest<T extends MethodTable> = { [K in keyof T & string]: { id: number; type: 'call'; method: K; args: MethodArgs<T[K]> } }[keyof T & string];

/** The start of a job: its name and its argument object, checked against the table. */
export type JobRequest<J extends JobTable> = { [K in keyof J & string]: { id: number; type: 'job'; job: K; args: JobArgs<J[K]> } }[keyof J & string];

/**
 * Messages from the client. `cancel` aborts the job started with id `target`; `ack` says the
 * client handled one progress value of job `target`; `close` closes the connection (every running
 * job is aborted) and ends the worker.
 */
export type HostRequest<T extends MethodTable, J extends JobTable> =
  | CallRequest<T>
  | JobRequest<J>
  | { id: number; type: 'cancel'; target: number }
  | { id: number; type: 'ack'; target: number }
  | { id: number; type: 'close' };

/**
 * Messages to the client. `ready` (id 0) once the file is open, or a failed `result` with id 0
 * when it could not be opened; then one `result` per call, job and close, and a job's `progress`
 * values before its result.
 */
export type HostResponse<T extends MethodTable, J extends JobTable> =
  | { id: 0; type: 'ready' }
  | { id: number; type: 'result'; ok: true; value: MethodResult<T[keyof T]> | JobResult<J[keyof J]> | null }
  | { id: number; type: 'result'; ok: false; error: ErrorPayload }
  | { id: number; type: 'progress'; value: JobProgress<J[keyof J]> };

/** What the worker gets in `workerData`. */
export interface HostWorkerData {
  /** Absolute path of the cache file to open. */
  file: string;
  /** Open it read-only for scans, beside a worker that opened it (store/db.ts `openScanReader`). */
  scans?: boolean;
}

/** What a client derived by {@link methodClientBase} implements: sending one call of the table. */
export abstract class MethodCaller<T extends MethodTable> {
  /** Runs `method` with `args` (the worker, or a reader on the calling thread) and resolves with its result. */
  protected abstract call<K extends keyof T & string>(method: K, args: MethodArgs<T[K]>): Promise<MethodResult<T[K]>>;
}

/**
 * A base class whose instances have one async method per entry of `table` (built from the table's
 * keys, typed by {@link MethodClient}); each sends its arguments through the subclass's `call`.
 * Keys must not collide with the subclass's own members.
 */
export function methodClientBase<T extends MethodTable>(table: T): abstract new () => MethodCaller<T> & MethodClient<T> {
  abstract class Methods extends MethodCaller<T> {
    static {
      for (const name of Object.keys(table)) {
        Object.defineProperty(this.prototype, name, {
          value(this: Methods, ...args: unknown[]) {
            return this.call(name, args as MethodArgs<T[typeof name]>);
          },
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return Methods as unknown as abstract new () => MethodCaller<T> & MethodClient<T>;
}
