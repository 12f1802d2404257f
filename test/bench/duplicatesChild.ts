/**
 * Benchmark child: the duplicate groups at the scale's synced cache. (1) Finding them after the
 * publish of the contacts (cache/build/duplicates.ts, what the sync runs before it reads the
 * orders), over the published mirror; median of {@link FIND_RUNS}. (2) What the Duplicates page
 * asks when it opens, through the database worker (`duplicateGroups`, what the IPC handler
 * calls): the first window at the default level and the other levels' totals, as the page sends
 * them (state/duplicates.svelte.ts); the first time after the worker opened, then {@link READS} times.
 * Usage: `node test/bench/duplicatesChild.ts '<json DuplicatesChildInput>'`; prints one
 * `BENCH_RESULT {…}` line.
 */
import { pathToFileURL } from 'node:url';
import { DEFAULT_DUPLICATE_LEVEL, DUPLICATE_LEVELS, DUPLICATE_PAGE_SIZE } from '../../shared/duplicates.ts';
import { findDuplicates, type DuplicatesFound } from '../../electron/main/cache/build/duplicates.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { CacheClient } from '../../electron/main/cache/worker/client.ts';
import { report } from './lib.ts';

/** Input of the child. */
export interface DuplicatesChildInput {
  /** A synced cache; its groups are found again (the same groups: the contacts are unchanged). */
  cacheFile: string;
  /** The built database worker (`out/main/dbWorker.js`), or null to run it from the sources. */
  builtWorker: string | null;
}

/** What the child prints. */
export interface DuplicatesChildResult {
  /** Each run of finding the groups, ms. */
  findMs: number[];
  /** What the last run found. */
  found: DuplicatesFound;
  /** The page's opening reads right after the worker opened, ms. */
  firstReadMs: number;
  /** Each later time the page's opening reads, ms. */
  readMs: number[];
  /** Groups at the default level, and the contacts in them. */
  groups: number;
  members: number;
}

const FIND_RUNS = 2;
const READS = 30;

const input = JSON.parse(process.argv[2] ?? '{}') as DuplicatesChildInput;
const db = openCache(input.cacheFile);
const findMs: number[] = [];
let found: DuplicatesFound | null = null;
for (let i = 0; i < FIND_RUNS; i++) {
  const started = performance.now();
  found = findDuplicates(db);
  findMs.push(performance.now() - started);
}
db.close();

const client = await CacheClient.open(input.cacheFile, { startupReader: false, ...(input.builtWorker ? { workerUrl: pathToFileURL(input.builtWorker) } : {}) });
/** The page's opening reads: its window, and a one-group window of each other level for the totals. */
const open = () => Promise.all([
  client.duplicateGroups({ level: DEFAULT_DUPLICATE_LEVEL, offset: 0, limit: DUPLICATE_PAGE_SIZE }),
  ...DUPLICATE_LEVELS.filter((l) => l !== DEFAULT_DUPLICATE_LEVEL).map((level) => client.duplicateGroups({ level, offset: 0, limit: 1 })),
]);
let started = performance.now();
const [first] = await open();
const firstReadMs = performance.now() - started;
const readMs: number[] = [];
for (let i = 0; i < READS; i++) {
  started = performance.now();
  await open();
  readMs.push(performance.now() - started);
}
await client.close();
if (!found) throw new Error('no run of findDuplicates');
report({ findMs, found, firstReadMs, readMs, groups: first.groups, members: first.contacts } satisfies DuplicatesChildResult);
