/**
 * The benchmark's slow-server section: does the sync hide a service's latency? Two settings, each
 * a sample API that adds a latency to every answer and the same server without it (same rows, same
 * page cap, pages prerendered), the same sync (the controller's `startSync` → the sync process, an
 * empty cache each time) against both:
 *
 *  - hidden: +50 ms, 1,000 rows a page (quick: 5,000 contacts at 100 a page, 50 pages). The
 *    sync should keep ≥ 0.9 of the rate it reaches without the latency. Rounds of (without, with)
 *    alternate, medians compared: at 100k a sync takes seconds and the machine's noise is ±15 %.
 *  - distant: +200 ms and a server that caps its pages at 100 rows (the profile asks its usual
 *    size; the sync finds the cap on page 0). The sync should keep ≥ 0.9 × the lower of
 *    (requests in flight × 100 rows / 200 ms) and its rate without the latency.
 *
 * Each runs with the app's default number of requests in flight, and with any others asked for
 * (`--slow-concurrency 4,6,8`: the sweep behind that default); rows of other numbers are printed.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fmt, mib, percentile, runChild, startSampleApiProcess, syncPageSize } from './lib.ts';
import { add, label, log, raw } from './results.ts';
import type { SyncChildInput, SyncChildResult } from './syncChild.ts';

/** What the section needs from the run. */
export interface SlowOptions {
  quick: boolean;
  /** The profile's rows per request. */
  pageSize: number;
  /** The app's default requests in flight: the one whose rows count as met or missed. */
  defaultConcurrency: number;
  /** Every number of requests in flight to measure (includes the default). */
  concurrencies: readonly number[];
  seed: number;
  /** Where the caches go (removed afterwards). */
  dir: string;
  /** The sync process's built entry, when the app was built. */
  syncProcess: { syncProcess?: string };
}

/** One setting of the section. */
interface Setting {
  key: 'hidden' | 'distant';
  latencyMs: number;
  /** The server's page cap (rows); the profile asks `pageSize`. */
  maxPageSize: number;
  /** Rows the profile asks a page. */
  asked: number;
  rounds: number;
}

/** One sync of the section: its end-to-end rate and where its time went. */
interface SlowRun {
  concurrency: number;
  latencyMs: number;
  rate: number;
  ms: number;
  /** From the first page asked until every page was fetched and written, ms. */
  fetchMs: number | null;
  /** From then until the contacts were published (verify, build, search index, publish), ms. */
  buildMs: number | null;
  peakRssBytes: number | null;
  cpuMs: number;
}

const CONTACTS_FULL = 100_000;
const CONTACTS_QUICK = 5_000;

