// The API client against the sample API over real loopback HTTP: paging, search on the records,
// property addresses, headers, and validation with pass-through. Every other §4 filter, its
// encodings and its refusals are in apiClientQuery.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { contactRowValidator, createApiClient, orderRowValidator, type ApiClient, type ApiPage, type ContactListParams, type OrderListParams } from '../../electron/main/api/client.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import type { SampleContact, SampleOrder } from '../../electron/main/sampleApi/dataset.ts';
import { contactSchema, orderSchema, type Contact, type Order } from '../../shared/serviceRecords.ts';
import { corruptRow } from '../../electron/main/sampleApi/faults.ts';

const tokens = async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN });

let api: SampleApi;
let client: ApiClient;
let contacts: SampleContact[];
let orders: SampleOrder[];

beforeAll(async () => {
  api = await startSampleApi({ contacts: 3000, orders: 1200, seed: 11 });
  client = createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, retry: { baseDelayMs: 1 } });
  contacts = [...api.dataset.contacts()];
  orders = [...api.dataset.orders()];
});
afterAll(() => api.close());

async function allContactIds(params: Omit<ContactListParams, 'page' | 'pageSize'>): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const p = await client.listContacts({ ...params, page, pageSize: 1000 });
    ids.push(...p.records.map((r) => (r.ok ? r.record.id : String(r.id))));
    if (p.offset + p.records.length >= p.count) {
      expect(ids.length).toBe(p.count);
      return ids;
    }
  }
}

describe('API client: §4.1 contacts parameters', () => {
  it('defaults to page 0 / pageSize 10 and returns validated records with unknown fields kept', async () => {
    const p = await client.listContacts({});
    expect(p.page).toBe(0);
    expect(p.pageSize).toBe(10);
    expect(p.count).toBe(3000);
    expect(p.records).toHaveLength(10);
    expect(p.short).toBe(false);
    const first = p.records[0]!;
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.record.id).toBe(contacts[0]!.id);
    // the record as sent, with the fields the spec does not name (meta, where set)
    expect(JSON.parse(JSON.stringify(first.raw))).toEqual(JSON.parse(JSON.stringify(contacts[0])));
    const withMeta = (await client.listContacts({ pageSize: 50 })).records.find((r) => r.ok && (r.record as Contact & { meta?: unknown }).meta);
    expect(withMeta).toBeDefined();
  });

  it('page and pageSize select the rows', async () => {
    const p = await client.listContacts({ page: 3, pageSize: 7 });
    expect(p.offset).toBe(21);
    expect(p.records.map((r) => (r.ok ? r.record.id : null))).toEqual(contacts.slice(21, 28).map((c) => c.id));
  });

  it('search: case-insensitive substring on names, company, email, phone, city', async () => {
    const target = contacts[100]!;
    for (const needle of [target.lastName.toUpperCase(), target.city.toLowerCase(), target.phoneNo.slice(1, 4)]) {
      const n = needle.toLowerCase();
      const expected = contacts.filter((c) => [c.firstName, c.lastName, c.fullName, c.companyName, c.email, c.phoneNo, c.city].some((v) => v.toLowerCase().includes(n))).map((c) => c.id);
      expect(await allContactIds({ search: needle })).toEqual(expected);
    }
    const accent = await allContactIds({ search: 'ångström' });
    expect(accent.length).toBeGreaterThan(0);
    expect(accent.every((id) => contacts.find((c) => c.id === id)!.lastName === 'Ångström')).toBe(true);
  });

  it('withPropertyAddresses includes property addresses, passed through to the record', async () => {
    const p = await client.listContacts({ pageSize: 5, withPropertyAddresses: true });
    for (const r of p.records) expect(r.ok && Array.isArray((r.record as Record<string, unknown>).propertyAddresses)).toBe(true);
    const q = await client.listContacts({ pageSize: 5, withPropertyAddresses: false });
    for (const r of q.records) expect(r.ok && !('propertyAddresses' in r.record)).toBe(true);
  });
});

describe('API client: §4.2 orders parameters', () => {
  it('page and pageSize are required and select the rows', async () => {
    const p = await client.listOrders({ page: 2, pageSize: 5 });
    expect(p.count).toBe(1200);
    expect(p.records.map((r) => (r.ok ? r.record.id : null))).toEqual(orders.slice(10, 15).map((o) => o.id));
    await expect(client.listOrders({ page: 0 } as OrderListParams)).rejects.toMatchObject({ code: 'VALIDATION' });
  });
});

describe('API client: row validation', () => {
  it('the fast row validators give the same verdict as the shared §2 schemas', () => {
    let invalid = 0;
    for (const [rows, fast, shared, endpoint] of [
      [contacts.slice(0, 400), contactRowValidator, contactSchema, 'contacts'],
      [orders.slice(0, 200), orderRowValidator, orderSchema, 'orders'],
    ] as const) {
      rows.forEach((row, i) => {
        const copy = JSON.parse(JSON.stringify(row)) as Record<string, unknown>;
        if (i % 3 === 0) corruptRow(endpoint, copy, i);
        const a = fast.safeParse(copy).success;
        expect(a).toBe(shared.safeParse(copy).success);
        if (!a) invalid++;
      });
      // nested trouble the row-level mutations do not cover
      const nested = JSON.parse(JSON.stringify(rows[0])) as Record<string, unknown>;
      if (endpoint === 'contacts') (nested.ContactLabels as unknown[]).push({ id: 7, title: 'x' });
      else ((nested.contacts as { contact: Record<string, unknown> }[])[0]!.contact.zip = null);
      expect(fast.safeParse(nested).success).toBe(false);
      expect(shared.safeParse(nested).success).toBe(false);
    }
    expect(invalid).toBeGreaterThan(150);
  });

  it('valid records keep unknown fields at every depth, as sent', async () => {
    api.dataset.updateOrder(orders[0]!.id, { futureField: { a: 1 }, campaign: { ...orders[0]!.campaign, extra: 'kept' } });
    const p = await client.listOrders({ page: 0, pageSize: 1 });
    const r = p.records[0]!;
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect((r.record as Record<string, unknown>).futureField).toEqual({ a: 1 });
    expect((r.record.campaign as Record<string, unknown>).extra).toBe('kept');
    expect(r.record.contacts[0]!.contact).toEqual(orders[0]!.contacts[0]!.contact);
  });
});

describe('API client: headers', () => {
  it('sends bearer on both endpoints and refreshtoken on contacts only', async () => {
    const seen: Record<string, http.IncomingHttpHeaders> = {};
    const server = http.createServer((req, res) => {
      seen[req.url!.split('?')[0]!] = req.headers;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'success', data: { count: 0, rows: [] } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const c = createApiClient({ baseUrl: `http://127.0.0.1:${port}/api/v1/`, getTokens: async () => ({ accessToken: 'acc-123456', refreshToken: 'ref-654321' }) });
      const page: ApiPage<Order> = await c.listOrders({ page: 0, pageSize: 1 });
      expect(page.records).toEqual([]);
      expect(page.bodyLength).toBe(JSON.stringify({ message: 'success', data: { count: 0, rows: [] } }).length);
      await c.listContacts({});
      expect(seen['/api/v1/orders/']?.authorization).toBe('Bearer acc-123456');
      expect(seen['/api/v1/orders/']?.refreshtoken).toBeUndefined();
      expect(seen['/api/v1/contacts']?.authorization).toBe('Bearer acc-123456');
      expect(seen['/api/v1/contacts']?.refreshtoken).toBe('ref-654321');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
