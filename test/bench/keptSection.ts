/**
 * The benchmark's kept-filters section: what reading the default kept filters after a sync costs
 * against a distant service. A sample API adds 50 ms to every answer; the profile asks 100 rows a
 * page; one sync (the engine, an empty cache) reads the contacts and orders, then every default
 * kept value (sync/keptRefresh.ts). The reads should end within 3 × the records' own sync time:
 * the partitioning filters (address status, order status, payment) each cost about one more read
 * of their resource, and last mailed in 30 days a part of one.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fmt, runChild, startSampleApiProcess } from './lib.ts';
import { addMax, label, log, raw } from './results.ts';
import type { SyncChildInput, SyncChildResult } from './syncChild.ts';

/** What the section needs from the run. */
export interface KeptOptions {
  quick: boolean;
  /** The app's default requests in flight. */
  concurrency: number;
  seed: number;
  /** Where the cache goes (removed afterwards). */
  dir: string;
}

const LATENCY_MS = 50;
const PAGE_SIZE = 100;
/** The records' sync time the kept reads should stay within. */
const MAX_RATIO = 3;

/**
 * Runs the section and adds its row.
 * @throws Error when the sync or a kept read fails, or the server does not start (the caller reports the section)
 */
export async function keptReads(options: KeptOptions): Promise<void> {
  const contacts = options.quick ? 5_000 : 100_000;
  const orders = Math.round(contacts * 0.3);
  rmSync(options.dir, { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  const api = await startSampleApiProcess({ contacts, orders, seed: options.seed, latencyMs: LATENCY_MS, maxPageSize: 1000 });
  try {
    const input: SyncChildInput = {
      cacheFile: resolve(options.dir, 'kept.db'), baseUrl: api.baseUrl, resources: ['contacts', 'orders'], pageSize: PAGE_SIZE,
      concurrency: options.concurrency, mode: 'engine', keptFilters: true,
    };
    const { result } = await runChild<SyncChildResult>(resolve(import.meta.dirname, 'syncChild.ts'), input);
    const kept = result.kept;
    if (result.runs.some((r) => r.outcome !== 'succeeded')) throw new Error(`the sync did not succeed: ${result.runs.map((r) => `${r.outcome} ${r.error?.code ?? ''}`).join(', ')}`);
    if (!kept || kept.values === 0 || kept.failed > 0) throw new Error(`the kept reads did not succeed: ${JSON.stringify(kept)}`);
    const recordsMs = result.totalMs - kept.ms;
    const ratio = kept.ms / recordsMs;
    raw.kept = { contacts, orders, latencyMs: LATENCY_MS, pageSize: PAGE_SIZE, concurrency: options.concurrency, recordsMs, keptMs: kept.ms, values: kept.values };
    log(`kept filters (+${LATENCY_MS} ms, ${PAGE_SIZE} a page): records ${fmt(recordsMs)} ms, then ${kept.values} kept values ${fmt(kept.ms)} ms (${ratio.toFixed(2)} ×)`);
    const scale = label(contacts);
    addMax(
      `${scale}.kept.reads`,
      `default kept filters' reads after a sync, +${LATENCY_MS} ms an answer, ${PAGE_SIZE} rows a page (${scale} contacts, ${label(orders)} orders): their time over the records' own sync time`,
      ratio, MAX_RATIO, '×',
      `${kept.values} values in ${fmt(kept.ms)} ms after the records' ${fmt(recordsMs)} ms; ${options.concurrency} requests in flight`,
    );
  } finally {
    await api.close();
    rmSync(options.dir, { recursive: true, force: true });
  }
}
