/**
 * The database worker's side of the protocol (protocol.ts), for any method table and job table:
 * opens the cache file named in `workerData`, says `ready` (or why it could not open it), then
 * answers calls one at a time and runs jobs, each job interleaved with the calls that arrive while
 * it yields. The worker entry (electron/main/dbWorker.ts) picks the tables; the cache knows nothing
 * of what its jobs do.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { LetterdeskError, toErrorPayload } from '../../../../shared/errors.ts';
import { openCache, openScanReader } from '../store/db.ts';
import type { HostRequest, HostResponse, HostWorkerData, JobContext, JobProgress, JobResult, JobTable, MethodResult, MethodTable } from './protocol.ts';

/** A running job: what cancels it, and how many of its progress values the client has not yet handled. */
interface RunningJob {
  abort: AbortController;
  unacknowledged: number;
  /** Called whenever `unacknowledged` drops or the job is aborted. */
  wake: (() => void) | null;
}

/**
 * Serves `methods` and `jobs` on the cache file of this worker thread (`workerData.file`). Does
 * nothing outside a worker thread.
 * @param tables the method table and the job table (their types drive the client's)
 */
export function serveCache<T extends MethodTable, J extends JobTable>(tables: { methods: T; jobs: J }): void {
  const port = parentPort;
  if (!port) return;
  const { file, scans } = workerData as HostWorkerData;
  let db: Database.Database | null = null;
  try {
    db = scans ? openScanReader(file) : openCache(file);
    reply(port, { id: 0, type: 'ready' });
  } catch (error) {
    reply(port, { id: 0, type: 'result', ok: false, error: toErrorPayload(error) });
  }
  const running = new Map<number, RunningJob>();
  port.on('message', (msg: HostRequest<T, J>) => {
    switch (msg.type) {
      case 'cancel':
        abortJob(running.get(msg.target));
        return;
      case 'ack': {
        const job = running.get(msg.target);
        if (job) {
          job.unacknowledged = Math.max(0, job.unacknowledged - 1);
          job.wake?.();
        }
        return;
      }
      case 'close':
        for (const job of running.values()) abortJob(job);
        db?.close();
        db = null;
        reply(port, { id: msg.id, type: 'result', ok: true, value: null });
        port.close();
        return;
      case 'call':
        try {
          if (!db) throw new LetterdeskError('INTERNAL', 'The cache is not open. Reopen the profile.');
          if (!Object.hasOwn(tables.methods, msg.method)) throw new LetterdeskError('INTERNAL', `The database worker has no method "${String(msg.method).slice(0, 64)}".`);
          const method = tables.methods[msg.method] as (db: Database.Database, ...args: unknown[]) => MethodResult<T[keyof T]>;
          reply(port, { id: msg.id, type: 'result', ok: true, value: method(db, ...msg.args) });
        } catch (error) {
          reply(port, { id: msg.id, type: 'result', ok: false, error: toErrorPayload(error) });
        }
        return;
      case 'job':
        void runJob(port, msg.id, msg.job, msg.args);
        return;
    }
  });

  async function runJob(to: MessagePort, id: number, name: keyof J & string, args: unknown): Promise<void> {
    const job: RunningJob = { abort: new AbortController(), unacknowledged: 0, wake: null };
    running.set(id, job);
    const context: JobContext<unknown> = {
      signal: job.abort.signal,
      onProgress(value) {
        job.unacknowledged++;
        reply(to, { id, type: 'progress', value: value as JobProgress<J[keyof J]> });
      },
      drained(pending) {
        return new Promise((resolve) => {
          const check = () => {
            if (job.unacknowledged > pending && !job.abort.signal.aborted) return;
            job.wake = null;
            resolve();
          };
          job.wake = check;
          check();
        });
      },
    };
    try {
      if (!db) throw new LetterdeskError('INTERNAL', 'The cache is not open. Reopen the profile.');
      if (!Object.hasOwn(tables.jobs, name)) throw new LetterdeskError('INTERNAL', `The database worker has no job "${String(name).slice(0, 64)}".`);
      const run = tables.jobs[name] as (db: Database.Database, args: unknown, context: JobContext<unknown>) => Promise<JobResult<J[keyof J]>>;
      const value = await run(db, args, context);
      reply(to, { id, type: 'result', ok: true, value });
    } catch (error) {
      reply(to, { id, type: 'result', ok: false, error: toErrorPayload(error) });
    } finally {
      running.delete(id);
    }
  }

  function reply(to: MessagePort, message: HostResponse<T, J>): void {
    to.postMessage(message);
  }
}

function abortJob(job: RunningJob | undefined): void {
  if (!job) return;
  job.abort.abort();
  job.wake?.();
}
