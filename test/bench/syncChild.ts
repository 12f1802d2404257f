/**
 * Benchmark child: one full sync from a sample API into a fresh cache file, in its own process,
 * which plays the Electron main process. Usage: `node test/bench/syncChild.ts '<json SyncChildInput>'`.
 *
 * The sync goes through the sync controller (`electron/main/sync/controller.ts`, the worker thread
 * the app uses) when it exists, else through `runSync` on this process's main thread (then the
 * event-loop figure shows what the app would suffer without the worker). Prints one
 * `BENCH_RESULT {…}` line (see {@link SyncChildResult}).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { SyncProgress, SyncRun } from '../../shared/contract.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/db.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { importOptional, peakRss, report, rssSampler, type RssParts } from './lib.ts';

/** Input of the child. */
export interface SyncChildInput {
  cacheFile: string;
  baseUrl: string;
  resources: Resource[];
  pageSize: number;
  concurrency: number;
  /** 'auto': the controller when present, else the engine. */
  mode: 'auto' | 'engine';
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
  mode: 'controller' | 'engine';
  totalMs: number;
  /** CPU time (user + system) of the process, every thread, over the sync, ms. */
  cpuMs: number;
  runs: SyncRun[];
  timings: Partial<Record<Resource, ResourceTiming>>;
  /** Largest event-loop delay of this (main) thread during the sync, ms. */
  maxEventLoopDelayMs: number;
  /** p99 of the event-loop delay, ms. */
  p99EventLoopDelayMs: number;
  /** Peak RSS of the process (VmHWM, bytes), worker threads included. */
  peakRssBytes: number | null;
  /** RSS before the sync started (bytes). */
  baseRssBytes: number;
  /** Largest sampled RSS / RssAnon / RssFile over the sync, and per `resource:phase`. */
  rssMax: RssParts;
  rssByPhase: Record<string, RssParts>;
  progressEvents: number;
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
}) => Promise<SyncRun[]>;

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as SyncChildInput;
  const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
  // The app migrates the cache before it starts the sync worker (core.ts): do the same, untimed.
  const db = openCache(input.cacheFile);
  const controller = input.mode === 'auto' ? await importOptional<{ startSync?: StartSync }>('electron/main/sync/controller.ts') : null;
  const startSync = controller?.startSync ?? null;
  if (startSync) db.close();

  const timings: Partial<Record<Resource, ResourceTiming>> = {};
  let events = 0;
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const baseRss = process.memoryUsage().rss;
  const rss = rssSampler(25);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const onProgress = (p: Pick<SyncProgress, 'resource' | 'phase' | 'rowsDone'>): void => {
    events += 1;
    rss.label = `${p.resource}:${p.phase}`;
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
  let runs: SyncRun[];
  if (startSync) {
    runs = await startSync({
      cacheFile: input.cacheFile, baseUrl: input.baseUrl, tokens, accountId: null, pageSize: input.pageSize,
      resources: input.resources, concurrency: input.concurrency, signal: new AbortController().signal, onProgress,
    });
  } else {
    runs = await runSync(db, createHttpPageSource({ baseUrl: input.baseUrl, tokens }), {
      resources: input.resources, pageSize: input.pageSize, concurrency: input.concurrency, onProgress,
    });
    db.close();
  }
  const totalMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  histogram.disable();
  const rssMax = rss.stop();
  const result: SyncChildResult = {
    mode: startSync ? 'controller' : 'engine',
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    runs,
    timings,
    maxEventLoopDelayMs: histogram.max / 1e6,
    p99EventLoopDelayMs: histogram.percentile(99) / 1e6,
    peakRssBytes: peakRss() ?? rss.max,
    baseRssBytes: baseRss,
    rssMax,
    rssByPhase: rss.byLabel,
    progressEvents: events,
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
