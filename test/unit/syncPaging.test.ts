// Paging as the sync does it: runSync over the HTTP page source against the sample API on
// loopback. Page sizes, the account scope, an empty result, a server that caps the page size
// (also when a continued run meets it), bounded concurrency, each lane's next request sent once
// its last page is written, a cancel with requests in flight, a page that keeps failing, and
// faults: a 40 % mix, and 429 with Retry-After.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SyncProgress } from '../../shared/contract.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { createApiClient } from '../../electron/main/api/client.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { MirrorStaging, type ReadStaging, type StagedPage, type StagedRecord, type StagingState } from '../../electron/main/cache/build/staging.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runSync, type RunSyncOptions } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource, type HttpPageSourceOptions } from '../../electron/main/sync/httpSource.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import { SyncProgressMeter } from '../../electron/main/sync/progress.ts';
import { planRead, readUntilConsistent, type ResourceSync } from '../../electron/main/sync/read.ts';

const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
let dir: string;
let api: SampleApi;
let caches = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-sync-paging-'));
  api = await startSampleApi({ contacts: 2503, orders: 401, maxPageSize: 1000 });
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

function freshCache(): Database.Database {
  return openCache(join(dir, `cache-${++caches}.sqlite`));
}

function source(server: SampleApi, extra: Partial<HttpPageSourceOptions> = {}): PageSource {
  return createHttpPageSource({ baseUrl: server.baseUrl, tokens, backoffMs: 1, ...extra });
}

/** Ids in the cache, sorted. */
function cachedIds(db: Database.Database, resource: Resource): string[] {
  return (db.prepare(`SELECT id FROM ${resource}`).pluck().all() as string[]).sort();
}

/** Requests `run` made to `resource` of `server`, and its result. */
async function counted<T>(server: SampleApi, resource: Resource, run: () => Promise<T>): Promise<{ requests: number; result: T }> {
  const requests = counter(server, resource);
  const result = await run();
  return { requests: requests(), result };
}

/** Requests to `resource` of `server` from now on. */
function counter(server: SampleApi, resource: Resource): () => number {
  const before = server.stats().byEndpoint[resource];
  return () => server.stats().byEndpoint[resource] - before;
}

/**
 * A staging whose writes are committed at once but reported done only when the test releases
 * them, in the order they were handed over (a slow disk, or a busy writer thread).
 */
class HeldWrites implements ReadStaging {
  readonly held: (() => void)[] = [];
  handed = 0;
  readonly #inner: MirrorStaging;
  constructor(inner: MirrorStaging) {
    this.#inner = inner;
  }
  /** Reports the oldest held write as done. */
  release(): void {
    this.held.shift()?.();
  }
  async writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): Promise<StagedPage> {
    this.handed += 1;
    const staged = await this.#inner.writePage(pass, page, serverCount, records);
    await new Promise<void>((resolve) => this.held.push(resolve));
    return staged;
  }
  state(): StagingState | undefined {
    return this.#inner.state();
  }
  saveState(state: StagingState): void {
    this.#inner.saveState(state);
  }
  clear(): void {
    this.#inner.clear();
  }
  pagesWritten(pass: number, fromPage: number): { pages: Set<number>; rows: number } {
    return this.#inner.pagesWritten(pass, fromPage);
  }
  invalidStaged(pass: number): number {
    return this.#inner.invalidStaged(pass);
  }
  idsStaged(pass: number): number {
    return this.#inner.idsStaged(pass);
  }
  rowsLastSeenIn(pass: number): number {
    return this.#inner.rowsLastSeenIn(pass);
  }
  keepOnlyPass(pass: number): void {
    this.#inner.keepOnlyPass(pass);
  }
}

/** Syncs one resource; returns its run and the largest `pagesTotal` it announced. */
async function syncOne(db: Database.Database, pages: PageSource, resource: Resource, options: Omit<RunSyncOptions, 'resources'>) {
  let pagesTotal = null as number | null;
  const runs = await runSync(db, pages, {
    resources: [resource], progressIntervalMs: 0, ...options,
    onProgress: (p: SyncProgress) => {
      pagesTotal = p.pagesTotal;
      options.onProgress?.(p);
    },
  });
  return { run: runs[0], pagesTotal };
}

