// The sample API's hidden state: deterministic per seed, realistic, never in the records' JSON,
// visible to the filters only, in every form and date style the service's documentation shows.
// Spoken to with plain fetch over loopback HTTP (the client has its own tests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleDataset } from '../../electron/main/sampleApi/dataset.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { SAMPLE_STATUS_CODES } from '../../electron/main/sampleApi/timeline.ts';
import { ORDER_SOURCES, PAYMENT_STATUSES } from '../../shared/vocabularies.ts';
import { dayBefore, dmy, monthBefore, onDays } from '../helpers/sampleDays.ts';

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
/** The clock of these tests' datasets: their dates are laid out relative to it. */
const CLOCK = new Date('2026-06-15T12:00:00.000Z');
const DAY_MS = 86_400_000;

const HIDDEN_ORDER_FIELDS = ['createdAt', 'processedAt', 'paymentStatus', 'source', 'sources', 'createdBy', 'processingDate'];

describe('sample dataset hidden state', () => {
  it('is deterministic per seed, differs across seeds, and is realistic', () => {
    const a = createSampleDataset({ contacts: 4000, orders: 1500, seed: 5, clock: CLOCK });
    const b = createSampleDataset({ contacts: 4000, orders: 1500, seed: 5, clock: CLOCK });
    const c = createSampleDataset({ contacts: 4000, orders: 1500, seed: 6, clock: CLOCK });
    const contactIds = [...a.contactIds()];
    const orderIds = [...a.orderIds()];
    const hiddenA = contactIds.map((id) => a.contactHidden(id)!);
    expect(hiddenA).toEqual(contactIds.map((id) => b.contactHidden(id)));
    expect(hiddenA).not.toEqual(contactIds.map((id) => c.contactHidden(id)));
    expect(orderIds.map((id) => a.orderHidden(id))).toEqual(orderIds.map((id) => b.orderHidden(id)));

    const share = <T>(values: T[], f: (v: T) => boolean) => values.filter(f).length / values.length;
    expect(share(hiddenA, (h) => h.addressStatus === 'Verified')).toBeGreaterThan(0.5);
    expect(share(hiddenA, (h) => h.addressStatus === 'Failed')).toBeGreaterThan(0.1);
    expect(share(hiddenA, (h) => h.addressStatus === 'Corrected')).toBeGreaterThan(0.05);
    expect(share(hiddenA, (h) => h.addressStatus === null)).toBeGreaterThan(0.1);
    expect(share(hiddenA, (h) => h.lastMailedStatus === null)).toBeGreaterThan(0.3);
    expect(share(hiddenA, (h) => h.isReturnAddress)).toBeGreaterThan(0.01);
    expect(share(hiddenA, (h) => h.isReturnAddress)).toBeLessThan(0.06);
    expect(new Set(hiddenA.map((h) => h.lastMailedStatus))).toEqual(new Set([null, 'Mailed', 'In Transit', 'Scheduled', 'Delivered', 'Returned', 'Processing']));
    // mailed after the contact was created, within the year before the dataset's day; never mailed means no date
    const asOf = a.asOf.toISOString();
    const yearBefore = new Date(a.asOf.getTime() - 365 * DAY_MS).toISOString();
    for (const [i, h] of hiddenA.entries()) {
      expect(h.lastMailedDate === null, contactIds[i]).toBe(h.lastMailedStatus === null);
      if (h.lastMailedDate !== null) {
        expect(h.lastMailedDate >= a.contactById(contactIds[i]!)!.createdAt, contactIds[i]).toBe(true);
        expect(h.lastMailedDate >= yearBefore && h.lastMailedDate < asOf, contactIds[i]).toBe(true);
      }
    }
    const orders = orderIds.map((id) => ({ row: a.orderById(id)!, hidden: a.orderHidden(id)! }));
    expect(new Set(orders.map((o) => o.hidden.paymentStatus))).toEqual(new Set(PAYMENT_STATUSES));
    expect(new Set(orders.map((o) => o.hidden.source))).toEqual(new Set(ORDER_SOURCES));
    expect(new Set(orders.map((o) => o.hidden.createdBy)).size).toBeGreaterThan(5);
    const processing = new Set([SAMPLE_STATUS_CODES.PROCESSING, SAMPLE_STATUS_CODES.MAILED]);
    for (const { row, hidden } of orders) {
      // created in the 12 months before the dataset's day; processed only once processing started
      expect(hidden.createdAt >= yearBefore && hidden.createdAt < asOf, row.id).toBe(true);
      expect(hidden.processedAt === null, row.id).toBe(!processing.has(row.status));
      if (hidden.processedAt !== null) expect(hidden.processedAt > hidden.createdAt && hidden.processedAt < asOf, row.id).toBe(true);
      // a scheduled order is mailed on its campaign's delivery date, not yet reached
      if (row.status === SAMPLE_STATUS_CODES.SCHEDULED && row.campaign.deliveryDate !== null) expect(row.campaign.deliveryDate >= asOf.slice(0, 10), row.id).toBe(true);
      if (processing.has(row.status)) expect(['PAID', 'NOT_CHARGED'], row.id).toContain(hidden.paymentStatus);
      if (row.status === SAMPLE_STATUS_CODES.CANCELED) expect(hidden.paymentStatus, row.id).not.toBe('PAID');
      // delivered letters only for mailed orders
      if (row.status !== SAMPLE_STATUS_CODES.MAILED) expect(row.contacts.some((c) => c.isDelivered), row.id).toBe(false);
      // the campaign is named after the year the order was created in
      expect(row.campaign.name.endsWith(hidden.createdAt.slice(0, 4)), row.id).toBe(true);
    }
  });

  it('is never in the records, and can be changed for tests (only the filters see the change)', async () => {
    const api = await startSampleApi({ contacts: 300, orders: 100, seed: 2, clock: CLOCK });
    try {
      const contacts = (await get(api, '/contacts?pageSize=300')).body.data.rows;
      const orders = (await get(api, '/orders/?page=0&pageSize=100')).body.data.rows;
      for (const row of contacts) for (const field of HIDDEN_CONTACT_FIELDS) expect(row, field).not.toHaveProperty(field);
      for (const row of orders) for (const field of HIDDEN_ORDER_FIELDS) expect(row, field).not.toHaveProperty(field);
      expect(JSON.stringify(contacts)).not.toMatch(/In Transit|"Verified"/);
      expect(JSON.stringify(orders)).not.toMatch(/"PAID"|"NOT_CHARGED"|"OLC_CLIENT"|"MAILED"/);

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
    api = await startSampleApi({ contacts: 2500, orders: 900, seed: 9, clock: CLOCK });
  });
  afterAll(() => api.close());

  const contactsWhere = (f: (h: NonNullable<ReturnType<SampleApi['dataset']['contactHidden']>>) => boolean) => [...api.dataset.contactIds()].filter((id) => f(api.dataset.contactHidden(id)!));
  const ordersWhere = (f: (h: NonNullable<ReturnType<SampleApi['dataset']['orderHidden']>>) => boolean) => [...api.dataset.orderIds()].filter((id) => f(api.dataset.orderHidden(id)!));

  it('reads the plain and the encoded form, both date styles, %20 and +, alike', async () => {
    const asOf = api.dataset.asOf;
    const month = monthBefore(asOf, 3);
    const old = dayBefore(asOf, 300);
    const groups: [string[], string[]][] = [
      [['addressStatus=Corrected', 'addressStatus=corrected', 'addressStatus=%22Corrected%22', 'addressStatus=[%22Corrected%22]', 'addressStatus[]=Corrected'], contactsWhere((h) => h.addressStatus === 'Corrected')],
      [['addressStatus=Failed', 'addressStatus=%22Failed%22', 'addressStatus=[%22Failed%22]', 'addressStatus=["Failed"]', 'addressStatus=%5B%22Failed%22%5D', 'addressStatus=%2522Failed%2522', 'addressStatus[]=Failed'], contactsWhere((h) => h.addressStatus === 'Failed')],
      [
        ['lastMailedStatus=%22In%20Transit%22,%22Mailed%22', 'lastMailedStatus=%22In+Transit%22,%22Mailed%22', 'lastMailedStatus=[%22In%20Transit%22,%22Mailed%22]', 'lastMailedStatus=In+Transit,Mailed', 'lastMailedStatus=In%20Transit&lastMailedStatus=mailed'],
        contactsWhere((h) => h.lastMailedStatus === 'In Transit' || h.lastMailedStatus === 'Mailed'),
      ],
      [
        [
          `lastMailedDate=${encodeURIComponent(JSON.stringify({ startDate: month.start, endDate: month.end }))}`,
          `lastMailedDate={%22startDate%22:%22${dmy(month.start)}%22,%22endDate%22:%22${dmy(month.end)}%22}`,
          `lastMailedDate={startDate:%20%22${dmy(month.start)}%22,%20endDate:%20%22${dmy(month.end)}%22}`,
          `lastMailedDate[startDate]=${month.start}&lastMailedDate[endDate]=${dmy(month.end)}`,
        ],
        contactsWhere((h) => onDays(h.lastMailedDate, month.start, month.end)),
      ],
      [[`lastMailedDate=${encodeURIComponent(JSON.stringify({ endDate: dmy(old) }))}`, `lastMailedDate={%22endDate%22:%22${old}%22}`], contactsWhere((h) => onDays(h.lastMailedDate, '0000-01-01', old))],
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
    const asOf = api.dataset.asOf;
    const [from, to, until] = [dayBefore(asOf, 200), dayBefore(asOf, 100), dayBefore(asOf, 180)];
    const groups: [string[], string[]][] = [
      [['paymentStatus=PAYMENT_FAILED', 'paymentStatus=payment_failed', 'paymentStatus=%22PAYMENT_FAILED%22'], ordersWhere((h) => h.paymentStatus === 'PAYMENT_FAILED')],
      [['sources=HUBSPOT,ZAPIER', 'sources=hubspot,Zapier', 'sources=[%22HUBSPOT%22,%22ZAPIER%22]', 'sources=HUBSPOT&sources=ZAPIER'], ordersWhere((h) => h.source === 'HUBSPOT' || h.source === 'ZAPIER')],
      [['createdBy=303'], ordersWhere((h) => h.createdBy === '303')],
      [[`createdDate=${from},${to}`, `createdDate=${dmy(from)},${dmy(to)}`, `createdDate=${encodeURIComponent(JSON.stringify({ startDate: from, endDate: to }))}`], ordersWhere((h) => onDays(h.createdAt, from, to))],
      [[`processingDate=,${until}`, `processingDate=,${dmy(until)}`], ordersWhere((h) => onDays(h.processedAt, '0000-01-01', until))],
    ];
    for (const [forms, expected] of groups) {
      expect(expected.length, forms[0]).toBeGreaterThan(0);
      expect(expected.length, forms[0]).toBeLessThan(api.dataset.orderCount);
      for (const form of forms) expect(await ids(api, 'orders/', form), form).toEqual(expected);
    }
    const day = api.dataset.orderHidden(api.dataset.orderAt(17).id)!.createdAt.slice(0, 10);
    expect(await ids(api, 'orders/', `createdDate=${day}`)).toEqual(ordersWhere((h) => h.createdAt.startsWith(day)));
    // orderStatus is text: a status name, or a status code as text, matches the record's status
    const { PROCESSING, MAILED } = SAMPLE_STATUS_CODES;
    const processedOrMailed = [...api.dataset.orders()].filter((o) => o.status === PROCESSING || o.status === MAILED).map((o) => o.id);
    expect(await ids(api, 'orders/', `orderStatus=${PROCESSING},${MAILED}`)).toEqual(processedOrMailed);
    expect(await ids(api, 'orders/', 'orderStatus=PROCESSING,mailed')).toEqual(processedOrMailed);
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
