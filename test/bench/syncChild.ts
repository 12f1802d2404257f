/**
 * Benchmark child: one full sync from a sample API into a fresh cache file, in its own process,
 * which plays the Electron main process. Usage: `node test/bench/syncChild.ts '<json SyncChildInput>'`.
 *
 * Modes:
 *  - `core`: exactly what the app does — a core (core.ts) with its database worker open, session
 *    tokens set through the `setCredentials` call, the `startSync` call through `dispatchCall`, then
 *    waiting for the `syncFinished` events (the core runs the sync controller → the sync process
 *    with its default concurrency);
 *  - `controller`: `startSync` of sync/controller.ts directly (the sync process, any concurrency);
 *  - `engine`: `runSync` on this process's main thread (what the app would suffer without the
 *    sync process).
 * The sync process's memory is sampled by its pid while it runs and reported by itself at its end.
 * Prints one `BENCH_RESULT {…}` line (see {@link SyncChildResult}).
 */
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { SyncProgress, SyncRun } from '../../shared/contract.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import type { SyncProcessStats } from '../../electron/main/sync/process.ts';
import { importOptional, lateTicks, peakRss, pssTotalSampler, report, rssSampler, type PssTotal, type RssParts } from './lib.ts';

/** Input of the child. */
export interface SyncChildInput {
  cacheFile: string;
  baseUrl: string;
  resources: Resource[];
  pageSize: number;
  concurrency: number;
  mode: 'core' | 'controller' | 'engine';
  /** `core` mode: the data directory whose active profile owns `cacheFile`. */
  dataDir?: string;
  /** The sync process's entry as the app ships it (`out/main/syncProcess.js`); default: the sources. */
  syncProcess?: string;
  /** `engine` mode: read the kept filters after the records (sync/keptRefresh.ts). @default false */
  keptFilters?: boolean;
}

/** Times of one resource, in ms since the sync started. */
export interface ResourceTiming {
  startMs: number;
  /** First 'verifying' phase (all pages fetched and written). */
  fetchedMs: number | null;
  /** 'indexing' started. */
  indexingMs: number | null;
  /** 'done' (published: searchable). */
  doneMs: number | null;
  rows: number;
}

/** What the child prints. */
export interface SyncChildResult {
  mode: 'core' | 'controller' | 'engine';
  totalMs: number;
  /** CPU time (user + system) over the sync, ms: this process (every thread) plus the sync process(es). */
  cpuMs: number;
  runs: SyncRun[];
  timings: Partial<Record<Resource, ResourceTiming>>;
  /** Largest event-loop delay of this (main) thread during the sync, ms. */
  maxEventLoopDelayMs: number;
  /** p99 of the event-loop delay, ms. */
  p99EventLoopDelayMs: number;
  /**
   * The largest lateness of a 5 ms timer (≈ the largest delay): when (ms since the sync started,
   * and the late span in epoch ms), in which `resource:phase`, and how much of it this process's
   * garbage collection paused the thread (ms).
   */
  worstDelay: { ms: number; atMs: number; phase: string; fromEpochMs: number; toEpochMs: number; gcMs: number };
  /**
   * Peak RSS of the syncing process (bytes): the sync process as it measured itself (`ru_maxrss`,
   * the largest of its attempts); in `engine` mode this process (VmHWM).
   */
  peakRssBytes: number | null;
  /** RSS of this process — the main process: core, database worker — before the sync (bytes). */
  baseRssBytes: number;
  /** Peak RSS of this process (VmHWM, bytes) at the end of the sync. */
  mainPeakRssBytes: number | null;
  /** Largest sampled RSS / RssAnon / RssFile of the syncing process over the sync, and per `resource:phase`. */
  rssMax: RssParts;
  rssByPhase: Record<string, RssParts>;
  /** Largest sampled RSS of this process while the sync ran (bytes). */
  mainRssMax: RssParts;
  /** The same per `resource:phase` of the sync. */
  mainRssByPhase: Record<string, RssParts>;
  /**
   * What the main process and the sync process held together at most (PSS sampled at the same
   * moment, every 250 ms: one read of `smaps_rollup` takes ≈ 2.4 ms of this process's CPU at
   * 280 MiB, every 25 ms it slowed the sync; parts = [main, sync]); null in `engine` mode or where
   * Linux gives no PSS.
   */
  appPssMax: PssTotal | null;
  /** The sync process's entry that ran (the build), or null: the sources. */
  syncProcess: string | null;
  progressEvents: number;
  /** With `keptFilters`: the kept values read, how many failed, and ms from the last resource published to the end. */
  kept: { values: number; failed: number; ms: number } | null;
}

