// The sample API's clock moved on (dataset.ts advanceClock, the control route): what moves, what
// stays, and a record that lists exactly what the served rows show changed, over real loopback HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SampleApiRuntime } from '../../electron/main/core/sampleApiRuntime.ts';
import { createSampleDataset, generateContact, generateOrder, type SampleClockAdvance } from '../../electron/main/sampleApi/dataset.ts';
import { orderHiddenOf } from '../../electron/main/sampleApi/hidden.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { SAMPLE_STATUS_CODES } from '../../electron/main/sampleApi/timeline.ts';
import { ORDER_STATUSES } from '../../shared/vocabularies.ts';

/** The clock of these tests' datasets: their dates are laid out relative to it. */
const CLOCK = new Date('2026-03-15T12:00:00Z');
const DAY_MS = 86_400_000;
const auth = { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}`, refreshtoken: SAMPLE_REFRESH_TOKEN };

type Row = Record<string, unknown> & { id: string };
type Change = { id: string; field: string; recipientId?: string; from: unknown; to: unknown };

async function getJson(url: string): Promise<{ count: number; rows: Row[] }> {
  const res = await fetch(url, { headers: auth });
  expect(res.status, url).toBe(200);
  return ((await res.json()) as { data: { count: number; rows: Row[] } }).data;
}

/** Every row of one listing, read page by page over HTTP. */
async function allRows(api: SampleApi, resource: 'contacts' | 'orders', filter = ''): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 0; ; page++) {
    const data = await getJson(`${api.baseUrl}/${resource}?page=${page}&pageSize=250${filter}`);
    rows.push(...data.rows);
    if (rows.length >= data.count || data.rows.length === 0) return rows;
  }
}

function advance(api: SampleApi, days: string, headers: Record<string, string> = auth, method = 'POST'): Promise<Response> {
  return fetch(`${new URL(api.baseUrl).origin}/sample/advance?days=${days}`, { method, headers });
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Every field that differs between two reads of one listing (rows matched by id; recipients by theirs). */
function differences(before: Row[], after: Row[], resource: 'contacts' | 'orders'): Change[] {
  const out: Change[] = [];
  const earlier = new Map(before.map((row) => [row.id, row]));
  expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
  for (const row of after) {
    const was = earlier.get(row.id) as Row;
    for (const field of new Set([...Object.keys(was), ...Object.keys(row)])) {
      if (resource === 'orders' && field === 'contacts') {
        const recipients = row.contacts as Row[];
        const wereRecipients = new Map((was.contacts as Row[]).map((r) => [r.id, r]));
        expect(recipients.map((r) => r.id)).toEqual([...wereRecipients.keys()]);
        for (const recipient of recipients) {
          const w = wereRecipients.get(recipient.id) as Row;
          for (const f of new Set([...Object.keys(w), ...Object.keys(recipient)])) {
            if (!sameJson(w[f], recipient[f])) out.push({ id: row.id, field: f, recipientId: recipient.id, from: w[f], to: recipient[f] });
          }
        }
      } else if (!sameJson(was[field], row[field])) out.push({ id: row.id, field, from: was[field], to: row[field] });
    }
  }
  return out;
}

const byKey = (changes: readonly Change[]): Change[] =>
  [...changes].sort((a, b) => `${a.id}|${a.recipientId ?? ''}|${a.field}`.localeCompare(`${b.id}|${b.recipientId ?? ''}|${b.field}`));

describe('the sample dataset without an advance', () => {
  it('serves exactly what the generator makes, at its own day', () => {
    const ds = createSampleDataset({ contacts: 300, orders: 200, seed: 4, clock: CLOCK });
    const asOf = ds.asOf.getTime();
    expect(ds.now.getTime()).toBe(asOf);
    const contacts = [...ds.contacts()];
    expect(contacts).toEqual(contacts.map((c) => generateContact(4, Number(c.id) - 10_000_001, 300, asOf)));
    const orders = [...ds.orders()];
    expect(orders).toEqual(orders.map((o) => generateOrder(4, Number(o.id) - 50_000_001, 200, 300, undefined, asOf)));
    for (const o of orders) expect(ds.orderHidden(o.id)).toEqual(orderHiddenOf(4, Number(o.id) - 50_000_001, 200, asOf));
  });
});

describe('advancing the sample API clock', () => {
  let api: SampleApi;
  let before: { contacts: Row[]; orders: Row[] };
  let after: { contacts: Row[]; orders: Row[] };
  let record: SampleClockAdvance;
  let scheduledBefore: Row[];

  beforeAll(async () => {
    api = await startSampleApi({ contacts: 600, orders: 400, seed: 3, clock: CLOCK });
    before = { contacts: await allRows(api, 'contacts'), orders: await allRows(api, 'orders') };
    // Fills the filtered-query cache before the advance, so a stale answer would show below.
    scheduledBefore = await allRows(api, 'orders', '&orderStatus=SCHEDULED');
    record = api.advanceClock(30);
    after = { contacts: await allRows(api, 'contacts'), orders: await allRows(api, 'orders') };
  });
  afterAll(() => api.close());

  it('moves now by the days asked and keeps the layout', () => {
    expect(record.days).toBe(30);
    expect(record.now).toBe(new Date(api.dataset.asOf.getTime() + 30 * DAY_MS).toISOString());
    expect(api.dataset.now.toISOString()).toBe(record.now);
    expect(api.dataset.asOf.toISOString()).toBe('2026-03-15T00:00:00.000Z');
  });

  it('lists exactly the differences between the rows served before and after', () => {
    expect(byKey(record.orders)).toEqual(byKey(differences(before.orders, after.orders, 'orders')));
    expect(byKey(record.contacts)).toEqual(byKey(differences(before.contacts, after.contacts, 'contacts')));
  });

  it('moves statuses forward only, leaves ON_HOLD and CANCELED, and delivers some recipients', () => {
    const code = new Map(before.orders.map((o) => [o.id, o.status as number]));
    const { SCHEDULED, PROCESSING, MAILED, ON_HOLD, CANCELED } = SAMPLE_STATUS_CODES;
    const statusChanges = record.orders.filter((c) => c.field === 'status');
    expect(statusChanges.length).toBeGreaterThan(0);
    for (const c of statusChanges) {
      expect([`${SCHEDULED}→${PROCESSING}`, `${SCHEDULED}→${MAILED}`, `${PROCESSING}→${MAILED}`], c.id).toContain(`${c.from}→${c.to}`);
    }
    for (const o of after.orders) if (code.get(o.id) === ON_HOLD || code.get(o.id) === CANCELED) expect(o.status).toBe(code.get(o.id));
    const delivered = record.orders.filter((c) => c.field === 'isDelivered');
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((c) => c.from === false && c.to === true && c.recipientId !== undefined)).toBe(true);
    for (const c of record.orders.filter((x) => x.field === 'trackingCode')) {
      expect(c.from).toBeNull();
      expect(c.to).toMatch(/^9400 1118 9922 \d{4} \d{4} \d{2}$/);
    }
    expect(new Set(record.orders.map((c) => c.field))).toEqual(new Set(['status', 'isDelivered', 'trackingCode']));
  });

  it('moves a few contacts house, through the edit overlay', () => {
    const moved = new Set(record.contacts.map((c) => c.id));
    expect(moved.size).toBe(Math.round(600 * 0.005));
    expect(record.contacts.filter((c) => c.field === 'address1')).toHaveLength(moved.size);
    for (const c of record.contacts) {
      expect(['address1', 'address2', 'city', 'state', 'zip']).toContain(c.field);
      expect(c.from).not.toBe(c.to);
      expect(api.dataset.contactById(c.id)?.[c.field as 'address1']).toBe(c.to);
    }
  });

  it('answers the status, processing and payment filters as the rows now say', async () => {
    for (const name of ORDER_STATUSES) {
      const filtered = (await allRows(api, 'orders', `&orderStatus=${name}`)).map((o) => o.id);
      expect(filtered, name).toEqual(after.orders.filter((o) => o.status === SAMPLE_STATUS_CODES[name]).map((o) => o.id));
    }
    expect(scheduledBefore.length).toBeGreaterThan((await allRows(api, 'orders', '&orderStatus=SCHEDULED')).length);
    for (const o of after.orders) {
      const hidden = api.dataset.orderHidden(o.id)!;
      const processed = o.status === SAMPLE_STATUS_CODES.PROCESSING || o.status === SAMPLE_STATUS_CODES.MAILED;
      expect(hidden.processedAt !== null, o.id).toBe(processed);
      if (processed) expect(['PAID', 'NOT_CHARGED']).toContain(hidden.paymentStatus);
    }
    const processedToday = after.orders.filter((o) => api.dataset.orderHidden(o.id)!.processedAt !== null).length;
    expect((await getJson(`${api.baseUrl}/orders?page=0&pageSize=1&processingDate=2000-01-01,2100-01-01`)).count).toBe(processedToday);
  });
});

describe('advanceClock', () => {
  it('adds up: 3 then 4 days serve the orders of 7 days', () => {
    const a = createSampleDataset({ contacts: 400, orders: 300, seed: 9, clock: CLOCK });
    const b = createSampleDataset({ contacts: 400, orders: 300, seed: 9, clock: CLOCK });
    a.advanceClock(3);
    a.advanceClock(4);
    b.advanceClock(7);
    expect(a.now).toEqual(b.now);
    expect(a.now.getTime() - a.asOf.getTime()).toBe(7 * DAY_MS);
    expect([...a.orders()]).toEqual([...b.orders()]);
    for (const id of a.orderIds()) expect(a.orderHidden(id)).toEqual(b.orderHidden(id));
  });

  it('is deterministic per seed and day', () => {
    const one = createSampleDataset({ contacts: 400, orders: 300, seed: 9, clock: CLOCK }).advanceClock(30);
    const two = createSampleDataset({ contacts: 400, orders: 300, seed: 9, clock: CLOCK }).advanceClock(30);
    expect(one).toEqual(two);
  });

  it('refuses anything but a whole number of days from 1 to 365, and changes nothing then', () => {
    const ds = createSampleDataset({ contacts: 10, orders: 10, seed: 1, clock: CLOCK });
    for (const days of [0, -1, 366, 1.5, Number.NaN, Infinity, '3' as unknown as number]) {
      expect(() => ds.advanceClock(days), String(days)).toThrow(RangeError);
      expect(() => ds.advanceClock(days)).toThrow(/whole number of days from 1 to 365/);
    }
    expect(ds.now).toEqual(ds.asOf);
    expect(ds.version).toBe(0);
    expect(ds.advanceClock(365).days).toBe(365);
  });

  it('lets edits made before win over the advance', () => {
    const ds = createSampleDataset({ contacts: 1, orders: 300, seed: 3, clock: CLOCK });
    const probe = createSampleDataset({ contacts: 1, orders: 300, seed: 3, clock: CLOCK }).advanceClock(30);
    const moved = probe.orders.find((c) => c.field === 'status')!;
    ds.updateOrder(moved.id, { status: SAMPLE_STATUS_CODES.ON_HOLD });
    ds.setOrderHidden(moved.id, { paymentStatus: 'PENDING', processedAt: null });
    ds.updateContact('10000001', { address1: '1 Edited Way' });
    const record = ds.advanceClock(30);
    expect(ds.orderById(moved.id)?.status).toBe(SAMPLE_STATUS_CODES.ON_HOLD);
    expect(ds.orderHidden(moved.id)).toMatchObject({ paymentStatus: 'PENDING', processedAt: null });
    expect(record.orders.some((c) => c.id === moved.id && c.field === 'status')).toBe(false);
    // The only contact's address is an edit's, so no contact moves.
    expect(ds.contactById('10000001')?.address1).toBe('1 Edited Way');
    expect(record.contacts).toEqual([]);
  });
});

describe('the control route POST /sample/advance', () => {
  let api: SampleApi;
  beforeAll(async () => {
    api = await startSampleApi({ contacts: 200, orders: 200, seed: 5, clock: CLOCK, prerenderPageSize: 50 });
  });
  afterAll(() => api.close());

  it('advances with the token and answers the record; prerendered pages are not served stale', async () => {
    await getJson(`${api.baseUrl}/orders?page=0&pageSize=50`);
    const requests = api.stats().requests;
    const res = await advance(api, '30');
    expect(res.status).toBe(200);
    const record = (await res.json()) as SampleClockAdvance;
    expect(record).toMatchObject({ days: 30, now: api.dataset.now.toISOString() });
    expect(record.orders.length).toBeGreaterThan(0);
    expect(api.stats().requests).toBe(requests);
    const page = await getJson(`${api.baseUrl}/orders?page=0&pageSize=50`);
    expect(page.rows).toEqual(JSON.parse(JSON.stringify(api.dataset.ordersFrom(0, 50))));
  });

  it('answers 401 without the token, 400 for a bad days, 405 for GET, and is not under /api/v1', async () => {
    const now = api.dataset.now.getTime();
    const missing = await advance(api, '3', {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    expect((await advance(api, '3', { authorization: 'Bearer nope' })).status).toBe(401);
    for (const days of ['0', '366', '1.5', 'abc', '', '-2']) {
      const res = await advance(api, days);
      expect(res.status, days).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'BAD_REQUEST', parameter: 'days' });
    }
    expect((await fetch(`${new URL(api.baseUrl).origin}/sample/advance`, { method: 'POST', headers: auth })).status).toBe(400);
    expect((await advance(api, '3', auth, 'GET')).status).toBe(405);
    expect((await fetch(`${api.baseUrl}/sample/advance?days=3`, { method: 'POST', headers: auth })).status).toBe(404);
    expect(api.dataset.now.getTime()).toBe(now);
  });

  it('works when the sample API runs in a worker thread', async () => {
    const runtime = new SampleApiRuntime({ server: { contacts: 200, orders: 300, seed: 3, clock: CLOCK }, thread: 'worker' });
    try {
      const baseUrl = await runtime.ensure();
      const res = await fetch(`${new URL(baseUrl).origin}/sample/advance?days=30`, { method: 'POST', headers: auth });
      expect(res.status).toBe(200);
      const record = (await res.json()) as SampleClockAdvance;
      const expected = createSampleDataset({ contacts: 200, orders: 300, seed: 3, clock: CLOCK }).advanceClock(30);
      expect(record).toEqual(JSON.parse(JSON.stringify(expected)));
      const changed = record.orders.find((c) => c.field === 'status')!;
      const served = await getJson(`${baseUrl}/orders?page=0&pageSize=300`);
      expect(served.rows.find((o) => o.id === changed.id)?.status).toBe(changed.to);
    } finally {
      await runtime.stop();
    }
  });
});
