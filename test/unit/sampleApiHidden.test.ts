// The sample API's hidden state: deterministic per seed, realistic, never in the records' JSON,
// visible to the filters only, in every form and date style the service's documentation shows.
// Spoken to with plain fetch over loopback HTTP (the client has its own tests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleDataset } from '../../electron/main/sampleApi/dataset.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';

const auth = { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}`, refreshtoken: SAMPLE_REFRESH_TOKEN };

interface Body {
  message: string;
  error?: string;
  parameter?: string;
  data: { count: number; rows: Record<string, unknown>[] };
}

async function get(api: SampleApi, path: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${api.baseUrl}${path}`, { headers: auth });
  return { status: res.status, body: (await res.json()) as Body };
}

/** Every id a filtered query matches, in served order, read page by page. */
async function ids(api: SampleApi, endpoint: 'contacts' | 'orders/', query: string): Promise<string[]> {
  const out: string[] = [];
  for (let page = 0; ; page++) {
    const r = await get(api, `/${endpoint}?page=${page}&pageSize=500&${query}`);
    expect(r.status, `${query}: ${r.body.message}`).toBe(200);
    out.push(...r.body.data.rows.map((row) => row.id as string));
    if (r.body.data.rows.length < 500) {
      expect(out.length, query).toBe(r.body.data.count);
      return out;
    }
  }
}

const HIDDEN_CONTACT_FIELDS = ['addressStatus', 'lastMailedStatus', 'lastMailedDate', 'isReturnAddress', 'propertyAddresses'];
const HIDDEN_ORDER_FIELDS = ['createdAt', 'processedAt', 'paymentStatus', 'source', 'sources', 'createdBy', 'processingDate'];

describe('sample dataset hidden state', () => {
  it('is deterministic per seed, differs across seeds, and is realistic', () => {
    const a = createSampleDataset({ contacts: 4000, orders: 1500, seed: 5 });
    const b = createSampleDataset({ contacts: 4000, orders: 1500, seed: 5 });
    const c = createSampleDataset({ contacts: 4000, orders: 1500, seed: 6 });
    const contactIds = [...a.contactIds()];
    const orderIds = [...a.orderIds()];
    const hiddenA = contactIds.map((id) => a.contactHidden(id)!);
    expect(hiddenA).toEqual(contactIds.map((id) => b.contactHidden(id)));
    expect(hiddenA).not.toEqual(contactIds.map((id) => c.contactHidden(id)));
    expect(orderIds.map((id) => a.orderHidden(id))).toEqual(orderIds.map((id) => b.orderHidden(id)));

    const share = <T>(values: T[], f: (v: T) => boolean) => values.filter(f).length / values.length;
    expect(share(hiddenA, (h) => h.addressStatus === 'Verified')).toBeGreaterThan(0.5);
    expect(share(hiddenA, (h) => h.addressStatus === 'Failed')).toBeGreaterThan(0.1);
    expect(share(hiddenA, (h) => h.addressStatus === null)).toBeGreaterThan(0.1);
    expect(share(hiddenA, (h) => h.lastMailedStatus === null)).toBeGreaterThan(0.3);
    expect(share(hiddenA, (h) => h.isReturnAddress)).toBeGreaterThan(0.01);
    expect(share(hiddenA, (h) => h.isReturnAddress)).toBeLessThan(0.06);
    expect(new Set(hiddenA.map((h) => h.lastMailedStatus))).toEqual(new Set([null, 'Mailed', 'In Transit', 'Scheduled', 'Delivered', 'Returned', 'Processing']));
    // mailed after the contact was created, and never mailed means no date
    for (const [i, h] of hiddenA.entries()) {
      expect(h.lastMailedDate === null, contactIds[i]).toBe(h.lastMailedStatus === null);
      if (h.lastMailedDate !== null) expect(h.lastMailedDate >= a.contactById(contactIds[i]!)!.createdAt, contactIds[i]).toBe(true);
    }
    const orders = orderIds.map((id) => ({ row: a.orderById(id)!, hidden: a.orderHidden(id)! }));
    expect(new Set(orders.map((o) => o.hidden.paymentStatus))).toEqual(new Set(['Paid', 'Unpaid', 'Refunded', 'Failed']));
    expect(new Set(orders.map((o) => o.hidden.source))).toEqual(new Set(['Web', 'API', 'CSV import', 'Integration']));
    expect(new Set(orders.map((o) => o.hidden.createdBy)).size).toBeGreaterThan(5);
    for (const { row, hidden } of orders) {
      expect(hidden.processedAt === null, row.id).toBe(row.status < 3);
      if (hidden.processedAt !== null) expect(hidden.processedAt > hidden.createdAt).toBe(true);
      if (row.status === 0) expect(hidden.paymentStatus).toBe('Unpaid');
      // the campaign is named after the year the order was created in
      expect(row.campaign.name.endsWith(hidden.createdAt.slice(0, 4)), row.id).toBe(true);
    }
  });

  it('is never in the records, and can be changed for tests (only the filters see the change)', async () => {
    const api = await startSampleApi({ contacts: 300, orders: 100, seed: 2 });
    try {
      const contacts = (await get(api, '/contacts?pageSize=300')).body.data.rows;
      const orders = (await get(api, '/orders/?page=0&pageSize=100')).body.data.rows;
      for (const row of contacts) for (const field of HIDDEN_CONTACT_FIELDS) expect(row, field).not.toHaveProperty(field);
      for (const row of orders) for (const field of HIDDEN_ORDER_FIELDS) expect(row, field).not.toHaveProperty(field);
      expect(JSON.stringify(contacts)).not.toMatch(/In Transit|"Verified"/);
      expect(JSON.stringify(orders)).not.toMatch(/"Refunded"|"CSV import"/);

      const id = contacts[0]!.id as string;
      const before = await ids(api, 'contacts', 'isReturnAddress=true');
      expect(api.dataset.setContactHidden(id, { isReturnAddress: !before.includes(id) })).toBe(true);
      const after = await ids(api, 'contacts', 'isReturnAddress=true');
      expect(after.includes(id)).toBe(!before.includes(id));
      expect((await get(api, '/contacts?pageSize=1')).body.data.rows[0]).toEqual(contacts[0]);
      expect(api.dataset.setContactHidden('1', { isReturnAddress: true })).toBe(false);
      const order = orders[0]!.id as string;
      api.dataset.setOrderHidden(order, { paymentStatus: 'Chargeback' });
      expect(await ids(api, 'orders/', 'paymentStatus=Chargeback')).toEqual([order]);
    } finally {
      await api.close();
    }
  });
});

