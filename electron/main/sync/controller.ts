/**
 * Starting a sync from the main process (issue 4 "Sync"): spawns the sync worker (worker.ts), relays
 * progress and request outcomes, forwards cancellation, and resolves with the recorded runs.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { SyncProgress, SyncRun } from '../../../shared/contract.ts';
import { fromErrorPayload, LetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { SyncWorkerData, SyncWorkerMessage } from './worker.ts';

/** Options of {@link startSync}. */
export interface StartSyncOptions {
  /** The profile's cache file (already created/migrated by the query worker). */
  cacheFile: string;
  /** Ends in `/api/v1`. */
  baseUrl: string;
  tokens: { accessToken: string; refreshToken: string | null };
  /** `meta.account_id` scope, or null. */
  accountId: string | null;
  /** Rows per request, 1–1000. */
  pageSize: number;
  /** Requests in flight. @default 4 */
  concurrency?: number;
  resources: Resource[];
  /** Id of this sync (recorded in sync_runs); generated when absent. */
  runId?: string;
  /** Put into progress events. @default '' */
  profileId?: string;
  onProgress?: (progress: SyncProgress) => void;
  /** Every request's outcome ('ok' or an error code), for connectivity. */
  onOutcome?: (outcome: 'ok' | ErrorCode) => void;
  signal?: AbortSignal;
  /** Override of the worker script location. */
  workerUrl?: URL;
}

/** Where the sync worker script is (`.ts` source, or `syncWorker.js` beside the built main bundle). */
export function defaultSyncWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./syncWorker.js', import.meta.url);
}

/**
 * Runs a sync of `resources` in a worker thread.
 * @returns one SyncRun per resource attempted; a 401/403 gives a run with outcome `failed` and
 *   error code AUTH_REJECTED (and stops the remaining resources); a cancel gives `cancelled`
 * @throws LetterdeskError when the worker itself cannot run (e.g. CACHE_DAMAGED on open)
 */
export function startSync(options: StartSyncOptions): Promise<SyncRun[]> {
  const data: SyncWorkerData = {
    cacheFile: options.cacheFile,
    baseUrl: options.baseUrl,
    tokens: { accessToken: options.tokens.accessToken, refreshToken: options.tokens.refreshToken ?? null },
    accountId: options.accountId ?? null,
    pageSize: options.pageSize,
    concurrency: options.concurrency ?? 4,
    resources: [...options.resources],
    runId: options.runId ?? randomUUID(),
    profileId: options.profileId ?? '',
  };
  const worker = new Worker(options.workerUrl ?? defaultSyncWorkerUrl(), { workerData: data });
  return new Promise<SyncRun[]>((resolve, reject) => {
    let settled = false;
    const onAbort = () => worker.postMessage({ type: 'cancel' });
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    worker.on('message', (msg: SyncWorkerMessage) => {
      if (msg.type === 'progress') options.onProgress?.(msg.value);
      else if (msg.type === 'outcome') options.onOutcome?.(msg.value);
      else if (msg.type === 'done') finish(() => resolve(msg.runs));
      else if (msg.type === 'error') finish(() => reject(fromErrorPayload(msg.error)));
    });
    worker.on('error', (e) => finish(() => reject(new LetterdeskError('INTERNAL', `The sync worker failed: ${e.message}. Details are in the log file.`, { cause: e }))));
    worker.on('exit', (code) => finish(() => reject(new LetterdeskError('INTERNAL', `The sync worker stopped unexpectedly (exit ${code}). Details are in the log file.`))));
  });
}
