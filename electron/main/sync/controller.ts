/**
 * Starting a sync from the main process (issue 4 "Sync"): spawns the sync worker (worker.ts), relays
 * progress and request outcomes, forwards cancellation, and resolves with the recorded runs.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { SyncProgress, SyncRun } from '../../../shared/contract.ts';
import { fromErrorPayload, LetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { logger } from '../log.ts';
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
  /** Override of {@link SYNC_WORKER_HEAP_LIMITS} (tests). */
  heapLimits?: readonly (Worker['resourceLimits'] | undefined)[];
}

/** Where the sync worker script is (`.ts` source, or `syncWorker.js` beside the built main bundle). */
export function defaultSyncWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./syncWorker.js', import.meta.url);
}

/**
 * Heap limits of the sync worker's JavaScript heap, one per attempt (issue 8, peak RSS of the syncing
 * process ≤ 300 MB). Parsing pages makes garbage fast, and without a limit V8 lets the heap grow to
 * hundreds of MB before it collects: sync of 300,000 contacts (core + database worker + sync worker),
 * peak RSS 435–503 MiB without a limit, 269 MiB with 64 MiB old / 8 MiB young generation (16 MiB
 * young: 281 MiB); 30,000 orders 420 → 274 MiB; 1,000,000 contacts 485 → 285 MiB (16 MiB young:
 * 303 MiB), the fetch phase as fast as without a limit. Since pages stay within about 1 MiB of JSON
 * (engine.ts `PAGE_CHARS_BUDGET`), 48 MiB is enough: sync of 1,000,000 contacts + 300,000 orders
 * (orders 250 a page), peak RSS 302–309 MiB with 64 MiB, 273 MiB with 48 (orders 56 → 58 s), 255–264
 * MiB with 40 (orders 62–65 s, and the main thread's event loop stalled 70–107 ms while the worker
 * collected), 248 MiB with 32 (orders 87 s). A page too large
 * for a limit stops that worker with ERR_WORKER_OUT_OF_MEMORY; the sync then goes on in a new
 * worker with the next, larger limit (the last attempt has none), resuming from the pages already
 * written, so a limit can cost time but never a sync.
 */
export const SYNC_WORKER_HEAP_LIMITS: readonly (Worker['resourceLimits'] | undefined)[] = [
  { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 },
  { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 },
  undefined,
];

/**
 * Runs a sync of `resources` in a worker thread (again in a new worker with a larger heap limit if
 * the worker runs out of memory, see {@link SYNC_WORKER_HEAP_LIMITS}).
 * @returns one SyncRun per resource attempted; a 401/403 gives a run with outcome `failed` and
 *   error code AUTH_REJECTED (and stops the remaining resources); a cancel gives `cancelled`
 * @throws LetterdeskError when the worker itself cannot run (e.g. CACHE_DAMAGED on open)
 */
export async function startSync(options: StartSyncOptions): Promise<SyncRun[]> {
  const runId = options.runId ?? randomUUID();
  const runs: SyncRun[] = [];
  const limits = options.heapLimits ?? SYNC_WORKER_HEAP_LIMITS;
  for (let attempt = 0; ; attempt++) {
    const ended = new Set(runs.map((r) => r.resource));
    const resources = options.resources.filter((r) => !ended.has(r));
    try {
      await runWorker({ ...options, resources, runId }, limits[attempt], (run) => runs.push(run));
      return runs;
    } catch (error) {
      const outOfMemory = (error as { cause?: { code?: string } }).cause?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (!outOfMemory || attempt + 1 >= limits.length || options.signal?.aborted) throw error;
      logger.warn(`sync: the sync worker ran out of memory with a heap limit of ${limits[attempt]?.maxOldGenerationSizeMb ?? '∞'} MB; continuing with ${limits[attempt + 1]?.maxOldGenerationSizeMb ?? 'no'} limit`);
    }
  }
}

/** One sync worker: resolves when it posted `done`, rejects on its error or exit. */
function runWorker(options: StartSyncOptions & { runId: string }, resourceLimits: Worker['resourceLimits'] | undefined, onRun: (run: SyncRun) => void): Promise<void> {
  const data: SyncWorkerData = {
    cacheFile: options.cacheFile,
    baseUrl: options.baseUrl,
    tokens: { accessToken: options.tokens.accessToken, refreshToken: options.tokens.refreshToken ?? null },
    accountId: options.accountId ?? null,
    pageSize: options.pageSize,
    concurrency: options.concurrency ?? 4,
    resources: [...options.resources],
    runId: options.runId,
    profileId: options.profileId ?? '',
  };
  const worker = new Worker(options.workerUrl ?? defaultSyncWorkerUrl(), { workerData: data, ...(resourceLimits ? { resourceLimits } : {}) });
  return new Promise<void>((resolve, reject) => {
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
      else if (msg.type === 'run') onRun(msg.run);
      else if (msg.type === 'done') finish(resolve);
      else if (msg.type === 'error') finish(() => reject(fromErrorPayload(msg.error)));
    });
    worker.on('error', (e) => finish(() => reject(new LetterdeskError('INTERNAL', `The sync worker failed: ${e.message}. Details are in the log file.`, { cause: e }))));
    worker.on('exit', (code) => finish(() => reject(new LetterdeskError('INTERNAL', `The sync worker stopped unexpectedly (exit ${code}). Details are in the log file.`))));
  });
}