async function syncOnce(api: { baseUrl: string }, setting: Setting, concurrency: number, latencyMs: number, contacts: number, options: SlowOptions): Promise<SlowRun> {
  const cacheFile = resolve(options.dir, `${setting.key}-${concurrency}-${latencyMs}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(cacheFile + suffix, { force: true });
  const input: SyncChildInput = { cacheFile, baseUrl: api.baseUrl, resources: ['contacts'], pageSize: setting.asked, concurrency, mode: 'controller', ...options.syncProcess };
  try {
    const { result } = await runChild<SyncChildResult>(resolve(import.meta.dirname, 'syncChild.ts'), input);
    const t = result.timings.contacts;
    if (!t?.doneMs || result.runs.some((r) => r.outcome !== 'succeeded')) throw new Error(`the sync did not succeed: ${result.runs.map((r) => `${r.outcome} ${r.error?.code ?? ''}`).join(', ')}`);
    const fetchMs = t.fetchedMs !== null ? t.fetchedMs - t.startMs : null;
    return {
      concurrency, latencyMs, rate: (contacts / t.doneMs) * 1000, ms: t.doneMs, fetchMs, buildMs: t.fetchedMs !== null ? t.doneMs - t.fetchedMs : null,
      peakRssBytes: result.peakRssBytes, cpuMs: result.cpuMs,
    };
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(cacheFile + suffix, { force: true });
  }
}

const median = (values: readonly number[]): number => percentile(values, 50);
const medianOrNull = (values: readonly (number | null)[]): number | null => (values.every((v) => v !== null) && values.length > 0 ? median(values as number[]) : null);

/** Runs one setting at every concurrency asked and adds its rows. */
async function runSetting(setting: Setting, contacts: number, options: SlowOptions): Promise<void> {
  // The pages the sync reads: the asked size within the sync's budget, then the server's cap.
  const served = Math.min(syncPageSize('contacts', { contacts, orders: 0, seed: options.seed }, setting.asked), setting.maxPageSize);
  const common = { contacts, orders: 0, seed: options.seed, prerenderPageSize: served, maxPageSize: setting.maxPageSize };
  const slow = await startSampleApiProcess({ ...common, latencyMs: setting.latencyMs });
  const fast = await startSampleApiProcess(common);
  const runs: SlowRun[] = [];
  try {
    for (const n of options.concurrencies) {
      for (let round = 0; round < setting.rounds; round++) {
        // Without the latency first, then with it: a slow spell of the machine falls on both sides.
        const f = await syncOnce(fast, setting, n, 0, contacts, options);
        const s = await syncOnce(slow, setting, n, setting.latencyMs, contacts, options);
        runs.push(f, s);
        log(`slow server (${setting.key}, +${setting.latencyMs} ms, ${served} a page), ${n} in flight${setting.rounds > 1 ? `, round ${round + 1} of ${setting.rounds}` : ''}: ${fmt(s.ms)} ms (fetch ${fmt(s.fetchMs)} + build ${fmt(s.buildMs)}), without the latency ${fmt(f.ms)} ms`);
      }
    }
  } finally {
    await slow.close();
    await fast.close();
  }
  raw[`slow.${setting.key}`] = { contacts, asked: setting.asked, served, latencyMs: setting.latencyMs, runs };

  for (const n of options.concurrencies) {
    const mine = runs.filter((r) => r.concurrency === n);
    const withLatency = mine.filter((r) => r.latencyMs > 0);
    const without = mine.filter((r) => r.latencyMs === 0);
    const rate = median(withLatency.map((r) => r.rate));
    const fastRate = median(without.map((r) => r.rate));
    const fetchMs = medianOrNull(withLatency.map((r) => r.fetchMs));
    const buildMs = medianOrNull(withLatency.map((r) => r.buildMs));
    const peak = Math.max(...withLatency.map((r) => r.peakRssBytes ?? 0));
    const rounds = setting.rounds > 1 ? `median of ${setting.rounds} rounds, without then with the latency in each: ${withLatency.map((r) => fmt(r.rate)).join(', ')} vs ${without.map((r) => fmt(r.rate)).join(', ')} rows/s; ` : '';
    // A page with the latency takes at least latency + the sync's own work; n of them in flight
    // bound the fetch at n pages per latency.
    const latencyBound = (n * served * 1000) / setting.latencyMs;
    const fetchRate = fetchMs ? (contacts / fetchMs) * 1000 : null;
    const where = `fetch phase ${fmt(fetchMs)} ms (${fmt(fetchRate)} rows/s; the latency alone allows ${fmt(latencyBound)}), then verify, build and publish ${fmt(buildMs)} ms; sync process peak RSS ${fmt(mib(peak))} MiB`;
    const isDefault = n === options.defaultConcurrency;
    const key = `slow.${setting.key}${isDefault ? '' : `.n${n}`}`;
    const scale = label(contacts);
    if (setting.key === 'hidden') {
      const ratio = rate / fastRate;
      add({
        key, name: `slow server, +${setting.latencyMs} ms an answer (${scale} contacts, ${fmt(served)} a page): sync rate with ${n} in flight${isDefault ? ' (the default)' : ''} vs the same sync without the latency`,
        value: rate, floor: fastRate, ratio, unit: 'rows/s', target: 'ratio ≥ 0.9', pass: isDefault ? ratio >= 0.9 : null,
        note: `${isDefault ? '' : `printed (not the default); it would ${ratio >= 0.9 ? 'pass' : 'fail'}; `}${rounds}${where}`,
      }, scale);
    } else {
      const floor = Math.min(latencyBound, fastRate);
      const ratio = rate / floor;
      // The build after the last page is not hidden by any number in flight: with the fetch at
      // the latency bound the ratio could reach at most T(fetch at the bound) / (that + build).
      const boundMs = (contacts / latencyBound) * 1000;
      const best = buildMs !== null ? boundMs / (boundMs + buildMs) : null;
      add({
        key, name: `slow server, +${setting.latencyMs} ms an answer, pages capped at ${fmt(served)} rows (${scale} contacts): sync rate with ${n} in flight${isDefault ? ' (the default)' : ''} vs min(${n} × ${fmt(served)} rows / ${setting.latencyMs} ms, the rate without the latency)`,
        value: rate, floor, ratio, unit: 'rows/s', target: 'ratio ≥ 0.9', pass: isDefault ? ratio >= 0.9 : null,
        note: `${isDefault ? '' : `printed (not the default); it would ${ratio >= 0.9 ? 'pass' : 'fail'}; `}floor = ${latencyBound <= fastRate ? 'the latency bound' : 'the rate without the latency'} (without: ${fmt(fastRate)} rows/s); ${where}; with the build after the last page, no fetch could lift the ratio above ${best === null ? '—' : best.toFixed(2)}`,
      }, scale);
    }
  }
}

/**
 * Runs the section: both settings at every concurrency of `options`, adding their rows.
 * @throws Error when a sync fails or a server does not start (the caller reports the section)
 */
export async function slowServer(options: SlowOptions): Promise<void> {
  const contacts = options.quick ? CONTACTS_QUICK : CONTACTS_FULL;
  rmSync(options.dir, { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  try {
    // 100k at 1,000 a page (100 pages), or 5k at 100 a page (quick: 50 pages, enough to see it work).
    await runSetting({ key: 'hidden', latencyMs: 50, maxPageSize: 1000, asked: options.quick ? 100 : options.pageSize, rounds: options.quick ? 1 : 3 }, contacts, options);
    await runSetting({ key: 'distant', latencyMs: 200, maxPageSize: 100, asked: options.pageSize, rounds: 1 }, contacts, options);
  } finally {
    rmSync(options.dir, { recursive: true, force: true });
  }
}