describe('paging in the sync', () => {
  it('mirrors every row once at several page sizes, asking each page once', async () => {
    const all = [...api.dataset.contactIds()].sort();
    for (const size of [37, 100, 1000]) {
      const db = freshCache();
      try {
        const { requests, result } = await counted(api, 'contacts', () => syncOne(db, source(api), 'contacts', { pageSize: size }));
        expect(result.run).toMatchObject({ outcome: 'succeeded', rows: 2503 });
        expect(result.pagesTotal).toBe(Math.ceil(2503 / size));
        expect(requests).toBe(Math.ceil(2503 / size));
        expect(cachedIds(db, 'contacts')).toEqual(all);
      } finally {
        db.close();
      }
    }
    const db = freshCache();
    try {
      const { requests, result } = await counted(api, 'orders', () => syncOne(db, source(api), 'orders', { pageSize: 7 }));
      expect(result.run).toMatchObject({ outcome: 'succeeded', rows: 401 });
      expect(requests).toBe(58);
      expect(cachedIds(db, 'orders')).toEqual([...api.dataset.orderIds()].sort());
    } finally {
      db.close();
    }
  });

  it('reads within the account scope, and mirrors an empty result with one request', async () => {
    const db = freshCache();
    try {
      const scoped = source(api, { accountId: 'acct-1002' });
      const runs = await runSync(db, scoped, { resources: ['contacts', 'orders'], pageSize: 50, accountId: 'acct-1002' });
      expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
      const contacts = [...api.dataset.contactIds()].filter((id) => api.dataset.accountIdOf('contacts', id) === 'acct-1002');
      const orders = [...api.dataset.orders()].filter((o) => o.meta.account_id === 'acct-1002').map((o) => o.id);
      expect(orders.length).toBeGreaterThan(0);
      expect(orders.length).toBeLessThan(401);
      expect(cachedIds(db, 'contacts')).toEqual(contacts.sort());
      expect(cachedIds(db, 'orders')).toEqual(orders.sort());

      const none = await counted(api, 'contacts', () => syncOne(db, source(api, { accountId: 'acct-none' }), 'contacts', { pageSize: 50, accountId: 'acct-none' }));
      expect(none.result.run).toMatchObject({ outcome: 'succeeded', rows: 0 });
      expect(none.result.pagesTotal).toBe(1);
      expect(none.requests).toBe(1);
      expect(cachedIds(db, 'contacts')).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('a page size the client cannot ask for fails the run with VALIDATION before any request', async () => {
    const db = freshCache();
    try {
      const { requests, result } = await counted(api, 'contacts', () => syncOne(db, source(api), 'contacts', { pageSize: 0 }));
      expect(result.run).toMatchObject({ outcome: 'failed', error: { code: 'VALIDATION' } });
      expect(requests).toBe(0);
    } finally {
      db.close();
    }
  });

  it('follows a server that caps the page size, and a continued run keeps reading at the cap', async () => {
    const capped = await startSampleApi({ contacts: 1234, orders: 10, maxPageSize: 100 });
    const db = freshCache();
    try {
      const client = createApiClient({ baseUrl: capped.baseUrl, getTokens: async () => tokens });
      const single = await client.listContacts({ page: 0, pageSize: 250 });
      expect(single.records).toHaveLength(100);
      expect(single.short).toBe(true);
      expect((await client.listContacts({ page: 12, pageSize: 100 })).short).toBe(false); // the last page is not short

      const all = [...capped.dataset.contactIds()].sort();
      // Page 0 at 250 (100 rows served), page 0 again at 100, then pages 1 … 12.
      const first = await counted(capped, 'contacts', () => syncOne(db, source(capped), 'contacts', { pageSize: 250 }));
      expect(first.result.run).toMatchObject({ outcome: 'succeeded', rows: 1234 });
      expect(first.result.pagesTotal).toBe(13);
      expect(first.requests).toBe(14);
      expect(cachedIds(db, 'contacts')).toEqual(all);

      // Cancelled after 5 pages, then continued by the same run: page 0 again plus the pages not written.
      const abort = new AbortController();
      const cancelled = await syncOne(db, source(capped), 'contacts', {
        pageSize: 250, concurrency: 1, runId: 'capped-run', signal: abort.signal,
        onProgress: (p) => {
          if (p.pagesDone >= 5) abort.abort();
        },
      });
      expect(cancelled.run?.outcome).toBe('cancelled');
      expect(db.prepare("SELECT page_size FROM sync_state WHERE resource = 'contacts'").pluck().get()).toBe(100);
      const written = db.prepare("SELECT count(*) FROM sync_pages WHERE resource = 'contacts'").pluck().get() as number;
      expect(written).toBeGreaterThanOrEqual(5);
      const resumed = await counted(capped, 'contacts', () => syncOne(db, source(capped), 'contacts', { pageSize: 250, runId: 'capped-run' }));
      expect(resumed.result.run).toMatchObject({ outcome: 'succeeded', rows: 1234 });
      expect(resumed.requests).toBe(1 + 13 - written);
      expect(cachedIds(db, 'contacts')).toEqual(all);
    } finally {
      db.close();
      await capped.close();
    }
  });

  it('a run continued after the server began to cap the page size reads every page again at the cap, skipping no row', async () => {
    // A server capping at `cap` serves page p from row p × cap, as the sample API does with maxPageSize.
    let cap = Infinity;
    const inner = source(api);
    const capping: PageSource = { fetchPage: (resource, page, size, signal) => inner.fetchPage(resource, page, Math.min(size, cap), signal) };
    const db = freshCache();
    try {
      const abort = new AbortController();
      const cancelled = await syncOne(db, capping, 'contacts', {
        pageSize: 250, concurrency: 1, runId: 'cap-later', signal: abort.signal,
        onProgress: (p) => {
          if (p.pagesDone >= 3) abort.abort();
        },
      });
      expect(cancelled.run?.outcome).toBe('cancelled');
      expect(db.prepare("SELECT page_size FROM sync_state WHERE resource = 'contacts'").pluck().get()).toBe(250);
      cap = 100;
      const { requests, result } = await counted(api, 'contacts', () => syncOne(db, capping, 'contacts', { pageSize: 250, runId: 'cap-later' }));
      expect(result.run).toMatchObject({ outcome: 'succeeded', rows: 2503 });
      // Page 0 at 250 (capped), at 100 (the staging of 250-row pages is discarded), then all 26 pages at 100.
      expect(requests).toBe(2 + 26);
      expect(cachedIds(db, 'contacts')).toEqual([...api.dataset.contactIds()].sort());
    } finally {
      db.close();
    }
  });

  it('keeps at most `concurrency` requests in flight (16 at most), and uses them', async () => {
    api.setFaults({ latencyMs: 15 });
    try {
      for (const [concurrency, expected] of [[1, 1], [3, 3], [20, 16]] as const) {
        let inflight = 0;
        let max = 0;
        const inner = source(api);
        const counting: PageSource = {
          async fetchPage(resource, page, size, signal) {
            max = Math.max(max, ++inflight);
            try {
              return await inner.fetchPage(resource, page, size, signal);
            } finally {
              inflight--;
            }
          },
        };
        const db = freshCache();
        try {
          const { run } = await syncOne(db, counting, 'contacts', { pageSize: 100, concurrency });
          expect(run).toMatchObject({ outcome: 'succeeded', rows: 2503 });
          expect(max).toBe(expected);
        } finally {
          db.close();
        }
      }
    } finally {
      api.setFaults({});
    }
  });

  it('each lane asks for its next page once its last one is written, so one page a lane is held', async () => {
    const db = freshCache();
    const writes = new HeldWrites(new MirrorStaging(db, 'contacts'));
    const startedMs = performance.now();
    const run: ResourceSync = {
      staging: writes, source: source(api), resource: 'contacts', query: null, label: 'contacts', runId: 'held', accountId: null,
      signal: new AbortController().signal, concurrency: 4, maxPasses: 5, pageCharsBudget: undefined, kept: '', startedMs,
      progress: new SyncProgressMeter({ profileId: '', runId: 'held', resource: 'contacts', intervalMs: 0 }, startedMs), invalid: 0,
    };
    const requests = counter(api, 'contacts');
    try {
      const read = readUntilConsistent(run, planRead(run, 100));
      // The first answer is written before the lanes start.
      await vi.waitFor(() => expect(writes.held).toHaveLength(1));
      writes.release();
      // Four lanes: each hands over a page and waits for it before it asks for another, so a lane
      // never holds a fetched page besides the one being written.
      await vi.waitFor(() => expect([requests(), writes.handed]).toEqual([1 + 4, 1 + 4]));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect([requests(), writes.handed]).toEqual([1 + 4, 1 + 4]);
      // One page committed: its lane asks for one more and hands it over.
      writes.release();
      await vi.waitFor(() => expect([requests(), writes.handed]).toEqual([1 + 5, 1 + 5]));
      const done = read.then(() => true);
      while (!(await Promise.race([done, new Promise((resolve) => setTimeout(() => resolve(false), 5))]))) writes.release();
      expect(writes.handed).toBe(26);
      expect(requests()).toBe(26);
      expect(writes.idsStaged(1)).toBe(2503);
    } finally {
      db.close();
    }
  });

  it('a cancel ends the requests in flight at once (CANCELLED) and asks no other page', async () => {
    api.setFaults({ latencyMs: 300 });
    const settled: string[] = [];
    let asked = 0;
    const inner = source(api);
    const watching: PageSource = {
      fetchPage(resource, page, size, signal) {
        asked++;
        return inner.fetchPage(resource, page, size, signal).then(
          (p) => (settled.push('ok'), p),
          (e: { code: string }) => {
            settled.push(e.code);
            throw e;
          },
        );
      },
    };
    const db = freshCache();
    try {
      const abort = new AbortController();
      let scheduled = false;
      const { run } = await syncOne(db, watching, 'contacts', {
        pageSize: 100, concurrency: 4, signal: abort.signal,
        onProgress: (p) => {
          // Page 0 is written; pages 1 … 4 are being fetched, each for 300 ms.
          if (!scheduled && p.phase === 'fetching' && p.pagesDone === 1) {
            scheduled = true;
            setTimeout(() => abort.abort(), 100);
          }
        },
      });
      expect(run?.outcome).toBe('cancelled');
      // The requests in flight settle as their aborts reach them.
      await vi.waitFor(() => expect(settled).toHaveLength(5));
      expect(asked).toBe(5);
      expect(settled).toEqual(['ok', 'CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED']);
      expect(cachedIds(db, 'contacts')).toEqual([]);
    } finally {
      db.close();
      api.setFaults({});
    }
  });

  it('a page that keeps failing ends the run with its code, and the previous snapshot stays', async () => {
    const db = freshCache();
    try {
      expect((await syncOne(db, source(api), 'orders', { pageSize: 10 })).run?.outcome).toBe('succeeded');
      let pages = 0;
      const { run } = await syncOne(db, source(api, { retries: 1 }), 'orders', {
        pageSize: 10,
        onProgress: (p) => {
          if (p.phase === 'fetching' && p.pagesDone > 0 && ++pages === 2) api.setFaults({ serverErrorRate: 1 });
        },
      });
      expect(run).toMatchObject({ outcome: 'failed', error: { code: 'SERVER_ERROR' } });
      expect(cachedIds(db, 'orders')).toEqual([...api.dataset.orderIds()].sort());
    } finally {
      db.close();
      api.setFaults({});
    }
  });
});

describe('paging in the sync under faults', () => {
  let faulty: SampleApi;
  beforeAll(async () => {
    faulty = await startSampleApi({ contacts: 500, orders: 100 });
  });
  afterAll(() => faulty.close());

  it('a mix of faults at 40 % still mirrors every row', async () => {
    faulty.setFaults({ seed: 5, dropRate: 0.1, serverErrorRate: 0.1, rateLimitRate: 0.1, retryAfterSeconds: 0, truncateRate: 0.1, htmlErrorRate: 0.05 });
    const db = freshCache();
    try {
      const { run } = await syncOne(db, source(faulty, { retries: 8 }), 'contacts', { pageSize: 20, concurrency: 3 });
      expect(run).toMatchObject({ outcome: 'succeeded', rows: 500 });
      expect(cachedIds(db, 'contacts')).toEqual([...faulty.dataset.contactIds()].sort());
      expect(faulty.stats().faults).toBeGreaterThan(5);
    } finally {
      db.close();
      faulty.setFaults({});
    }
  });

  it('a 429 makes the sync wait what Retry-After says, then go on', async () => {
    faulty.setFaults({ rateLimitRate: 1, retryAfterSeconds: 1, maxFaults: 1 });
    const db = freshCache();
    try {
      const outcomes: string[] = [];
      const t = performance.now();
      const { requests, result } = await counted(faulty, 'contacts', () => syncOne(db, source(faulty, { onOutcome: (o) => outcomes.push(o) }), 'contacts', { pageSize: 100 }));
      expect(performance.now() - t).toBeGreaterThanOrEqual(950);
      expect(result.run).toMatchObject({ outcome: 'succeeded', rows: 500 });
      expect(requests).toBe(5 + 1);
      expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      expect(cachedIds(db, 'contacts')).toEqual([...faulty.dataset.contactIds()].sort());
    } finally {
      db.close();
      faulty.setFaults({});
    }
  });
});
