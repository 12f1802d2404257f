// The sample API speaks the service's vocabularies (shared/vocabularies.ts) and lays its dates out
// relative to its clock: spoken to with plain fetch over loopback HTTP, each answer compared with
// the dataset's own rows and hidden state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { SAMPLE_STATUS_CODES, sampleStatusName } from '../../electron/main/sampleApi/timeline.ts';
import { ADDRESS_STATUSES, ORDER_SOURCES, ORDER_STATUSES, PAYMENT_STATUSES } from '../../shared/vocabularies.ts';
import { dayBefore, onDays } from '../helpers/sampleDays.ts';

const auth = { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}`, refreshtoken: SAMPLE_REFRESH_TOKEN };
const CLOCK = new Date('2026-06-15T12:00:00.000Z');
const DAY_MS = 86_400_000;

interface Body {
  message: string;
  data: { count: number; rows: Record<string, unknown>[] };
}

async function get(api: SampleApi, path: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${api.baseUrl}${path}`, { headers: auth });
  return { status: res.status, body: (await res.json()) as Body };
}

/** Every row a query matches, in served order, read page by page. */
async function rows(api: SampleApi, endpoint: 'contacts' | 'orders/', query: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let page = 0; ; page++) {
    const r = await get(api, `/${endpoint}?page=${page}&pageSize=500${query ? `&${query}` : ''}`);
    expect(r.status, `${query}: ${r.body.message}`).toBe(200);
    out.push(...r.body.data.rows);
    if (r.body.data.rows.length < 500) {
      expect(out.length, query).toBe(r.body.data.count);
      return out;
    }
  }
}

const ids = async (api: SampleApi, endpoint: 'contacts' | 'orders/', query: string) => (await rows(api, endpoint, query)).map((row) => row.id as string);

describe('the sample API speaks the service’s vocabularies', () => {
  let api: SampleApi;
  beforeAll(async () => {
    api = await startSampleApi({ contacts: 2500, orders: 1200, seed: 4, clock: CLOCK });
  });
  afterAll(() => api.close());

  it('relates each status code to one orderStatus name: every order of code c is returned by name(c) and by no other name', async () => {
    const all = await rows(api, 'orders/', '');
    const byName = new Map<string, string[]>();
    for (const name of ORDER_STATUSES) {
      const found = await rows(api, 'orders/', `orderStatus=${name}`);
      expect(found.length, name).toBeGreaterThan(0);
      // one code per name, and it is the table's
      expect(new Set(found.map((o) => o.status)), name).toEqual(new Set([SAMPLE_STATUS_CODES[name]]));
      byName.set(name, found.map((o) => o.id as string));
    }
    for (const order of all) {
      const name = sampleStatusName(order.status as number);
      expect(name, String(order.id)).not.toBeNull();
      for (const [other, members] of byName) expect(members.includes(order.id as string), `${String(order.id)} in ${other}`).toBe(other === name);
    }
    // several names OR together, case aside, in the encoded form too
    expect(await ids(api, 'orders/', 'orderStatus=scheduled,Processing')).toEqual(all.filter((o) => o.status === SAMPLE_STATUS_CODES.SCHEDULED || o.status === SAMPLE_STATUS_CODES.PROCESSING).map((o) => o.id));
    expect(await ids(api, 'orders/', 'orderStatus=%22ON_HOLD%22,%22CANCELED%22')).toEqual(all.filter((o) => o.status === SAMPLE_STATUS_CODES.ON_HOLD || o.status === SAMPLE_STATUS_CODES.CANCELED).map((o) => o.id));
    // a name the service does not use matches nothing, and is no error
    expect(await ids(api, 'orders/', 'orderStatus=SHIPPED')).toEqual([]);
  });

  it('the payment statuses and the sources each partition the orders', async () => {
    const all = await ids(api, 'orders/', '');
    for (const [param, values, field] of [
      ['paymentStatus', PAYMENT_STATUSES, 'paymentStatus'],
      ['sources', ORDER_SOURCES, 'source'],
    ] as const) {
      const seen = new Map<string, string>();
      for (const value of values) {
        const members = await ids(api, 'orders/', `${param}=${value}`);
        expect(members.length, `${param}=${value}`).toBeGreaterThan(0);
        for (const id of members) {
          expect(seen.get(id), `${id} is in ${param}=${value} and in ${param}=${seen.get(id)}`).toBeUndefined();
          seen.set(id, value);
          expect(api.dataset.orderHidden(id)?.[field], id).toBe(value);
        }
      }
      // together they hold every order
      expect(all.filter((id) => !seen.has(id)), param).toEqual([]);
    }
  });

  it('accepts addressStatus=Corrected and returns exactly the Corrected contacts', async () => {
    const corrected = [...api.dataset.contactIds()].filter((id) => api.dataset.contactHidden(id)?.addressStatus === 'Corrected');
    expect(corrected.length).toBeGreaterThan(0);
    expect(corrected.length).toBeLessThan(api.dataset.contactCount);
    for (const form of ['addressStatus=Corrected', 'addressStatus=%22Corrected%22', 'addressStatus=[%22Corrected%22]']) expect(await ids(api, 'contacts', form), form).toEqual(corrected);
    // the three statuses and "none" cover every contact
    const counted = await Promise.all(ADDRESS_STATUSES.map(async (status) => (await get(api, `/contacts?pageSize=1&addressStatus=${status}`)).body.data.count));
    const none = [...api.dataset.contactIds()].filter((id) => api.dataset.contactHidden(id)?.addressStatus === null).length;
    expect(counted.reduce((a, b) => a + b, 0) + none).toBe(api.dataset.contactCount);
  });
});

