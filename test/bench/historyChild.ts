/**
 * Benchmark child: what observing the changes (cache/build/observe.ts) costs a sync. From a synced
 * cache, a copy is made; into it the same records are staged with a share of them changed
 * (contacts: a new street line; orders: a new status and every recipient's delivery flipped), as
 * a second sync would stage them; then it builds and publishes as the sync does, and the two steps
 * of the observation are timed where they run: comparing the observed fields (after the build's
 * comparison of the records) and storing the changes in the history (inside the publish). The
 * history's growth over the observations stored is its size per change. Usage:
 * `node test/bench/historyChild.ts '<json HistoryChildInput>'`; prints one `BENCH_RESULT {…}` line.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { Resource } from '../../shared/serviceRecords.ts';
import { historyFileOf, historyFileSet } from '../../electron/main/base/paths.ts';
import { StageWriter } from '../../electron/main/cache/build/ingest.ts';
import { buildObservationsNext, recordObservations } from '../../electron/main/cache/build/observe.ts';
import { buildNext, clearStage, publishNext } from '../../electron/main/cache/build/publish.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { report } from './lib.ts';

/** Input of the child. */
export interface HistoryChildInput {
  /** A synced cache (left as it is). */
  cacheFile: string;
  /** Where the two copies go (removed afterwards). */
  dir: string;
  resources: Resource[];
  /** One record in this many is changed. */
  every: number;
}

/** What one resource measured. */
export interface HistoryTiming {
  rows: number;
  changed: number;
  /** Staging, build and publish with the observation, ms. */
  totalMs: number;
  /** Of it, comparing the observed fields, ms. */
  compareMs: number;
  /** Of it, storing the changes in the history, ms. */
  storeMs: number;
  observations: number;
  bytes: number;
}

/** What the child prints. */
export type HistoryChildResult = Partial<Record<Resource, HistoryTiming>>;

const PAGE = 1000;

/** The record `raw` as the second read would bring it: changed when it is the `every`-th. */
function changedRecord(resource: Resource, raw: string, i: number, every: number): { record: unknown; changed: boolean } {
  const record = JSON.parse(raw) as Record<string, unknown>;
  if (i % every !== 0) return { record, changed: false };
  if (resource === 'contacts') record.address1 = `${String(record.address1 ?? '')} Apt ${i % 97}`;
  else {
    record.status = record.status === 4 ? 3 : 4;
    for (const r of (record.contacts as Record<string, unknown>[] | undefined) ?? []) r.isDelivered = r.isDelivered !== true;
  }
  return { record, changed: true };
}

/** Stages every record of `source` into `db` with one in `every` changed, then builds and publishes, observing; ms. */
function secondSync(db: Database.Database, source: Database.Database, resource: Resource, every: number): HistoryTiming {
  const started = performance.now();
  const writer = new StageWriter(db);
  const total = source.prepare(`SELECT count(*) FROM ${resource}`).pluck().get() as number;
  const raws = source.prepare(`SELECT raw FROM ${resource} ORDER BY rowid`).pluck();
  let page: { ok: true; record: unknown }[] = [];
  let i = 0;
  let changed = 0;
  let n = 0;
  for (const raw of raws.iterate() as IterableIterator<string>) {
    const next = changedRecord(resource, raw, i++, every);
    if (next.changed) changed++;
    page.push({ ok: true, record: next.record });
    if (page.length === PAGE) {
      writer.writePage(resource, 1, n++, total, page);
      page = [];
    }
  }
  if (page.length > 0) writer.writePage(resource, 1, n, total, page);
  // The build compares the records; the observed fields are compared right after, on the same
  // `_next` tables the build's comparison used (its own call is left out to time this one).
  const rows = buildNext(db, resource, 'bench', { compare: true, observe: false });
  const compareStart = performance.now();
  buildObservationsNext(db, resource);
  const compareMs = performance.now() - compareStart;
  let stored = { observations: 0, bytes: 0 };
  let storeMs = 0;
  publishNext(db, resource, () => {
    const t = performance.now();
    stored = recordObservations(db, resource, { runId: 'bench', after: new Date(0).toISOString(), atOrBefore: new Date().toISOString() });
    storeMs = performance.now() - t;
  });
  clearStage(db, resource);
  return { totalMs: performance.now() - started, compareMs, storeMs, rows, changed, ...stored };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as HistoryChildInput;
  const source = openCache(input.cacheFile);
  source.pragma('wal_checkpoint(TRUNCATE)');
  const result: HistoryChildResult = {};
  try {
    for (const resource of input.resources) {
      const copy = resolve(input.dir, 'history-copy.sqlite');
      copyFileSync(input.cacheFile, copy);
      const db = openCache(copy, { skipCheck: true });
      try {
        result[resource] = secondSync(db, source, resource, input.every);
      } finally {
        db.close();
        for (const part of ['', '-wal', '-shm']) rmSync(copy + part, { force: true });
        for (const part of historyFileSet(historyFileOf(copy))) rmSync(part, { force: true });
      }
    }
  } finally {
    source.close();
  }
  report(result);
}

await main();
