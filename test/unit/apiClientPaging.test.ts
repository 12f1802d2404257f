// fetchAllPages against the sample API over loopback: page sizes, a capped server, resume, bounded
// concurrency, early exit, cancellation and errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../electron/main/api/client.ts';
import { fetchAllPages } from '../../electron/main/api/paging.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import type { Resource } from '../../shared/serviceRecords.ts';

const tokens = async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN });
let api: SampleApi;
let client: ApiClient;

beforeAll(async () => {
  api = await startSampleApi({ contacts: 2503, orders: 401, maxPageSize: 1000 });
  client = createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, retry: { baseDelayMs: 1 } });
});
afterAll(() => api.close());

async function collect(resource: Resource, pageSize: number, extra: { concurrency?: number; startPage?: number; client?: ApiClient; params?: object } = {}) {
  const ids: string[] = [];
  const pages: { page: number; pageSize: number; rows: number }[] = [];
  const counts: number[] = [];
  const capped: [number, number][] = [];
  for await (const page of fetchAllPages({
    client: extra.client ?? client,
    resource,
    params: (extra.params ?? {}) as never,
    pageSize,
    concurrency: extra.concurrency,
    startPage: extra.startPage,
    onCount: (c) => counts.push(c),
    onPageSizeCapped: (served, asked) => capped.push([served, asked]),
  })) {
    pages.push({ page: page.page, pageSize: page.pageSize, rows: page.records.length });
    for (const r of page.records) ids.push(r.ok ? r.record.id : String(r.id));
  }
  return { ids, pages, counts, capped };
}

describe('fetchAllPages', () => {
  it('yields every row once, in order, at several page sizes; reports count once', async () => {
    const all = [...api.dataset.contactIds()];
    for (const size of [37, 100, 1000]) {
      const r = await collect('contacts', size);
      expect(r.ids).toEqual(all);
      expect(r.counts).toEqual([2503]);
      expect(r.pages.map((p) => p.page)).toEqual([...Array(Math.ceil(2503 / size)).keys()]);
      expect(r.capped).toEqual([]);
    }
    const orders = await collect('orders', 7);
    expect(orders.ids).toEqual([...api.dataset.orderIds()]);
    expect(orders.pages).toHaveLength(58);
  });

  it('passes filters through and handles an empty result', async () => {
    const r = await collect('orders', 50, { params: { meta: { account_id: 'acct-1002' } } });
    expect(r.ids).toEqual([...api.dataset.orders()].filter((o) => o.meta.account_id === 'acct-1002').map((o) => o.id));
    const none = await collect('contacts', 50, { params: { search: 'no such contact anywhere' } });
    expect(none.ids).toEqual([]);
    expect(none.counts).toEqual([0]);
    expect(none.pages).toHaveLength(1);
  });

  it('detects a server that caps pageSize and adapts (no row missed)', async () => {
    const capped = await startSampleApi({ contacts: 1234, orders: 10, maxPageSize: 100 });
    try {
      const c = createApiClient({ baseUrl: capped.baseUrl, getTokens: tokens });
      const single = await c.listContacts({ page: 0, pageSize: 250 });
      expect(single.records).toHaveLength(100);
      expect(single.short).toBe(true);
      expect((await c.listContacts({ page: 12, pageSize: 100 })).short).toBe(false); // the last page is not short
      const r = await collect('contacts', 250, { client: c });
      expect(r.capped).toEqual([[100, 250]]);
      expect(r.ids).toEqual([...capped.dataset.contactIds()]);
      expect(r.pages.slice(1).every((p) => p.pageSize === 100)).toBe(true);
      // resuming at a page whose offset (250) is not a multiple of the cap: restarts at row 200
      const resumed = await collect('contacts', 250, { client: c, startPage: 1 });
      expect(resumed.ids).toEqual([...capped.dataset.contactIds()].slice(200));
      expect(resumed.pages[0]).toEqual({ page: 2, pageSize: 100, rows: 100 });
    } finally {
      await capped.close();
    }
  });

  it('resumes from startPage', async () => {
    const r = await collect('contacts', 500, { startPage: 3 });
    expect(r.ids).toEqual([...api.dataset.contactIds()].slice(1500));
    expect(r.pages.map((p) => p.page)).toEqual([3, 4, 5]);
  });

  it('keeps at most `concurrency` requests in flight, and uses them', async () => {
    api.setFaults({ latencyMs: 15 });
    try {
      for (const concurrency of [1, 3]) {
        let inflight = 0;
        let max = 0;
        const counting: ApiClient = {
          listContacts: async (params, opts) => {
            max = Math.max(max, ++inflight);
            try {
              return await client.listContacts(params, opts);
            } finally {
              inflight--;
            }
          },
          listOrders: (params, opts) => client.listOrders(params, opts),
        };
        const r = await collect('contacts', 100, { client: counting, concurrency });
        expect(r.ids.length).toBe(2503);
        expect(max).toBe(concurrency);
      }
    } finally {
      api.setFaults({});
    }
  });

  it('breaking out early cancels requests in flight', async () => {
    api.setFaults({ latencyMs: 300 });
    const settled: string[] = [];
    const watching: ApiClient = {
      listContacts: (params, opts) =>
        client.listContacts(params, opts).then(
          (p) => {
            settled.push('ok');
            return p;
          },
          (e: { code: string }) => {
            settled.push(e.code);
            throw e;
          },
        ),
      listOrders: (params, opts) => client.listOrders(params, opts),
    };
    try {
      for await (const page of fetchAllPages({ client: watching, resource: 'contacts', params: {}, pageSize: 100, concurrency: 4 })) {
        if (page.page === 1) break;
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(settled.filter((s) => s === 'CANCELLED').length).toBe(4);
    } finally {
      api.setFaults({});
    }
  });

  it('an abort signal stops the iteration with CANCELLED; a failing page stops it with its code', async () => {
    api.setFaults({ latencyMs: 50 });
    const controller = new AbortController();
    let pages = 0;
    const run = async () => {
      for await (const _page of fetchAllPages({ client, resource: 'contacts', params: {}, pageSize: 10, signal: controller.signal })) {
        if (++pages === 3) controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(pages).toBe(3);

    api.setFaults({});
    const failing = createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, retry: { limit: 1, baseDelayMs: 1 } });
    let seen = 0;
    const run2 = async () => {
      for await (const _page of fetchAllPages({ client: failing, resource: 'orders', params: {}, pageSize: 10 })) {
        if (++seen === 2) api.setFaults({ serverErrorRate: 1 });
      }
    };
    await expect(run2()).rejects.toMatchObject({ code: 'SERVER_ERROR' });
    api.setFaults({});
    await expect(collect('contacts', 0)).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});
