/**
 * Starting a sync from the main process (DESIGN.md "Sync"): starts the sync process (process.ts,
 * entry ../syncProcess.ts), relays progress and request outcomes, forwards cancellation, and resolves
 * with the recorded runs.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_HISTORY_RETENTION_DAYS, type SyncProgress, type SyncRun } from '../../../shared/contract.ts';
import { fromErrorPayload, LetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewRefresh } from '../../../shared/views.ts';
import { entryUrl } from '../entries.ts';
import { logger } from '../base/log.ts';
import { DEFAULT_CONCURRENCY } from './decisions.ts';
import { acquireSyncLock } from './lock.ts';
import { DEFAULT_QUERY_ENCODING, type QueryEncoding } from '../../../shared/serviceQuery.ts';
import {
  SYNC_PROCESS_FLAGS, heapLimitArgs, nodeSyncProcessLauncher,
  type SyncControlMessage, type SyncHeapLimit, type SyncProcessLauncher, type SyncProcessMessage, type SyncProcessStats, type SyncStartData,
} from './process.ts';

/** Options of {@link startSync}. */
export interface StartSyncOptions {
  /** The profile's cache file (already created/migrated by the database worker). */
  cacheFile: string;
  /** Ends in `/api/v1`. */
  baseUrl: string;
  tokens: { accessToken: string; refreshToken: string | null };
  /** `meta.account_id` scope, or null. */
  accountId: string | null;
  /** Rows per request, 1–1000. */
  pageSize: number;
  /** Requests in flight. @default {@link DEFAULT_CONCURRENCY} (decisions.ts) */
  concurrency?: number;
  resources: Resource[];
  /** Id of this sync (recorded in sync_runs); generated when absent. */
  runId?: string;
  /** Put into progress events. @default '' */
  profileId?: string;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Called with each resource's run as soon as it has ended, before the next resource starts (the
   * sync process reports it then): contacts published while orders are still being read can be
   * shown at once. The same runs are also in the result.
   */
  onRun?: (run: SyncRun) => void;
  /** Every request's outcome ('ok' or an error code), for connectivity. */
  onOutcome?: (outcome: 'ok' | ErrorCode) => void;
  /**
   * Saved views whose memberships are read again (their ids), each after its resource's run, or
   * after the resources when its resource is not synced now (`resources` may be empty: a refresh
   * on demand). @default none
   */
  views?: string[];
  /** How the views' queries go on the wire (the profile's setting). @default DEFAULT_QUERY_ENCODING */
  encoding?: QueryEncoding;
  /**
   * Called with each view's outcome as soon as its refresh has ended: `succeeded` with the new
   * membership, or `failed` / `cancelled` with the error and the previous membership kept.
   */
  onViewRefreshed?: (refresh: ViewRefresh) => void;
  /** Progress of the refresh of one view (`resource` is the view's). */
  onViewProgress?: (viewId: string, progress: SyncProgress) => void;
  signal?: AbortSignal;
  /** Override of the sync process's entry script. @default {@link defaultSyncProcessUrl} */
  processUrl?: URL;
  /**
   * The profile's previews setting: after the orders are published, the template previews the
   * cache lacks are downloaded (never failing the sync); false deletes the stored ones. @default false
   */
  previews?: boolean;
  /** After the resources and views, read the kept filters of the resources published (keptRefresh.ts). @default false */
  keptFilters?: boolean;
  /** Days the observed history is kept. @default shared/contract.ts `DEFAULT_HISTORY_RETENTION_DAYS` */
  historyRetentionDays?: number;
  /** Override of {@link SYNC_PROCESS_HEAP_LIMITS} (tests). */
  heapLimits?: readonly (SyncHeapLimit | undefined)[];
  /** How the sync process is started. @default {@link nodeSyncProcessLauncher} (the app passes Electron's) */
  launcher?: SyncProcessLauncher;
  /** Called with the id of each sync process started (the benchmark samples its memory). */
  onProcessStart?: (pid: number) => void;
  /** Called with what each sync process used, measured by itself, when it reports its result. */
  onProcessEnd?: (stats: SyncProcessStats) => void;
}

