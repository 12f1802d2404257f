/**
 * A read's pages written on a thread of their own (cache/stagingThread.ts, stagingWorker.ts) stage
 * exactly what the sync connection writes itself (ingest.ts `StageWriter`, the reference): the
 * same rows, recipients, invalid records and page bookkeeping, in real cache files with a real
 * thread. A page whose transaction fails rejects its own write and leaves nothing of itself, and
 * a sync reading over loopback HTTP fails with that error, keeping the pages written; when the
 * thread cannot run, the connection writes the pages and nothing is lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/db.ts';
import { StageWriter, pageValues, type StagedPage, type StagedRecord } from '../../electron/main/cache/ingest.ts';
import { MirrorStaging } from '../../electron/main/cache/staging.ts';
import { StagingThread, THREAD_MIN_PAGES } from '../../electron/main/cache/stagingThread.ts';
import { generateContact, generateOrder } from '../../electron/main/sampleApi/generate.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi } from '../../electron/main/sampleApi/server.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';

const PAGE = 200;
const PAGES = THREAD_MIN_PAGES + 4;
let dir: string;

/** Pages of sample records with invalid ones among them: a reason given, no id at all, a bad id. */
function pagesOf(resource: Resource): StagedRecord[][] {
  const total = PAGE * PAGES;
  const records: StagedRecord[] = Array.from({ length: total }, (_, i) => {
    const record = resource === 'contacts' ? generateContact(3, i, total) : generateOrder(3, i, total, total);
    if (i % 53 === 0) return { ok: false, id: null, raw: { ...(record as object), id: undefined }, reason: 'id missing' };
    if (i % 71 === 0) return { ok: false, id: String(i), raw: { ...(record as object), createdAt: 42 }, reason: 'createdAt: expected string' };
    return { ok: true, record };
  });
  return Array.from({ length: PAGES }, (_, p) => records.slice(p * PAGE, p * PAGE + PAGE));
}

/** Everything a read leaves in staging for `resource`, in a stable order. */
function stagingOf(db: Database.Database, resource: Resource): unknown[] {
  const tables = resource === 'contacts' ? ['stage_contacts'] : ['stage_orders', 'stage_order_recipients'];
  return [
    ...tables.map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).raw().all()),
    db.prepare('SELECT resource, pass, page, rows, server_count FROM sync_pages ORDER BY resource, pass, page').raw().all(),
  ];
}

