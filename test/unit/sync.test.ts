import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, hostname } from 'node:os';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Resource } from '../../shared/serviceRecords.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { countContacts, getContact, getOrder, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { pageSizeWithin } from '../../electron/main/sync/decisions.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import type { StagedRecord } from '../../electron/main/cache/build/ingest.ts';
import { LetterdeskError } from '../../shared/errors.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { acquireSyncLock } from '../../electron/main/sync/lock.ts';
import { syncLockPath } from '../../electron/main/base/paths.ts';
import { SYNC_PROCESS_FLAGS, nodeSyncProcessLauncher, type SyncProcessExit, type SyncProcessStats } from '../../electron/main/sync/process.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { logger } from '../../electron/main/base/log.ts';
import { WORKER_MIN_ROWS } from '../../electron/main/cache/build/searchIndexBuild.ts';
import { WRITER_MIN_ROWS } from '../../electron/main/cache/build/stageWriter.ts';

let dir: string;
const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-sync-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function source(api: SampleApi, extra: { retries?: number; backoffMs?: number } = {}): PageSource {
  return createHttpPageSource({ baseUrl: api.baseUrl, tokens, backoffMs: 5, ...extra });
}

/** A run with one request in flight, cancelled once `pages` pages are written (a run to continue later with the same runId). */
function runCancelledAfter(pages: number, db: Database.Database, pageSource: PageSource, options: { resources: Resource[]; pageSize: number; runId: string }) {
  const abort = new AbortController();
  return runSync(db, pageSource, {
    ...options, concurrency: 1, signal: abort.signal, progressIntervalMs: 0,
    onProgress: (p) => {
      if (p.pagesDone >= pages) abort.abort();
    },
  });
}

/** Every id of a resource in the cache vs. the server, and every raw record equal. */
function expectMirror(db: Database.Database, api: SampleApi, withOrders = true): void {
  const cacheContacts = db.prepare('SELECT id, raw FROM contacts').all() as { id: string; raw: string }[];
  const server = new Map<string, unknown>();
  for (const c of api.dataset.contacts()) server.set(c.id, c);
  expect(cacheContacts.length).toBe(server.size);
  for (const row of cacheContacts) expect(JSON.parse(row.raw)).toEqual(JSON.parse(JSON.stringify(server.get(row.id))));
  if (withOrders) expectOrders(db, api);
  const fts = (db.prepare('SELECT count(*) AS n FROM contacts_fts').get() as { n: number }).n;
  expect(fts).toBe(server.size);
}

function expectOrders(db: Database.Database, api: SampleApi): void {
  const cacheOrders = db.prepare('SELECT id, raw FROM orders').all() as { id: string; raw: string }[];
  const serverOrders = new Map<string, unknown>();
  for (const o of api.dataset.orders()) serverOrders.set(o.id, o);
  expect(cacheOrders.length).toBe(serverOrders.size);
  for (const row of cacheOrders) expect(JSON.parse(row.raw)).toEqual(JSON.parse(JSON.stringify(serverOrders.get(row.id))));
}