describe('sample API filters on hidden state, in every form', () => {
  let api: SampleApi;
  beforeAll(async () => {
    api = await startSampleApi({ contacts: 2500, orders: 900, seed: 9 });
  });
  afterAll(() => api.close());

  const contactsWhere = (f: (h: NonNullable<ReturnType<SampleApi['dataset']['contactHidden']>>) => boolean) => [...api.dataset.contactIds()].filter((id) => f(api.dataset.contactHidden(id)!));
  const ordersWhere = (f: (h: NonNullable<ReturnType<SampleApi['dataset']['orderHidden']>>) => boolean) => [...api.dataset.orderIds()].filter((id) => f(api.dataset.orderHidden(id)!));

  it('reads the plain and the encoded form, both date styles, %20 and +, alike', async () => {
    const groups: [string[], string[]][] = [
      [['addressStatus=Failed', 'addressStatus=%22Failed%22', 'addressStatus=[%22Failed%22]', 'addressStatus=["Failed"]', 'addressStatus=%5B%22Failed%22%5D', 'addressStatus=%2522Failed%2522', 'addressStatus[]=Failed'], contactsWhere((h) => h.addressStatus === 'Failed')],
      [
        ['lastMailedStatus=%22In%20Transit%22,%22Mailed%22', 'lastMailedStatus=%22In+Transit%22,%22Mailed%22', 'lastMailedStatus=[%22In%20Transit%22,%22Mailed%22]', 'lastMailedStatus=In+Transit,Mailed', 'lastMailedStatus=In%20Transit&lastMailedStatus=mailed'],
        contactsWhere((h) => h.lastMailedStatus === 'In Transit' || h.lastMailedStatus === 'Mailed'),
      ],
      [
        [
          'lastMailedDate=%7B%22startDate%22%3A%222022-03-01%22%2C%22endDate%22%3A%222022-03-31%22%7D',
          'lastMailedDate={%22startDate%22:%2201-03-2022%22,%22endDate%22:%2231-03-2022%22}',
          'lastMailedDate={startDate:%20%2201-03-2022%22,%20endDate:%20%2231-03-2022%22}',
          'lastMailedDate[startDate]=2022-03-01&lastMailedDate[endDate]=31-03-2022',
        ],
        contactsWhere((h) => h.lastMailedDate !== null && h.lastMailedDate >= '2022-03-01' && h.lastMailedDate < '2022-04-01'),
      ],
      [['lastMailedDate=%7B%22endDate%22%3A%2231-12-2019%22%7D', 'lastMailedDate={%22endDate%22:%222019-12-31%22}'], contactsWhere((h) => h.lastMailedDate !== null && h.lastMailedDate < '2020-01-01')],
      [['isReturnAddress=true', 'isReturnAddress=1'], contactsWhere((h) => h.isReturnAddress)],
      [['isReturnAddress=false'], contactsWhere((h) => !h.isReturnAddress)],
    ];
    for (const [forms, expected] of groups) {
      expect(expected.length, forms[0]).toBeGreaterThan(0);
      expect(expected.length, forms[0]).toBeLessThan(api.dataset.contactCount);
      for (const form of forms) expect(await ids(api, 'contacts', form), form).toEqual(expected);
    }
    // tags as the documentation's plain form: a JSON array of numbers
    const tagged = [...api.dataset.contacts()].filter((c) => c.ContactLabels.some((l) => l.id === '7004' || l.id === '7005')).map((c) => c.id);
    expect(await ids(api, 'contacts', 'tags=[7004,7005]')).toEqual(tagged);
    expect(await ids(api, 'contacts', 'tags=%227004%22,%227005%22')).toEqual(tagged);
  });

  it('orders: hidden payment status, source, creator, creation and processing dates', async () => {
    const groups: [string[], string[]][] = [
      [['paymentStatus=Unpaid', 'paymentStatus=unpaid', 'paymentStatus=%22Unpaid%22'], ordersWhere((h) => h.paymentStatus === 'Unpaid')],
      [['sources=CSV%20import,API', 'sources=CSV+import,API', 'sources=[%22CSV%20import%22,%22API%22]'], ordersWhere((h) => h.source === 'CSV import' || h.source === 'API')],
      [['createdBy=303'], ordersWhere((h) => h.createdBy === '303')],
      [['createdDate=2021-01-01,2021-06-30', 'createdDate=01-01-2021,30-06-2021', 'createdDate=%7B%22startDate%22%3A%222021-01-01%22%2C%22endDate%22%3A%222021-06-30%22%7D'], ordersWhere((h) => h.createdAt >= '2021-01-01' && h.createdAt < '2021-07-01')],
      [['processingDate=,2020-12-31', 'processingDate=,31-12-2020'], ordersWhere((h) => h.processedAt !== null && h.processedAt < '2021-01-01')],
    ];
    for (const [forms, expected] of groups) {
      expect(expected.length, forms[0]).toBeGreaterThan(0);
      expect(expected.length, forms[0]).toBeLessThan(api.dataset.orderCount);
      for (const form of forms) expect(await ids(api, 'orders/', form), form).toEqual(expected);
    }
    const day = api.dataset.orderHidden(api.dataset.orderAt(17).id)!.createdAt.slice(0, 10);
    expect(await ids(api, 'orders/', `createdDate=${day}`)).toEqual(ordersWhere((h) => h.createdAt.startsWith(day)));
    // orderStatus is text: a status code matches the record's status
    expect(await ids(api, 'orders/', 'orderStatus=3,4')).toEqual([...api.dataset.orders()].filter((o) => o.status === 3 || o.status === 4).map((o) => o.id));
  });

  it('answers 400 naming the parameter for what it cannot read', async () => {
    for (const [query, parameter] of [
      ['addressStatus=%22Failed', 'addressStatus'],
      ['lastMailedStatus=[%22Mailed%22', 'lastMailedStatus'],
      ['lastMailedDate={startDate:%20%2230-02-2024%22}', 'lastMailedDate'],
      ['lastMailedDate=%7B%22startDate%22%3A%222024-02-30%22%7D', 'lastMailedDate'],
      ['lastMailedDate={startDate', 'lastMailedDate'],
      ['tags=[7001,{}]', 'tags'],
    ]) {
      const r = await get(api, `/contacts?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ error: 'BAD_REQUEST', parameter });
      expect(r.body.message, query).toContain(parameter);
    }
  });

  it('answers a hidden-state filter over 300,000 contacts with its count and a first page', async () => {
    const big = await startSampleApi({ contacts: 300_000, orders: 10 });
    try {
      const r = await get(big, '/contacts?pageSize=10&addressStatus=%22Failed%22&isReturnAddress=true');
      expect(r.body.data.count).toBeGreaterThan(1000);
      expect(r.body.data.count).toBeLessThan(300_000);
      expect(r.body.data.rows).toHaveLength(10);
    } finally {
      await big.close();
    }
  });
});
