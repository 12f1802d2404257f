/**
 * Benchmark child: the Overview at the scale's synced cache. (1) What computing its record
 * numbers adds to a publish (cache/build/overview.ts): the same SELECTs the build runs over the new
 * mirror, run over the published one, for each resource; median of {@link BUILD_RUNS}. (2) The
 * Overview's read through the database worker (`overview`, what the IPC handler calls), after one
 * warming call: each of {@link READS} calls timed. Usage:
 * `node test/bench/overviewChild.ts '<json OverviewChildInput>'`; prints one `BENCH_RESULT {…}` line.
 */
import { pathToFileURL } from 'node:url';
import type { Resource } from '../../shared/serviceRecords.ts';
import { contactPartSelect, orderPartSelect } from '../../electron/main/cache/build/overview.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { CacheClient } from '../../electron/main/cache/worker/client.ts';
import { report } from './lib.ts';

/** Input of the child. */
export interface OverviewChildInput {
  /** A synced cache (only read). */
  cacheFile: string;
  resources: Resource[];
  /** The built database worker (`out/main/dbWorker.js`), or null to run it from the sources. */
  builtWorker: string | null;
}

/** What the child prints. */
export interface OverviewChildResult {
  /** Per resource, each run of its part's SELECT, ms. */
  buildMs: Partial<Record<Resource, number[]>>;
  /** Each call of the worker's `overview`, ms. */
  readMs: number[];
  contacts: number;
  orders: number;
}

const BUILD_RUNS = 3;
const READS = 30;

const input = JSON.parse(process.argv[2] ?? '{}') as OverviewChildInput;
const db = openCache(input.cacheFile);
const buildMs: OverviewChildResult['buildMs'] = {};
for (const resource of input.resources) {
  const select = resource === 'contacts' ? contactPartSelect('contacts', '?') : orderPartSelect('orders', 'order_first_seen', 'order_campaigns', 'order_templates', '?');
  const statement = db.prepare(select);
  const times: number[] = [];
  for (let i = 0; i < BUILD_RUNS; i++) {
    const started = performance.now();
    statement.get(new Date().toISOString());
    times.push(performance.now() - started);
  }
  buildMs[resource] = times;
}
db.close();

const client = await CacheClient.open(input.cacheFile, { startupReader: false, ...(input.builtWorker ? { workerUrl: pathToFileURL(input.builtWorker) } : {}) });
const first = await client.overview({});
const readMs: number[] = [];
for (let i = 0; i < READS; i++) {
  const started = performance.now();
  await client.overview({});
  readMs.push(performance.now() - started);
}
await client.close();
report({ buildMs, readMs, contacts: first.contacts.total, orders: first.orders.total } satisfies OverviewChildResult);