describe('sync against the sample API', () => {
  it('mirrors 10,000 contacts and 3,000 orders exactly, then follows deletes, edits and additions', async () => {
    const api = await startSampleApi({ contacts: 10_000, orders: 3_000, seed: 7 });
    const db = openCache(join(dir, 'clean.sqlite'));
    try {
      const t0 = performance.now();
      const runs = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 500 });
      console.log(`clean sync 10k+3k: ${Math.round(performance.now() - t0)} ms`);
      expect(runs.map((r) => [r.resource, r.outcome, r.rows])).toEqual([['contacts', 'succeeded', 10_000], ['orders', 'succeeded', 3_000]]);
      expectMirror(db, api);

      const ids = [...api.dataset.contactIds()];
      const gone = ids.slice(100, 105);
      for (const id of gone) api.dataset.deleteContact(id);
      api.dataset.updateContact(ids[200] as string, { city: 'Zürich-Changed' });
      const added = api.dataset.addContacts(7);
      api.dataset.deleteOrder([...api.dataset.orderIds()][10] as string);
      const runs2 = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 500 });
      expect(runs2.every((r) => r.outcome === 'succeeded')).toBe(true);
      expectMirror(db, api);
      // A deleted contact is kept as removed until the next sync of contacts publishes.
      expect(getContact(db, gone[0] as string)?.change).toBe('removed');
      expect(runs2[0]?.changes).toEqual({ added: 7, changed: 1, removed: 5 });
      expect(getContact(db, added[0] as string)).not.toBeNull();
      expect(queryContacts(db, { search: 'zurich-changed' }, { offset: 0, limit: 10 }).rows.map((r) => r.id)).toEqual([ids[200]]);
      const order = queryOrders(db, {}, { offset: 0, limit: 1 }).rows[0];
      expect(order).toBeDefined();
      expect(getOrder(db, order!.id)?.recipients.length).toBe(order!.recipients);
      expect(countContacts(db, {}).count).toBe(api.dataset.contactCount);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('a large first sync has its search index filled while the pages are staged, and a second one too', { timeout: 120_000 }, async () => {
    const contacts = WORKER_MIN_ROWS + 2_000;
    const api = await startSampleApi({ contacts, orders: 0, seed: 4 });
    const file = join(dir, 'staged.sqlite');
    const db = openCache(file);
    const said = vi.spyOn(logger, 'info');
    try {
      for (const round of [1, 2]) {
        if (round === 2) api.dataset.updateContact([...api.dataset.contactIds()][4321] as string, { lastName: 'Quillfeather' });
        said.mockClear();
        const runs = await runSync(db, source(api), { resources: ['contacts'], pageSize: 1000 });
        expect(runs.map((r) => [r.outcome, r.rows])).toEqual([['succeeded', contacts]]);
        const published = said.mock.calls.map((c) => String(c[0])).find((m) => m.startsWith('sync contacts:'));
        expect(published).toContain('search index built by a worker thread while the pages were staged');
        expectMirror(db, api, false);
        // Found by words of its own, under its own rowid: the index's rows are the mirror's.
        const probe = api.dataset.contactAt(contacts - 17);
        const hits = queryContacts(db, { search: `${probe.firstName} ${probe.lastName} ${probe.city}` }, { offset: 0, limit: 50 }).rows.map((r) => r.id);
        expect(hits).toContain(probe.id);
        if (round === 2) expect(queryContacts(db, { search: 'quillfeather' }, { offset: 0, limit: 5 }).rows.map((r) => r.id)).toEqual([[...api.dataset.contactIds()][4321]]);
        expect(readdirSync(dir).filter((n) => n.startsWith('staged.sqlite.contacts-'))).toEqual([]);
      }
    } finally {
      said.mockRestore();
      db.close();
      await api.close();
    }
  });
});

describe('a large read of orders, its pages written by a thread of their own', () => {
  it('is cancelled with every page in the thread committed, then continued to the same mirror', { timeout: 180_000 }, async () => {
    const orders = WRITER_MIN_ROWS + 2_000;
    const api = await startSampleApi({ contacts: 300, orders, seed: 5 });
    const db = openCache(join(dir, 'orders-thread.sqlite'));
    const said = vi.spyOn(logger, 'info');
    try {
      // Cancelled with four requests in flight, so pages are in the thread's hands when it stops.
      const abort = new AbortController();
      const [cancelled] = await runSync(db, source(api), {
        resources: ['orders'], pageSize: 1000, runId: 'orders-thread', progressIntervalMs: 0, signal: abort.signal,
        onProgress: (p) => {
          if (p.pagesDone >= 30) abort.abort();
        },
      });
      expect(cancelled?.outcome).toBe('cancelled');
      // Every page recorded has its rows staged: the thread committed or rolled back each one.
      const pages = db.prepare("SELECT count(*) AS pages, coalesce(sum(rows), 0) AS rows FROM sync_pages WHERE resource = 'orders'").get() as { pages: number; rows: number };
      expect(pages.pages).toBeGreaterThanOrEqual(30);
      expect(db.prepare('SELECT count(*) FROM stage_orders').pluck().get()).toBe(pages.rows);
      said.mockClear();
      const [resumed] = await runSync(db, source(api), { resources: ['orders'], pageSize: 1000, runId: 'orders-thread' });
      expect([resumed?.outcome, resumed?.rows]).toEqual(['succeeded', orders]);
      const published = said.mock.calls.map((c) => String(c[0])).find((m) => m.startsWith('sync orders:'));
      expect(published).toContain('pages staged by a writer thread');
      expectOrders(db, api);
    } finally {
      said.mockRestore();
      db.close();
      await api.close();
    }
  });
});

