// The API client against the sample API over real loopback HTTP: every §4.1/§4.2 parameter changes
// the result as the spec says (expected sets computed here from the records themselves), headers,
// validation with pass-through, and the one parameter encoding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { contactRowValidator, createApiClient, orderRowValidator, type ApiClient, type ApiPage, type ContactListParams, type OrderListParams } from '../../electron/main/api/client.ts';
import { encodeContactParams, encodeOrderParams } from '../../electron/main/api/params.ts';
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

async function allOrderIds(params: Omit<OrderListParams, 'page' | 'pageSize'>): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const p = await client.listOrders({ ...params, page, pageSize: 1000 });
    ids.push(...p.records.map((r) => (r.ok ? r.record.id : String(r.id))));
    if (p.offset + p.records.length >= p.count) {
      expect(ids.length).toBe(p.count);
      return ids;
    }
  }
}

function expectSubset(ids: string[], expected: string[]): void {
  expect(ids.length).toBeGreaterThan(0);
  expect(ids.length).toBeLessThan(contacts.length);
  expect(ids).toEqual(expected);
}

const inDays = (iso: string | null | undefined, from: string, to: string) => !!iso && iso.slice(0, 10) >= from && iso.slice(0, 10) <= to;

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
    // unknown fields pass through: lastMailedStatus, isReturnAddress, meta (where set)
    expect(first.record).toHaveProperty('lastMailedStatus');
    expect(first.record).toHaveProperty('isReturnAddress');
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

  it('addressStatus: Verified = isVerified true, Failed = false; both = either', async () => {
    expectSubset(await allContactIds({ addressStatus: ['Verified'] }), contacts.filter((c) => c.isVerified === true).map((c) => c.id));
    expectSubset(await allContactIds({ addressStatus: ['Failed'] }), contacts.filter((c) => c.isVerified === false).map((c) => c.id));
    expectSubset(await allContactIds({ addressStatus: ['Failed', 'Verified'] }), contacts.filter((c) => c.isVerified !== null).map((c) => c.id));
  });

  it('lastMailedStatus and lastMailedDate', async () => {
    expectSubset(await allContactIds({ lastMailedStatus: ['In Transit'] }), contacts.filter((c) => c.lastMailedStatus === 'In Transit').map((c) => c.id));
    expectSubset(await allContactIds({ lastMailedStatus: ['In Transit', 'Mailed', 'Scheduled'] }), contacts.filter((c) => ['In Transit', 'Mailed', 'Scheduled'].includes(c.lastMailedStatus ?? '')).map((c) => c.id));
    expectSubset(
      await allContactIds({ lastMailedDate: { startDate: '2021-01-01', endDate: '2021-12-31' } }),
      contacts.filter((c) => inDays(c.lastMailedDate, '2021-01-01', '2021-12-31')).map((c) => c.id),
    );
    expectSubset(await allContactIds({ lastMailedDate: { startDate: '2025-06-01' } }), contacts.filter((c) => inDays(c.lastMailedDate, '2025-06-01', '9999-12-31')).map((c) => c.id));
  });

  it('tags, isReturnAddress, meta.account_id; filters combine with AND', async () => {
    const tag = contacts.find((c) => c.ContactLabels.length > 0)!.ContactLabels[0]!.id;
    expectSubset(await allContactIds({ tags: [tag] }), contacts.filter((c) => c.ContactLabels.some((l) => l.id === tag)).map((c) => c.id));
    expectSubset(await allContactIds({ tags: ['7001', '7002'] }), contacts.filter((c) => c.ContactLabels.some((l) => l.id === '7001' || l.id === '7002')).map((c) => c.id));
    expectSubset(await allContactIds({ isReturnAddress: true }), contacts.filter((c) => c.isReturnAddress).map((c) => c.id));
    expect((await allContactIds({ isReturnAddress: false })).length).toBe(contacts.filter((c) => !c.isReturnAddress).length);
    expectSubset(await allContactIds({ meta: { account_id: 'acct-1003' } }), contacts.filter((c) => c.meta?.account_id === 'acct-1003').map((c) => c.id));
    expect(await allContactIds({ 'meta.account_id': 'acct-1003' })).toEqual(await allContactIds({ meta: { account_id: 'acct-1003' } }));
    expectSubset(
      await allContactIds({ meta: { account_id: 'acct-1001' }, addressStatus: ['Verified'], tags: ['7002'] }),
      contacts.filter((c) => c.meta?.account_id === 'acct-1001' && c.isVerified === true && c.ContactLabels.some((l) => l.id === '7002')).map((c) => c.id),
    );
  });

  it('withPropertyAddresses includes property addresses, passed through to the record', async () => {
    const p = await client.listContacts({ pageSize: 5, withPropertyAddresses: true });
    for (const r of p.records) expect(r.ok && Array.isArray((r.record as Record<string, unknown>).propertyAddresses)).toBe(true);
    const q = await client.listContacts({ pageSize: 5, withPropertyAddresses: false });
    for (const r of q.records) expect(r.ok && !('propertyAddresses' in r.record)).toBe(true);
  });

  it("the client's encoded form and the plain forms give identical results", async () => {
    const params: ContactListParams = { addressStatus: ['Failed'], lastMailedStatus: ['Mailed', 'In Transit'], lastMailedDate: { startDate: '2020-02-01', endDate: '2023-05-31' }, pageSize: 1000 };
    const sp = encodeContactParams(params);
    expect(sp.get('addressStatus')).toBe('["Failed"]');
    expect(JSON.parse(sp.get('lastMailedDate')!)).toEqual({ startDate: '2020-02-01', endDate: '2023-05-31' });
    const viaClient = (await client.listContacts(params)).records.map((r) => (r.ok ? r.record.id : r.id));
    const plain = 'addressStatus=Failed&lastMailedStatus=Mailed&lastMailedStatus=In+Transit&lastMailedDate[startDate]=01-02-2020&lastMailedDate[endDate]=31-05-2023&pageSize=1000';
    const res = await fetch(`${api.baseUrl}/contacts?${plain}`, { headers: { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}`, refreshtoken: SAMPLE_REFRESH_TOKEN } });
    const body = (await res.json()) as { data: { rows: { id: string }[] } };
    expect(viaClient.length).toBeGreaterThan(0);
    expect(body.data.rows.map((r) => r.id)).toEqual(viaClient);
  });
});

describe('API client: §4.2 orders parameters', () => {
  it('page and pageSize are required and select the rows', async () => {
    const p = await client.listOrders({ page: 2, pageSize: 5 });
    expect(p.count).toBe(1200);
    expect(p.records.map((r) => (r.ok ? r.record.id : null))).toEqual(orders.slice(10, 15).map((o) => o.id));
    await expect(client.listOrders({ page: 0 } as OrderListParams)).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('every filter changes the result as documented', async () => {
    const ids = (f: (o: SampleOrder) => boolean) => orders.filter(f).map((o) => o.id);
    const subset = async (params: Omit<OrderListParams, 'page' | 'pageSize'>, f: (o: SampleOrder) => boolean) => {
      const got = await allOrderIds(params);
      expect(got.length, JSON.stringify(params)).toBeGreaterThan(0);
      expect(got.length, JSON.stringify(params)).toBeLessThan(orders.length);
      expect(got, JSON.stringify(params)).toEqual(ids(f));
    };
    await subset({ meta: { account_id: 'acct-1002' } }, (o) => o.meta.account_id === 'acct-1002');
    await subset({ productTypes: ['postcard'] }, (o) => o.product.productType === 'postcard');
    await subset({ productTypes: ['postcard', 'certified_letter'] }, (o) => ['postcard', 'certified_letter'].includes(o.product.productType));
    await subset({ sources: ['api', 'csv_upload'] }, (o) => ['api', 'csv_upload'].includes(o.source));
    await subset({ orderStatus: [3, 4] }, (o) => o.status === 3 || o.status === 4);
    await subset({ paymentStatus: ['refunded'] }, (o) => o.paymentStatus === 'refunded');
    await subset({ createdBy: ['301', '302'] }, (o) => ['301', '302'].includes(o.template.creator.id));
    await subset({ createdDate: { from: '2022-01-01', to: '2022-12-31' } }, (o) => inDays(o.createdAt, '2022-01-01', '2022-12-31'));
    const oneDay = orders[5]!.createdAt.slice(0, 10);
    await subset({ createdDate: oneDay }, (o) => o.createdAt.startsWith(oneDay));
    await subset({ scheduledDate: { from: '2023-01-01' } }, (o) => inDays(o.campaign.deliveryDate, '2023-01-01', '9999-12-31'));
    await subset({ processingDate: { to: '2020-06-30' } }, (o) => inDays(o.processedAt, '0000-01-01', '2020-06-30'));
    const name = orders[7]!.campaign.name.split(' ')[0]!.toLowerCase();
    await subset({ search: name }, (o) => o.id.includes(name) || o.campaign.name.toLowerCase().includes(name));
    await subset({ search: orders[9]!.id }, (o) => o.id.includes(orders[9]!.id));
    await subset({ meta: { account_id: 'acct-1001' }, orderStatus: [5], productTypes: ['letter'] }, (o) => o.meta.account_id === 'acct-1001' && o.status === 5 && o.product.productType === 'letter');
  });

  it('encodes order filters as documented', () => {
    const sp = encodeOrderParams({ page: 1, pageSize: 50, productTypes: ['letter', 'postcard'], orderStatus: [3, 5], createdDate: { from: '2024-01-01' }, scheduledDate: '2024-02-02', meta: { account_id: 'a-1' } });
    expect(sp.toString()).toBe('page=1&pageSize=50&productTypes=letter%2Cpostcard&orderStatus=3%2C5&createdDate=2024-01-01%2C&scheduledDate=2024-02-02&meta.account_id=a-1');
    expect(() => encodeOrderParams({ page: 0, pageSize: 1, createdDate: '01-02-2024' })).toThrow(/YYYY-MM-DD/);
    expect(() => encodeOrderParams({ page: 0, pageSize: 1, sources: ['a,b'] })).toThrow(/comma/);
    expect(() => encodeContactParams({ page: -1 })).toThrow(/page/);
  });

  it('refuses values it cannot encode before sending anything', async () => {
    const before = api.stats().requests;
    await expect(client.listOrders({ page: 0, pageSize: 1, orderStatus: [1.5] })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(client.listContacts({ lastMailedDate: { startDate: '31-01-2024' } })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(api.stats().requests).toBe(before);
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