describe('the sample API’s dates are relative to its clock', () => {
  const started: SampleApi[] = [];
  const start = async (clock: Date, seed = 4): Promise<SampleApi> => {
    const api = await startSampleApi({ contacts: 2500, orders: 1200, seed, clock });
    started.push(api);
    return api;
  };
  afterAll(async () => {
    for (const api of started) await api.close();
  });

  /** The last 30 days up to the clock's day, as a lastMailedDate filter, and the contacts the dataset says fall in it. */
  const last30Days = (api: SampleApi) => {
    const [from, to] = [dayBefore(api.dataset.asOf, 29), dayBefore(api.dataset.asOf, 0)];
    const expected = [...api.dataset.contactIds()].filter((id) => onDays(api.dataset.contactHidden(id)?.lastMailedDate ?? null, from, to));
    return { query: `lastMailedDate=${encodeURIComponent(JSON.stringify({ startDate: from, endDate: to }))}`, expected };
  };

  it('a "last 30 days" lastMailedDate filter returns exactly the contacts last mailed in it', async () => {
    const api = await start(CLOCK);
    expect(api.dataset.asOf.toISOString()).toBe('2026-06-15T00:00:00.000Z');
    const { query, expected } = last30Days(api);
    expect(expected.length).toBeGreaterThan(20);
    expect(await ids(api, 'contacts', query)).toEqual(expected);
    // every last-mailed date lies within the year before the clock's day
    const asOf = api.dataset.asOf.getTime();
    for (const id of api.dataset.contactIds()) {
      const date = api.dataset.contactHidden(id)?.lastMailedDate;
      if (date) expect(Date.parse(date) >= asOf - 365 * DAY_MS && Date.parse(date) < asOf, id).toBe(true);
    }
  });

  it('the orders’ created, scheduled and processing dates filter by those dates in the last 30 days', async () => {
    const api = await start(CLOCK);
    const [from, to] = [dayBefore(api.dataset.asOf, 29), dayBefore(api.dataset.asOf, 0)];
    const orders = [...api.dataset.orders()];
    const cases: [string, string[]][] = [
      ['createdDate', orders.filter((o) => onDays(api.dataset.orderHidden(o.id)!.createdAt, from, to)).map((o) => o.id)],
      ['processingDate', orders.filter((o) => onDays(api.dataset.orderHidden(o.id)!.processedAt, from, to)).map((o) => o.id)],
      ['scheduledDate', orders.filter((o) => onDays(o.campaign.deliveryDate, from, to)).map((o) => o.id)],
    ];
    for (const [param, expected] of cases) {
      expect(expected.length, param).toBeGreaterThan(0);
      expect(expected.length, param).toBeLessThan(orders.length);
      expect(await ids(api, 'orders/', `${param}=${from},${to}`), param).toEqual(expected);
      expect(await ids(api, 'orders/', `${param}=${encodeURIComponent(JSON.stringify({ startDate: from, endDate: to }))}`), param).toEqual(expected);
    }
    // every order was created in the 12 months before the clock's day
    const asOf = api.dataset.asOf.getTime();
    for (const o of orders) {
      const created = Date.parse(api.dataset.orderHidden(o.id)!.createdAt);
      expect(created >= asOf - 365 * DAY_MS && created < asOf, o.id).toBe(true);
    }
  });

  it('a later clock shifts the data by as much, so the last 30 days always find rows', async () => {
    const early = await start(CLOCK);
    const later = await start(new Date(CLOCK.getTime() + 40 * DAY_MS));
    const a = last30Days(early);
    const b = last30Days(later);
    expect(b.expected.length).toBeGreaterThan(0);
    expect(await ids(later, 'contacts', b.query)).toEqual(b.expected);
    // the early clock's window, asked of the later data, holds other contacts
    expect(await ids(later, 'contacts', a.query)).not.toEqual(a.expected);
    // each date moved by the 40 days between the clocks
    const contact = (await get(early, '/contacts?pageSize=1')).body.data.rows[0]!;
    const moved = (await get(later, '/contacts?pageSize=1')).body.data.rows[0]!;
    expect(moved.id).toBe(contact.id);
    expect(Date.parse(moved.createdAt as string) - Date.parse(contact.createdAt as string)).toBe(40 * DAY_MS);
    for (const id of a.expected) {
      const before = early.dataset.contactHidden(id)!.lastMailedDate!;
      expect(Date.parse(later.dataset.contactHidden(id)!.lastMailedDate!) - Date.parse(before), id).toBe(40 * DAY_MS);
    }
  });

  it('the same seed and clock give the same data; another clock day gives other dates', async () => {
    const one = await start(CLOCK);
    const two = await start(new Date(CLOCK.getTime() + 3 * 3_600_000)); // later the same UTC day
    const other = await start(new Date(CLOCK.getTime() + DAY_MS));
    const page = async (api: SampleApi, path: string) => JSON.stringify((await get(api, path)).body.data.rows).replaceAll(api.baseUrl.replace('/api/v1', ''), 'ORIGIN');
    for (const path of ['/contacts?pageSize=200', '/orders/?page=0&pageSize=200', '/orders/?page=0&pageSize=200&orderStatus=SCHEDULED,PROCESSING', '/contacts?pageSize=200&addressStatus=Corrected']) {
      expect(await page(two, path), path).toBe(await page(one, path));
      expect(await page(other, path), path).not.toBe(await page(one, path));
    }
    expect(await ids(two, 'contacts', last30Days(one).query)).toEqual(await ids(one, 'contacts', last30Days(one).query));
    // and another seed other data on the same clock
    const seeded = await start(CLOCK, 5);
    expect(await page(seeded, '/contacts?pageSize=50')).not.toBe(await page(one, '/contacts?pageSize=50'));
  });
});