describe('the sync lock (one sync per cache file across processes)', () => {
  it('is refused while held, taken over when its process is gone, and released only by its owner', () => {
    const cache = join(dir, 'locked.sqlite');
    const release = acquireSyncLock(cache);
    expect(JSON.parse(readFileSync(syncLockPath(cache), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(() => acquireSyncLock(cache)).toThrow(expect.objectContaining({ code: 'BUSY', message: expect.stringMatching(new RegExp(`^Another Letterdesk \\(process ${process.pid}, `)) }));
    // A lock that outlived a crash (its process id reused): the message says which file to delete.
    expect(() => acquireSyncLock(cache)).toThrow(expect.objectContaining({ message: expect.stringContaining(`If no Letterdesk is running there, delete ${syncLockPath(cache)} and try again.`) }));
    release();
    expect(() => readFileSync(syncLockPath(cache))).toThrow(/ENOENT/);

    // Left by a process that has ended (killed during a sync): stale, taken over.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(syncLockPath(cache), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), startedAt: new Date().toISOString() }));
    const again = acquireSyncLock(cache);
    expect(JSON.parse(readFileSync(syncLockPath(cache), 'utf8'))).toMatchObject({ pid: process.pid });
    // Taken over by someone else meanwhile: this owner's release leaves their lock alone.
    const theirs = JSON.stringify({ pid: 1, host: 'other-host', startedAt: new Date().toISOString() });
    writeFileSync(syncLockPath(cache), theirs);
    again();
    expect(readFileSync(syncLockPath(cache), 'utf8')).toBe(theirs);
    // A lock written on another host (a shared data folder) cannot be checked from here: held.
    expect(() => acquireSyncLock(cache)).toThrow(expect.objectContaining({ code: 'BUSY', message: expect.stringMatching(/process 1 on other-host/) }));
    rmSync(syncLockPath(cache));
  });
});

describe('pageSizeWithin', () => {
  it('divides the page size when a divisor is at least half of what fits, else takes what fits; a page within the budget, a short page or one row is kept', () => {
    expect(pageSizeWithin(1000, 1000, 2_700_000, 1_048_576)).toBe(250); // 388 fit; 250 divides 1,000
    expect(pageSizeWithin(500, 500, 1_350_000)).toBe(250);
    expect(pageSizeWithin(499, 499, 1_350_000)).toBe(387); // a prime: 387 fit, page 0 is asked again
    expect(pageSizeWithin(1000, 1000, 100_000_000)).toBe(10);
    expect(pageSizeWithin(1000, 1000, 660_000)).toBe(1000);
    expect(pageSizeWithin(1000, 400, 5_000_000)).toBe(1000); // fewer rows than asked: the whole result
    expect(pageSizeWithin(1, 1, 5_000_000)).toBe(1);
  });
});

describe('sync process launcher', () => {
  it('keeps the stderr tail whole when a character is split across two writes of the process', async () => {
    // "é" is two bytes in UTF-8 (c3 a9); the process writes them 50 ms apart, so they arrive as two
    // chunks. Decoded chunk by chunk, the tail would hold two replacement characters instead.
    const script = join(dir, 'split-stderr.mjs');
    writeFileSync(script, "process.stderr.write(Buffer.from([0x63, 0x61, 0x66, 0xc3]));\nsetTimeout(() => { process.stderr.write(Buffer.from([0xa9, 0x0a])); process.exit(3); }, 50);\n");
    const child = nodeSyncProcessLauncher(pathToFileURL(script), []);
    const exit = await new Promise<SyncProcessExit>((resolve) => child.onExit(resolve));
    expect(exit.code).toBe(3);
    expect(exit.stderrTail).toBe('café\n');
  });

  it("starts the process with gc() exposed and glibc's arenas capped, only the allowed variables of the parent kept", async () => {
    const script = join(dir, 'report-env.mjs');
    writeFileSync(script, 'process.stderr.write(`${process.env.MALLOC_ARENA_MAX} ${typeof globalThis.gc} ${process.env.LD_TEST_PARENT ?? "dropped"} ${process.env.PATH === undefined ? "no PATH" : "PATH"}`);\n');
    process.env.LD_TEST_PARENT = 'kept';
    try {
      const child = nodeSyncProcessLauncher(pathToFileURL(script), [...SYNC_PROCESS_FLAGS]);
      const exit = await new Promise<SyncProcessExit>((resolve) => child.onExit(resolve));
      expect(exit.code).toBe(0);
      expect(exit.stderrTail).toBe('2 function dropped PATH');
    } finally {
      delete process.env.LD_TEST_PARENT;
    }
  });

  it('runs the sync at a lower priority than the app: every thread of the sync process, not just its first', async () => {
    const child = nodeSyncProcessLauncher(new URL('../../electron/main/syncProcess.ts', import.meta.url), []);
    const pid = child.pid!;
    /** The nice value of each thread (Linux: field 19 of /proc/<pid>/task/<tid>/stat), else the process's. */
    const niceValues = (): number[] => {
      if (process.platform !== 'linux') return [getPriority(pid)];
      return readdirSync(`/proc/${pid}/task`).map((tid) => {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
    };
    try {
      // The entry lowers its priority as it loads; then it waits for its 'start' message.
      await vi.waitFor(() => expect(niceValues().every((n) => n === 10)).toBe(true), { timeout: 10_000, interval: 50 });
      expect(niceValues().length).toBeGreaterThan(process.platform === 'linux' ? 1 : 0);
      expect(getPriority()).toBe(0); // this process (the app's side) keeps its own
    } finally {
      child.kill();
    }
  });
});

describe('sync failures, drift, cancel, resume', () => {
  it('a continued run reports each invalid record it kept once, those of the first page included', async () => {
    const api = await startSampleApi({ contacts: 2000, orders: 0, seed: 23 });
    const db = openCache(join(dir, 'resume-invalid.sqlite'));
    try {
      api.setFaults({ invalidRecordRate: 0.2, endpoints: ['contacts'] });
      const first = await runCancelledAfter(6, db, source(api), { resources: ['contacts'], pageSize: 100, runId: 'invalid-run' });
      expect(first[0]?.outcome).toBe('cancelled');
      const resumed = await runSync(db, source(api), { resources: ['contacts'], pageSize: 100, progressIntervalMs: 0, runId: 'invalid-run' });
      expect(resumed[0]).toMatchObject({ outcome: 'succeeded', rows: 2000 });
      const kept = db.prepare('SELECT count(*) FROM contacts WHERE invalid_reason IS NOT NULL').pluck().get() as number;
      expect(kept).toBeGreaterThan(0);
      expect(resumed[0]?.invalidRecords).toBe(kept);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('survives every fault type with retries and keeps invalid records with their reason', async () => {
    const api = await startSampleApi({ contacts: 1500, orders: 300, seed: 11 });
    const db = openCache(join(dir, 'faults.sqlite'));
    try {
      for (const faults of [
        { serverErrorRate: 0.5, maxFaults: 4 },
        { dropRate: 0.5, maxFaults: 4 },
        { truncateRate: 0.5, maxFaults: 4 },
        { htmlErrorRate: 0.5, maxFaults: 4 },
        { rateLimitRate: 0.5, retryAfterSeconds: 0, maxFaults: 4 },
      ]) {
        api.setFaults(faults);
        const runs = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 200 });
        expect(runs.map((r) => r.outcome), JSON.stringify([faults, runs])).toEqual(['succeeded', 'succeeded']);
        expect(api.stats().faults).toBeGreaterThan(0);
        expectMirror(db, api);
      }
      api.setFaults({ invalidRecordRate: 0.05 });
      const runs = await runSync(db, source(api), { resources: ['contacts'], pageSize: 200 });
      expect(runs[0]?.outcome).toBe('succeeded');
      expect(runs[0]?.invalidRecords).toBeGreaterThan(0);
      const bad = db.prepare('SELECT count(*) AS n FROM contacts WHERE invalid_reason IS NOT NULL').get() as { n: number };
      expect(bad.n).toBe(runs[0]?.invalidRecords);
      expect(runs[0]?.rows).toBe(1500);

      // Faults that never stop: the run fails with the client's code and the snapshot stays.
      api.setFaults({ serverErrorRate: 1 });
      const failed = await runSync(db, source(api, { retries: 1 }), { resources: ['contacts'], pageSize: 200 });
      expect(failed[0]).toMatchObject({ outcome: 'failed', error: { code: 'SERVER_ERROR' } });
      expect((db.prepare('SELECT count(*) AS n FROM contacts').get() as { n: number }).n).toBe(1500);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('stops on 401 with AUTH_REJECTED and keeps the previous snapshot', async () => {
    const api = await startSampleApi({ contacts: 300, orders: 50 });
    const db = openCache(join(dir, 'auth.sqlite'));
    try {
      await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 100 });
      const bad = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: 'wrong', refreshToken: 'wrong' } });
      const runs = await runSync(db, bad, { resources: ['contacts', 'orders'], pageSize: 100 });
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ outcome: 'failed', error: { code: 'AUTH_REJECTED' } });
      expect(queryContacts(db, {}, { offset: 0, limit: 1 }).total.count).toBe(300);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('detects drift while paging and repairs it by reading again; a server that caps pageSize is followed', async () => {
    const api = await startSampleApi({ contacts: 2000, orders: 100, seed: 5, maxPageSize: 100 });
    const db = openCache(join(dir, 'drift.sqlite'));
    try {
      api.setFaults({ drift: { inserts: 2, deletes: 1 }, invalidRecordRate: 0.05, endpoints: ['contacts'] });
      let pages = 0;
      const runs = await runSync(db, source(api), {
        resources: ['contacts'], pageSize: 500, concurrency: 2, progressIntervalMs: 0,
        onProgress: (p) => {
          if (p.phase === 'fetching' && ++pages === 8) api.setFaults({ invalidRecordRate: 0.05, endpoints: ['contacts'] }); // the server settles after a while
        },
      });
      expect(runs[0]?.outcome, JSON.stringify(runs)).toBe('succeeded');
      // Drift was seen and repaired by at least one more full read of the (capped, 100-row) pages.
      expect(api.stats().byEndpoint.contacts).toBeGreaterThan(2 * 20);
      const cache = (db.prepare('SELECT id FROM contacts').all() as { id: string }[]).map((r) => r.id).sort();
      expect(cache).toEqual([...api.dataset.contactIds()].sort());
      // The run reports the invalid records it kept, not those of every pass added up.
      const kept = db.prepare('SELECT count(*) FROM contacts WHERE invalid_reason IS NOT NULL').pluck().get() as number;
      expect(kept).toBeGreaterThan(0);
      expect(runs[0]?.invalidRecords).toBe(kept);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('a service that numbers its pages from 1 (§4.2 leaves it open for orders) is found out and read again from 1, losing nothing', async () => {
    const api = await startSampleApi({ contacts: 2050, orders: 10, seed: 8 });
    const db = openCache(join(dir, 'one-based.sqlite'));
    try {
      // Page 1 is the first page; page 0 is served as page 1 too (what such services do).
      const inner = source(api);
      const oneBased: PageSource = { fetchPage: (resource, page, size, signal) => inner.fetchPage(resource, Math.max(0, page - 1), size, signal) };
      const runs = await runSync(db, oneBased, { resources: ['contacts'], pageSize: 100 });
      expect(runs[0]).toMatchObject({ outcome: 'succeeded', rows: 2050, invalidRecords: 0 });
      expectMirror(db, api, false);
      // A service that counts from 0 costs nothing extra: one read of the 21 pages.
      const before = api.stats().byEndpoint.contacts;
      expect((await runSync(db, source(api), { resources: ['contacts'], pageSize: 100 }))[0]?.outcome).toBe('succeeded');
      expect(api.stats().byEndpoint.contacts - before).toBe(21);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('a service counting from 0 that refuses pages past the last (HTTP 404) is not failed by the check for counting from 1, nor taken for one when the count moves', async () => {
    const api = await startSampleApi({ contacts: 250, orders: 0, seed: 9 });
    const db = openCache(join(dir, 'past-last.sqlite'));
    try {
      const inner = source(api);
      const asked: number[] = [];
      let newcomer = true;
      const strict: PageSource = {
        async fetchPage(resource, page, size, signal) {
          if (page * size >= 250) {
            asked.push(page);
            if (newcomer) {
              // The first time, a contact was added just now: a row past the end, and a count of 251.
              newcomer = false;
              const last = await inner.fetchPage(resource, 2, size, signal);
              return { ...last, count: 251, records: last.records.slice(0, 1) };
            }
            throw new LetterdeskError('BAD_RESPONSE', `GET /contacts failed: unexpected HTTP 404. Check that the profile's base URL is the service's address ending in /api/v1.`);
          }
          const p = await inner.fetchPage(resource, page, size, signal);
          // A stable service that lists its first contact again in place of the last one of page 1:
          // every read comes up one id short, so the check runs after each.
          if (page === 1) p.records[p.records.length - 1] = (await inner.fetchPage(resource, 0, size, signal)).records[0] as StagedRecord;
          return p;
        },
      };
      const runs = await runSync(db, strict, { resources: ['contacts'], pageSize: 100 });
      expect(runs[0]).toMatchObject({ outcome: 'succeeded', rows: 249, invalidRecords: 1 });
      expect(asked).toEqual([3, 3, 3]);
      // Read from 0 throughout: page 0's contacts are there.
      const firstPage = (await inner.fetchPage('contacts', 0, 100, new AbortController().signal)).records.map((r) => (r.ok ? (r.record as { id: string }).id : ''));
      expect(db.prepare(`SELECT count(*) FROM contacts WHERE id IN (${firstPage.map(() => '?').join(',')})`).pluck().get(...firstPage)).toBe(100);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('drift that never settles fails with DRIFT, and its message says what the cache still holds', async () => {
    const api = await startSampleApi({ contacts: 400, orders: 10, seed: 6 });
    const db = openCache(join(dir, 'drift-forever.sqlite'));
    try {
      // A first sync: nothing was cached before, so nothing "previous" may be promised.
      api.setFaults({ drift: { inserts: 1 }, endpoints: ['contacts'] });
      const first = await runSync(db, source(api), { resources: ['contacts'], pageSize: 100, maxPasses: 2 });
      expect(first[0]).toMatchObject({ outcome: 'failed', error: { code: 'DRIFT' } });
      expect(first[0]?.error?.message).toMatch(/kept changing while they were read \(2 full reads did not agree\)\. No contacts are cached yet\./);
      expect(first[0]?.error?.message).not.toMatch(/before|previous/);
      expect(countContacts(db, {}).count).toBe(0);

      // Once contacts are published, the same failure says they are still shown, and they are.
      api.setFaults({});
      expect((await runSync(db, source(api), { resources: ['contacts'], pageSize: 100 }))[0]?.outcome).toBe('succeeded');
      const cached = countContacts(db, {}).count;
      api.setFaults({ drift: { inserts: 1 }, endpoints: ['contacts'] });
      const later = await runSync(db, source(api), { resources: ['contacts'], pageSize: 100, maxPasses: 2 });
      expect(later[0]).toMatchObject({ outcome: 'failed', error: { code: 'DRIFT' } });
      expect(later[0]?.error?.message).toMatch(/The contacts cached before are still shown, unchanged\./);
      expect(countContacts(db, {}).count).toBe(cached);

      // Again, right after a failed repair (its staging says pass 2): the limit still holds, two
      // full reads and a DRIFT, not a repair that starts over for ever.
      const pages = Math.ceil((cached + 10) / 100);
      const before = api.stats().byEndpoint.contacts;
      const guard = AbortSignal.timeout(30_000);
      const again = await runSync(db, source(api), { resources: ['contacts'], pageSize: 100, maxPasses: 2, signal: guard });
      expect(again[0]).toMatchObject({ outcome: 'failed', error: { code: 'DRIFT' } });
      expect(api.stats().byEndpoint.contacts - before).toBeLessThanOrEqual(2 * (pages + 2));
    } finally {
      db.close();
      await api.close();
    }
  });

  it('readers never see a half-finished sync; cancel keeps the old snapshot, and the next sync reads every page again', async () => {
    const api = await startSampleApi({ contacts: 2000, orders: 10, seed: 9 });
    const file = join(dir, 'cancel.sqlite');
    const db = openCache(file);
    const reader = openCache(file, { skipCheck: true });
    try {
      await runSync(db, source(api), { resources: ['contacts'], pageSize: 500 });
      api.dataset.addContacts(300);
      const abort = new AbortController();
      const seenByReader: number[] = [];
      const runs = await runSync(db, source(api), {
        resources: ['contacts'], pageSize: 100, concurrency: 2, signal: abort.signal, progressIntervalMs: 0,
        onProgress: (p) => {
          seenByReader.push(countContacts(reader, {}).count);
          if (p.pagesDone >= 8) abort.abort();
        },
      });
      expect(runs[0]?.outcome).toBe('cancelled');
      expect(new Set(seenByReader)).toEqual(new Set([2000]));
      expect(countContacts(reader, {}).count).toBe(2000);
      const written = (db.prepare("SELECT count(*) AS n FROM sync_pages WHERE resource = 'contacts'").get() as { n: number }).n;
      expect(written).toBeGreaterThanOrEqual(8);
      const before = api.stats().byEndpoint.contacts;
      // Between two runs the service may have changed in ways its count does not show (one contact
      // deleted, one added): the next run cannot trust the pages written, and reads all 23 again.
      api.dataset.deleteContact([...api.dataset.contactIds()][3] as string);
      api.dataset.addContacts(1);
      const next = await runSync(db, source(api), { resources: ['contacts'], pageSize: 100 });
      expect(next[0]?.outcome).toBe('succeeded');
      expect(api.stats().byEndpoint.contacts - before).toBe(23);
      expect(countContacts(reader, {}).count).toBe(2300);
      expectMirror(db, api, false);
    } finally {
      reader.close();
      db.close();
      await api.close();
    }
  });

  it('a sync process killed mid-way leaves an intact file and the previous snapshot; the next sync completes', async () => {
    const api = await startSampleApi({ contacts: 1000, orders: 5, seed: 13 });
    const file = join(dir, 'kill.sqlite');
    const db = openCache(file);
    await runSync(db, source(api), { resources: ['contacts'], pageSize: 500 });
    db.close();
    api.dataset.addContacts(1500);
    api.setFaults({ latencyMs: 40 });
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(import.meta.dirname, '../fixtures/syncChild.ts'), file, api.baseUrl, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = [...buf.matchAll(/fetching (\d+)/g)].at(-1);
        if (m && Number(m[1]) >= 6) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((r) => child.once('exit', r));
    api.setFaults({});
    const db2 = openCache(file);
    try {
      expect(db2.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(countContacts(db2, {}).count).toBe(1000);
      const written = (db2.prepare("SELECT count(*) AS n FROM sync_pages WHERE resource = 'contacts'").get() as { n: number }).n;
      expect(written).toBeGreaterThanOrEqual(6);
      const runs = await runSync(db2, source(api), { resources: ['contacts'], pageSize: 100 });
      expect(runs[0]?.outcome).toBe('succeeded');
      expect(countContacts(db2, {}).count).toBe(2500);
      const ids = (db2.prepare('SELECT id FROM contacts').all() as { id: string }[]).map((r) => r.id).sort();
      expect(ids).toEqual([...api.dataset.contactIds()].sort());
    } finally {
      db2.close();
      await api.close();
    }
  });

  it('keeps each request within the page budget: a page over it is divided (its rows not read again) or asked again smaller; a continued run keeps the size', async () => {
    // Orders of the sample API are ~2,700 characters a row, contacts ~660: with the default budget
    // (1 MiB), 500 orders a page (~1.35 M characters) is over it and 500 contacts are not.
    const api = await startSampleApi({ contacts: 1000, orders: 3000, seed: 21 });
    const db = openCache(join(dir, 'budget.sqlite'));
    try {
      const totals: Record<string, number | null> = {};
      const runs = await runSync(db, source(api), {
        resources: ['contacts', 'orders'], pageSize: 500, concurrency: 2, progressIntervalMs: 0,
        onProgress: (p) => (totals[p.resource] = p.pagesTotal),
      });
      expect(runs.map((r) => [r.resource, r.outcome, r.rows])).toEqual([['contacts', 'succeeded', 1000], ['orders', 'succeeded', 3000]]);
      expectMirror(db, api);
      // Contacts: 2 pages of 500. Orders: page 0 of 500 is pages 0 and 1 of 250; then pages 2 … 11.
      expect(totals).toEqual({ contacts: 2, orders: 12 });
      expect(api.stats().byEndpoint).toEqual({ contacts: 2, orders: 1 + 10 });

      // 499 rows (a prime): no divisor is near the size that fits, so page 0 is asked again with it.
      const before = api.stats().byEndpoint.orders;
      const again = await runSync(db, source(api), { resources: ['orders'], pageSize: 499, progressIntervalMs: 0, onProgress: (p) => (totals.orders = p.pagesTotal) });
      expect(again[0]?.outcome).toBe('succeeded');
      expect(totals.orders).toBeGreaterThan(Math.ceil(3000 / 499));
      expect(api.stats().byEndpoint.orders - before).toBe(1 + (totals.orders ?? 0));
      expectOrders(db, api);

      // Cancelled half-way, then the same run continued (as the controller continues a run whose
      // process ended) with the profile's 500: the staging's 250 is kept.
      const cancelled = await runCancelledAfter(5, db, source(api), { resources: ['orders'], pageSize: 500, runId: 'budget-run' });
      expect(cancelled[0]?.outcome).toBe('cancelled');
      const written = (db.prepare("SELECT count(*) AS n FROM sync_pages WHERE resource = 'orders'").get() as { n: number }).n;
      expect(written).toBeGreaterThanOrEqual(5);
      expect((db.prepare("SELECT page_size AS n FROM sync_state WHERE resource = 'orders'").get() as { n: number }).n).toBe(250);
      const beforeResume = api.stats().byEndpoint.orders;
      const resumed = await runSync(db, source(api), { resources: ['orders'], pageSize: 500, progressIntervalMs: 0, runId: 'budget-run', onProgress: (p) => (totals.orders = p.pagesTotal) });
      expect(resumed[0]?.outcome).toBe('succeeded');
      expect(totals.orders).toBe(12);
      // Page 0 is read again (always); the written pages are not.
      expect(api.stats().byEndpoint.orders - beforeResume).toBe(12 - written + 1);
      expectOrders(db, api);
    } finally {
      db.close();
      await api.close();
    }
  });

  it('startSync runs the sync in a process of its own, reports progress and records the runs', async () => {
    const { startSync } = await import('../../electron/main/sync/controller.ts');
    const api = await startSampleApi({ contacts: 1200, orders: 200, seed: 2 });
    const file = join(dir, 'controller.sqlite');
    openCache(file).close();
    try {
      const phases = new Set<string>();
      const runs = await startSync({
        cacheFile: file, baseUrl: api.baseUrl, tokens, accountId: null, pageSize: 250, resources: ['contacts', 'orders'], runId: 'run-1',
        onProgress: (p) => phases.add(p.phase),
      });
      expect(runs.map((r) => [r.runId, r.outcome, r.rows])).toEqual([['run-1', 'succeeded', 1200], ['run-1', 'succeeded', 200]]);
      expect([...phases]).toEqual(expect.arrayContaining(['fetching', 'indexing', 'publishing', 'done']));
      const abort = new AbortController();
      abort.abort();
      const cancelled = await startSync({ cacheFile: file, baseUrl: api.baseUrl, tokens, accountId: null, pageSize: 250, resources: ['contacts'], signal: abort.signal });
      expect(cancelled[0]?.outcome).toBe('cancelled');
      const denied = await startSync({ cacheFile: file, baseUrl: api.baseUrl, tokens: { accessToken: 'x', refreshToken: null }, accountId: null, pageSize: 250, resources: ['contacts'] });
      expect(denied[0]?.error?.code).toBe('AUTH_REJECTED');
    } finally {
      await api.close();
    }
  });

  it('a cancel during the fetch reaches the sync process: the run ends cancelled, the process ends, and the next sync reads every page again', async () => {
    const { startSync } = await import('../../electron/main/sync/controller.ts');
    const api = await startSampleApi({ contacts: 3000, orders: 0, seed: 6 });
    const file = join(dir, 'cancel-process.sqlite');
    openCache(file).close();
    const base = { cacheFile: file, baseUrl: api.baseUrl, tokens, accountId: null, pageSize: 100, concurrency: 1, resources: ['contacts'] as Resource[] };
    try {
      const abort = new AbortController();
      const ends: unknown[] = [];
      const pids: number[] = [];
      const cancelled = await startSync({
        ...base, signal: abort.signal, onProcessStart: (pid) => pids.push(pid), onProcessEnd: (stats) => ends.push(stats),
        onProgress: (p) => {
          if (p.phase === 'fetching' && p.pagesDone >= 5) abort.abort();
        },
      });
      expect(cancelled.map((r) => [r.resource, r.outcome])).toEqual([['contacts', 'cancelled']]);
      expect(pids).toHaveLength(1);
      expect(ends, 'the process reported its end').toHaveLength(1);
      // It ran with the first heap limit (96 MiB old generation + the young one), not the default (GBs).
      expect((ends[0] as SyncProcessStats).heapLimitBytes).toBeGreaterThan(96 * 2 ** 20);
      expect((ends[0] as SyncProcessStats).heapLimitBytes).toBeLessThan(256 * 2 ** 20);
      const alive = () => {
        try {
          process.kill(pids[0] as number, 0);
          return true;
        } catch {
          return false;
        }
      };
      await vi.waitFor(() => expect(alive()).toBe(false), { timeout: 5000 });
      const before = api.stats().byEndpoint.contacts;
      const runs = await startSync(base);
      expect(runs.map((r) => [r.resource, r.outcome, r.rows])).toEqual([['contacts', 'succeeded', 3000]]);
      // A new run does not trust the cancelled one's pages (the service may have changed since).
      expect(api.stats().byEndpoint.contacts - before).toBe(30);
    } finally {
      await api.close();
    }
  });

  it('a sync process that runs out of its heap limit ends with that cause, and the cache keeps its previous snapshot', async () => {
    const { startSync } = await import('../../electron/main/sync/controller.ts');
    const api = await startSampleApi({ contacts: 3000, orders: 300, seed: 4 });
    const file = join(dir, 'heap.sqlite');
    openCache(file).close();
    const tiny = { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 };
    try {
      const failed = await startSync({ cacheFile: file, baseUrl: api.baseUrl, tokens, accountId: null, pageSize: 1000, resources: ['contacts'], heapLimits: [tiny] }).then(() => null, (e: unknown) => e);
      expect(failed, 'an 8 MB heap cannot hold the sync').toMatchObject({ code: 'INTERNAL', cause: { code: 'ERR_SYNC_PROCESS_EXIT', outOfMemory: true } });
      expect((failed as Error).message).toMatch(/sync process stopped unexpectedly \(.*out of memory\)/);
      const db = openCache(file, { skipCheck: true });
      try {
        expect((db.prepare('SELECT count(*) AS n FROM contacts').get() as { n: number }).n).toBe(0);
      } finally {
        db.close();
      }
    } finally {
      await api.close();
    }
  });

  it('a sync process killed mid-fetch is replaced by one with the next heap limit, which resumes from the pages written and completes', async () => {
    const { startSync } = await import('../../electron/main/sync/controller.ts');
    const api = await startSampleApi({ contacts: 3000, orders: 300, seed: 4 });
    // Pages of contacts arrive slower than progress is reported, so the kill lands mid-fetch.
    api.setFaults({ latencyMsByEndpoint: { contacts: 40 } });
    const file = join(dir, 'killed.sqlite');
    openCache(file).close();
    const pids: number[] = [];
    const ends: SyncProcessStats[] = [];
    let killed = false;
    try {
      const runs = await startSync({
        cacheFile: file, baseUrl: api.baseUrl, tokens, accountId: null, pageSize: 250, concurrency: 1, resources: ['contacts', 'orders'], runId: 'killed-run',
        heapLimits: [undefined, undefined],
        onProcessStart: (pid) => pids.push(pid),
        onProcessEnd: (stats) => ends.push(stats),
        onProgress: (p) => {
          if (!killed && p.resource === 'contacts' && p.phase === 'fetching' && p.pagesDone >= 4) {
            killed = true;
            process.kill(pids[0] as number, 'SIGKILL');
          }
        },
      });
      expect(killed).toBe(true);
      expect(pids).toHaveLength(2);
      expect(pids[0]).not.toBe(process.pid);
      expect(pids[1]).not.toBe(pids[0]);
      expect(runs.map((r) => [r.runId, r.resource, r.outcome, r.rows])).toEqual([['killed-run', 'contacts', 'succeeded', 3000], ['killed-run', 'orders', 'succeeded', 300]]);
      // Only the process that reported a result reports what it used.
      expect(ends).toHaveLength(1);
      expect(ends[0]?.maxRssBytes).toBeGreaterThan(10 * 2 ** 20);
      expect(ends[0]?.cpuMs).toBeGreaterThan(0);
      // 12 pages of contacts. The first process asked page 0 and at least 4 more; reading all 12
      // again would make ≥ 17 requests, resuming makes page 0 again plus the pages not yet written.
      expect(api.stats().byEndpoint.contacts, 'the second process resumed instead of starting over').toBeLessThanOrEqual(16);
      const db = openCache(file, { skipCheck: true });
      try {
        expect((db.prepare('SELECT count(*) AS n FROM contacts').get() as { n: number }).n).toBe(3000);
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    } finally {
      await api.close();
    }
  });
});