type StartSync = (options: {
  cacheFile: string;
  baseUrl: string;
  tokens: { accessToken: string; refreshToken: string | null };
  accountId: string | null;
  pageSize: number;
  resources: Resource[];
  concurrency?: number;
  signal: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  processUrl?: URL;
  onProcessStart?: (pid: number) => void;
  onProcessEnd?: (stats: SyncProcessStats) => void;
}) => Promise<SyncRun[]>;

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as SyncChildInput;
  const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
  // The app migrates the cache before it starts the sync process (core.ts): do the same, untimed.
  const db = openCache(input.cacheFile);
  const controller = input.mode === 'controller' ? await importOptional<{ startSync?: StartSync }>('electron/main/sync/controller.ts') : null;
  const startSync = controller?.startSync ?? null;
  if (input.mode !== 'engine') db.close();

  // core mode: the app's path, set up before the clock starts (the app has its cache open and its
  // tokens set before anyone clicks Sync).
  let progressSink: ((p: SyncProgress) => void) | null = null;
  const finished: SyncRun[] = [];
  let onFinished: (() => void) | null = null;
  let core: Core | null = null;
  // The sync process reports what it used when it ends; its RSS is also sampled while it runs.
  const rss = rssSampler(25, input.mode === 'engine' ? 'self' : null);
  const syncProcesses: SyncProcessStats[] = [];
  const onProcessStart = (pid: number): void => {
    rss.pid = pid;
  };
  const onProcessEnd = (stats: SyncProcessStats): void => {
    syncProcesses.push(stats);
  };
  const processUrl = input.syncProcess ? pathToFileURL(input.syncProcess) : undefined;
  let call: ((name: string, payload: unknown) => Promise<unknown>) | null = null;
  if (input.mode === 'core') {
    core = createCore({
      dataDir: input.dataDir ?? '', version: 'bench', logFile: null, keychain: 'session-only', autoSyncAfterMinutes: 0,
      onSyncProcessStart: onProcessStart, onSyncProcessEnd: onProcessEnd, ...(processUrl ? { syncProcessUrl: processUrl } : {}),
      platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
      emit: (event, payload) => {
        if (event === 'syncProgress') progressSink?.(payload as SyncProgress);
        if (event === 'syncFinished') {
          finished.push(payload as SyncRun);
          onFinished?.();
        }
      },
    });
    const handlers = createHandlers(core);
    call = async (name, payload) => {
      const result = await dispatchCall(handlers, name, payload);
      if (!result.ok) throw new Error(`${name}: ${result.error.code} ${result.error.message}`);
      return result.value;
    };
    const profileId = core.activeProfile().id;
    await call('setCredentials', { profileId, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, sessionOnly: true });
    await call('queryContacts', { query: {}, window: { offset: 0, limit: 100 } });
    // The app at rest before someone clicks Sync: the database worker loads the export module 1 s
    // after it starts (cache/worker/client.ts), ≈ 10 MiB that would otherwise count as the sync's.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }

  const timings: Partial<Record<Resource, ResourceTiming>> = {};
  let events = 0;
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const baseRss = process.memoryUsage().rss;
  const mainRss = rssSampler(25);
  const appPss = input.mode === 'engine' ? null : pssTotalSampler(() => ['self', typeof rss.pid === 'number' ? rss.pid : null], 250);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const onProgress = (p: Pick<SyncProgress, 'resource' | 'phase' | 'rowsDone'>): void => {
    events += 1;
    rss.label = `${p.resource}:${p.phase}`;
    mainRss.label = rss.label;
    const now = performance.now() - t0;
    const t = (timings[p.resource] ??= { startMs: now, fetchedMs: null, indexingMs: null, doneMs: null, rows: 0 });
    if (p.phase === 'verifying' && t.fetchedMs === null) t.fetchedMs = now;
    if (p.phase === 'indexing' && t.indexingMs === null) t.indexingMs = now;
    if (p.phase === 'done') {
      t.doneMs = now;
      t.rows = p.rowsDone;
    }
  };
  histogram.enable();
  // When the largest delay happened (the histogram only says how long): a 5 ms tick that notes
  // its largest lateness and the sync's phase then; with the garbage collections, which say
  // afterwards whether one of them was the delay.
  const stopTicks = lateTicks(() => mainRss.label || 'starting');
  const collections: { start: number; end: number }[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push({ start: performance.timeOrigin + e.startTime, end: performance.timeOrigin + e.startTime + e.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  let runs: SyncRun[];
  const keptOutcomes: string[] = [];
  if (call && core) {
    progressSink = onProgress;
    const done = new Promise<void>((resolve) => {
      onFinished = () => {
        if (finished.length >= input.resources.length || finished.some((r) => r.outcome !== 'succeeded')) resolve();
      };
    });
    await call('startSync', { resources: input.resources });
    await done;
    runs = finished;
  } else if (startSync) {
    runs = await startSync({
      cacheFile: input.cacheFile, baseUrl: input.baseUrl, tokens, accountId: null, pageSize: input.pageSize,
      resources: input.resources, concurrency: input.concurrency, signal: new AbortController().signal, onProgress,
      onProcessStart, onProcessEnd, ...(processUrl ? { processUrl } : {}),
    });
  } else {
    runs = await runSync(db, createHttpPageSource({ baseUrl: input.baseUrl, tokens }), {
      resources: input.resources, pageSize: input.pageSize, concurrency: input.concurrency, onProgress,
      keptFilters: input.keptFilters ?? false, onKeptRead: (outcome) => keptOutcomes.push(outcome.outcome),
    });
    db.close();
  }
  const totalMs = performance.now() - t0;
  const recordsMs = Math.max(...Object.values(timings).map((t) => t.doneMs ?? 0));
  const cpu = process.cpuUsage(cpu0);
  const mainPeak = peakRss();
  // The sync is over: stop measuring before the core closes (not part of the sync).
  histogram.disable();
  const { worst } = stopTicks();
  gcObserver.disconnect();
  const worstDelay = {
    ms: worst.ms, atMs: worst.ms > 0 ? worst.atEpochMs - performance.timeOrigin - t0 : 0, phase: worst.label,
    fromEpochMs: worst.atEpochMs - worst.ms, toEpochMs: worst.atEpochMs, gcMs: 0,
  };
  for (const c of collections) worstDelay.gcMs += Math.max(0, Math.min(c.end, worstDelay.toEpochMs) - Math.max(c.start, worstDelay.fromEpochMs));
  await core?.close();
  const rssMax = rss.stop();
  const mainRssMax = mainRss.stop();
  const appPssMax = appPss?.stop() ?? null;
  const result: SyncChildResult = {
    mode: core ? 'core' : startSync ? 'controller' : 'engine',
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000 + syncProcesses.reduce((sum, p) => sum + p.cpuMs, 0),
    runs,
    timings,
    maxEventLoopDelayMs: histogram.max / 1e6,
    p99EventLoopDelayMs: histogram.percentile(99) / 1e6,
    worstDelay,
    peakRssBytes: syncProcesses.length > 0 ? Math.max(...syncProcesses.map((p) => p.maxRssBytes)) : (mainPeak ?? rss.max),
    baseRssBytes: baseRss,
    mainPeakRssBytes: mainPeak,
    rssMax,
    rssByPhase: rss.byLabel,
    mainRssMax,
    mainRssByPhase: mainRss.byLabel,
    appPssMax,
    syncProcess: input.syncProcess ?? null,
    progressEvents: events,
    kept: input.keptFilters ? { values: keptOutcomes.length, failed: keptOutcomes.filter((o) => o !== 'succeeded').length, ms: totalMs - recordsMs } : null,
  };
  report(result);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