/** Where the sync process's entry is (entries.ts: `syncProcess.ts` from sources, `syncProcess.js` beside the built main bundle). */
export function defaultSyncProcessUrl(): URL {
  return entryUrl('syncProcess');
}

/**
 * Heap limits of the sync process, one per attempt (old/young generation in MiB; the young one is
 * passed as its semi-space, process.ts `heapLimitArgs`). Parsing pages makes garbage fast, and
 * without a limit V8 lets the heap grow to hundreds of MB before it collects; the first limit keeps
 * the process's peak memory bounded at little cost in time (docs/benchmarks.md has the figures).
 * The limits are V8 flags, so they apply to every thread's heap in the process, the staging
 * writer's too (cache/build/stageWriter.ts): a worker's own `resourceLimits` do not override them.
 * A page too large for a limit ends that process (V8: heap out of memory); the sync then goes on
 * in a new process with the next, larger limit (the last attempt has none), resuming from the
 * pages already written, so a limit can cost time but never a sync.
 */
export const SYNC_PROCESS_HEAP_LIMITS: readonly (SyncHeapLimit | undefined)[] = [
  { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 },
  { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 },
  undefined,
];

/**
 * Runs a sync of `resources`, then the refresh of `views`, in a sync process (process.ts,
 * ../syncProcess.ts), again in a new process with a larger heap limit if the process ends without a
 * result — out of memory, or killed — see {@link SYNC_PROCESS_HEAP_LIMITS}; each new process
 * resumes from the pages already written, and skips the resources and views already reported.
 * @returns one SyncRun per resource attempted; a 401/403 gives a run with outcome `failed` and
 *   error code AUTH_REJECTED (and stops the remaining resources); a cancel gives `cancelled`
 * @throws LetterdeskError BUSY when another process is syncing the same cache file (lock.ts); when
 *   the sync process itself cannot run (e.g. CACHE_DAMAGED on open); or
 *   INTERNAL when the last attempt also ended without a result (its `cause` is a
 *   {@link SyncProcessFailure})
 */
export async function startSync(options: StartSyncOptions): Promise<SyncRun[]> {
  const release = acquireSyncLock(options.cacheFile);
  try {
    return await syncWithRetries(options);
  } finally {
    release();
  }
}

async function syncWithRetries(options: StartSyncOptions): Promise<SyncRun[]> {
  const runId = options.runId ?? randomUUID();
  const runs: SyncRun[] = [];
  const refreshed = new Set<string>();
  const limits = options.heapLimits ?? SYNC_PROCESS_HEAP_LIMITS;
  for (let attempt = 0; ; attempt++) {
    const ended = new Set(runs.map((r) => r.resource));
    const resources = options.resources.filter((r) => !ended.has(r));
    const views = (options.views ?? []).filter((v) => !refreshed.has(v));
    const onViewRefreshed = (refresh: ViewRefresh) => {
      refreshed.add(refresh.viewId);
      options.onViewRefreshed?.(refresh);
    };
    try {
      await runProcess({ ...options, resources, views, runId, onViewRefreshed }, limits[attempt], (run) => {
        runs.push(run);
        options.onRun?.(run);
      });
      return runs;
    } catch (error) {
      const failure = (error as { cause?: SyncProcessFailure }).cause;
      if (failure?.code !== 'ERR_SYNC_PROCESS_EXIT' || attempt + 1 >= limits.length || options.signal?.aborted) throw error;
      const limit = limits[attempt]?.maxOldGenerationSizeMb;
      const next = limits[attempt + 1]?.maxOldGenerationSizeMb;
      logger.warn(`sync: the sync process ${failure.outOfMemory ? 'ran out of memory' : 'ended without a result'} (heap limit ${limit ?? 'none'} MB, ${failure.exit}); continuing with ${next === undefined ? 'no' : `${next} MB`} limit`);
    }
  }
}