function cache(name: string): Database.Database {
  return openCache(join(dir, `${name}.sqlite`));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-staging-thread-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('staged pages written on a thread of their own', () => {
  for (const resource of ['contacts', 'orders'] as const) {
    it(`stage the same ${resource} as the sync connection writes itself`, async () => {
      const pages = pagesOf(resource);
      const reference = cache(`${resource}-reference`);
      const writer = new StageWriter(reference);
      const expected = pages.map((records, page) => writer.writePage(resource, 1, page, PAGE * PAGES, records));

      const db = cache(`${resource}-thread`);
      const staging = new MirrorStaging(db, resource);
      staging.useThread(PAGES);
      // Four lanes at a time, as a read hands them over.
      const results: StagedPage[] = [];
      for (let p = 0; p < PAGES; p += 4) {
        const lanes = pages.slice(p, p + 4).map((records, i) => staging.writePage(1, p + i, PAGE * PAGES, records));
        // On the thread each write is a promise that settles once the page is committed.
        for (const lane of lanes) expect(lane).toBeInstanceOf(Promise);
        results.push(...(await Promise.all(lanes)));
      }
      await staging.settle();

      expect(results).toEqual(expected);
      expect(results.reduce((n, r) => n + r.invalid, 0)).toBeGreaterThan(0);
      expect(stagingOf(db, resource)).toEqual(stagingOf(reference, resource));
      expect(staging.pagesWritten(1, 0).pages.size).toBe(PAGES);
      expect(staging.idsStaged(1)).toBe(PAGE * PAGES);
      // Settled, the staging is the connection's again: the next page is written at once.
      expect(staging.writePage(2, 0, PAGE * PAGES, pages[0] as StagedRecord[])).not.toBeInstanceOf(Promise);
      reference.close();
      db.close();
    });
  }

  it('few pages are written by the connection itself', () => {
    const db = cache('few');
    const staging = new MirrorStaging(db, 'contacts');
    staging.useThread(THREAD_MIN_PAGES - 1);
    expect(staging.writePage(1, 0, PAGE, pagesOf('contacts')[0] as StagedRecord[])).not.toBeInstanceOf(Promise);
    db.close();
  });

  it("a page whose transaction fails rejects its own write with SQLite's code and leaves nothing of itself", async () => {
    const db = cache('failing');
    const thread = StagingThread.start(db);
    expect(thread).not.toBeNull();
    const pages = pagesOf('contacts').slice(0, 3).map((records, page) => pageValues('contacts', page, records));
    const outcomes = await Promise.allSettled([
      thread?.write(1, 0, 3 * PAGE, pages[0] as never),
      // `pass` is NOT NULL in staging: this page's transaction fails half way.
      thread?.write(null as unknown as number, 1, 3 * PAGE, pages[1] as never),
      thread?.write(1, 2, 3 * PAGE, pages[2] as never),
    ]);
    await thread?.settle();
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = (outcomes[1] as PromiseRejectedResult).reason as { code?: string; message: string };
    expect(reason.code).toMatch(/^SQLITE_CONSTRAINT/);
    expect(reason.message).toMatch(/stage_contacts\.pass/);
    expect(db.prepare('SELECT page FROM sync_pages ORDER BY page').pluck().all()).toEqual([0, 2]);
    const ids = new Set(db.prepare('SELECT id FROM stage_contacts').pluck().all());
    expect(ids.size).toBe(2 * PAGE);
    for (const id of pages[1]?.ids ?? []) expect(ids.has(id)).toBe(false);
    db.close();
  });

  it('when the thread cannot run, the connection writes every page and nothing is lost', async () => {
    const db = cache('no-thread');
    const thread = StagingThread.start(db, new URL('./no-such-staging-worker.js', import.meta.url));
    expect(thread).not.toBeNull();
    const pages = pagesOf('orders').slice(0, 4).map((records, page) => pageValues('orders', page, records));
    await Promise.all(pages.map((values, page) => thread?.write(1, page, 4 * PAGE, values)));
    // Pages handed over after the thread is gone are written at once, too.
    await thread?.write(1, 4, 4 * PAGE, pageValues('orders', 4, pagesOf('orders')[4] as StagedRecord[]));
    await thread?.settle();
    expect(db.prepare('SELECT page FROM sync_pages ORDER BY page').pluck().all()).toEqual([0, 1, 2, 3, 4]);
    expect(db.prepare('SELECT count(DISTINCT id) FROM stage_orders').pluck().get()).toBe(5 * PAGE);
    db.close();
  });

  it("a sync whose page write fails on the thread fails with that write's error and keeps the pages written", async () => {
    const api = await startSampleApi({ contacts: 3000, orders: 0, seed: 5 });
    const db = cache('sync-failing-write');
    try {
      // The cache refuses page 20's bookkeeping, in whichever connection writes it.
      db.exec("CREATE TRIGGER refuse_page BEFORE INSERT ON sync_pages WHEN NEW.page = 20 BEGIN SELECT RAISE(ABORT, 'page 20 refused by the test'); END");
      const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
      const [run] = await runSync(db, source, { resources: ['contacts'], pageSize: 100, concurrency: 4, runId: 'failing-write' });
      expect(run?.outcome).toBe('failed');
      expect(run?.error?.message).toMatch(/page 20 refused by the test/);
      const pages = db.prepare('SELECT page FROM sync_pages ORDER BY page').pluck().all() as number[];
      expect(pages).not.toContain(20);
      expect(pages.length).toBeGreaterThanOrEqual(THREAD_MIN_PAGES);
      // The rows of every page written are staged for the same run to continue; nothing was published.
      expect(db.prepare('SELECT count(*) FROM stage_contacts').pluck().get()).toBe(pages.length * 100);
      expect(db.prepare('SELECT count(*) FROM contacts').pluck().get()).toBe(0);
    } finally {
      db.close();
      await api.close();
    }
  });
});
