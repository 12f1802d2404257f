/**
 * Benchmark child: one CSV export through the handler table (the `exportCsv` call, with a save
 * dialog that answers the given path) and the database worker, in a fresh process that plays the
 * Electron main process. Usage: `node test/bench/exportChild.ts '<json ExportChildInput>'`.
 *
 * Reports the export time, the largest event-loop delay of this (main) thread while it ran, and the
 * memory growth: peak RSS of the process (VmHWM, worker included) minus its RSS just before the
 * export, after the cache was opened and answered a first query.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ExportRequest } from '../../shared/contract.ts';
import { createCore, type PlatformServices } from '../../electron/main/core.ts';
import { createHandlers } from '../../electron/main/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { peakRss, report, rssParts, rssSampler, type RssParts } from './lib.ts';

/** Input of the child. */
export interface ExportChildInput {
  dataDir: string;
  path: string;
  request: ExportRequest;
}

/** What the child prints. */
export interface ExportChildResult {
  rows: number;
  ms: number;
  maxEventLoopDelayMs: number;
  baseRssBytes: number;
  peakRssBytes: number;
  /** peak − base (bytes). */
  growthBytes: number;
  /** RSS split before the export and the largest sampled values during it. */
  before: RssParts;
  during: RssParts;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ExportChildInput;
  const platform: PlatformServices = {
    showSaveDialog: async () => input.path,
    showItemInFolder: () => {},
    openExternal: async () => {},
    setProgress: () => {},
  };
  const core = createCore({ dataDir: input.dataDir, version: 'bench', logFile: null, platform, emit: () => {}, keychain: 'session-only', autoSyncAfterMinutes: 0 });
  const handlers = createHandlers(core);
  const first = await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: 0, limit: 100 } });
  if (!first.ok) throw new Error(`first query failed: ${first.error.message}`);
  global.gc?.();
  const before = rssParts();
  const baseRss = before.rss;
  // VmHWM cannot be reset from inside the process; the sampler gives the peak after this point,
  // VmHWM is used only when it is higher than everything before (checked below).
  const hwmBefore = peakRss();
  const sampler = rssSampler(10);
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const t0 = performance.now();
  const result = await dispatchCall(handlers, 'exportCsv', input.request);
  const ms = performance.now() - t0;
  histogram.disable();
  const during = sampler.stop();
  const sampled = during.rss;
  if (!result.ok) throw new Error(`export failed: ${result.error.code} ${result.error.message}`);
  const hwm = peakRss();
  const peak = hwm !== null && hwmBefore !== null && hwm > hwmBefore ? Math.max(hwm, sampled) : sampled;
  await core.close();
  const out: ExportChildResult = {
    rows: (result.value as { rows: number }).rows,
    ms,
    maxEventLoopDelayMs: histogram.max / 1e6,
    baseRssBytes: baseRss,
    peakRssBytes: peak,
    growthBytes: peak - baseRss,
    before,
    during,
  };
  report(out);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