/** The `cause` of the error of a sync process that ended without reporting a result. */
export interface SyncProcessFailure {
  code: 'ERR_SYNC_PROCESS_EXIT';
  /** "exit code 134", "signal SIGKILL" … */
  exit: string;
  /** V8 reported that the heap limit was reached (stderr). */
  outOfMemory: boolean;
}

const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed/i;

/** The file this process logs to (the sync process writes its lines there too), or null. */
function logFileOfThisProcess(): string | null {
  try {
    return logger.transports.file.getFile().path;
  } catch {
    return null;
  }
}

/** One sync process: resolves when it posted `done`, rejects on its error or exit. */
function runProcess(options: StartSyncOptions & { runId: string }, heapLimit: SyncHeapLimit | undefined, onRun: (run: SyncRun) => void): Promise<void> {
  const data: SyncStartData = {
    cacheFile: options.cacheFile,
    baseUrl: options.baseUrl,
    tokens: { accessToken: options.tokens.accessToken, refreshToken: options.tokens.refreshToken ?? null },
    accountId: options.accountId ?? null,
    pageSize: options.pageSize,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    resources: [...options.resources],
    runId: options.runId,
    profileId: options.profileId ?? '',
    logFile: logFileOfThisProcess(),
    previews: options.previews ?? false,
    keptFilters: options.keptFilters ?? false,
    historyRetentionDays: options.historyRetentionDays ?? DEFAULT_HISTORY_RETENTION_DAYS,
    views: [...(options.views ?? [])],
    encoding: options.encoding ?? DEFAULT_QUERY_ENCODING,
  };
  const launch = options.launcher ?? nodeSyncProcessLauncher;
  const child = launch(options.processUrl ?? defaultSyncProcessUrl(), [...SYNC_PROCESS_FLAGS, ...heapLimitArgs(heapLimit)]);
  if (child.pid !== undefined) options.onProcessStart?.(child.pid);
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const onAbort = () => child.postMessage({ type: 'cancel' } satisfies SyncControlMessage);
    child.postMessage({ type: 'start', data } satisfies SyncControlMessage);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const ended = (stats: SyncProcessStats) => {
      // The process has closed the cache before its last message: nothing left to wait for.
      child.kill();
      logger.info(`sync process: peak RSS ${Math.round(stats.maxRssBytes / 2 ** 20)} MiB, CPU ${Math.round(stats.cpuMs)} ms, heap limit ${Math.round(stats.heapLimitBytes / 2 ** 20)} MiB`);
      options.onProcessEnd?.(stats);
    };
    child.onMessage((message) => {
      const msg = message as SyncProcessMessage;
      if (msg.type === 'progress') options.onProgress?.(msg.value);
      else if (msg.type === 'outcome') options.onOutcome?.(msg.value);
      else if (msg.type === 'run') onRun(msg.run);
      else if (msg.type === 'viewProgress') options.onViewProgress?.(msg.viewId, msg.value);
      else if (msg.type === 'view') options.onViewRefreshed?.(msg.refresh);
      else if (msg.type === 'done') finish(() => (ended(msg.stats), resolve()));
      else if (msg.type === 'error') finish(() => (ended(msg.stats), reject(fromErrorPayload(msg.error))));
    });
    child.onExit((exit) => {
      if (settled) return;
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      const failure: SyncProcessFailure = { code: 'ERR_SYNC_PROCESS_EXIT', exit: how, outOfMemory: OUT_OF_MEMORY.test(exit.stderrTail) };
      if (exit.stderrTail.trim()) logger.error(`sync process ended without a result (${how}); its last output:\n${exit.stderrTail.trim()}`);
      finish(() => reject(new LetterdeskError('INTERNAL', `The sync process stopped unexpectedly (${how}${failure.outOfMemory ? ', out of memory' : ''}). Details are in the log file.`, { cause: failure })));
    });
  });
}
