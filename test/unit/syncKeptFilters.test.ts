/**
 * Kept filters read by the sync's engine, against the sample API over loopback HTTP and a real
 * SQLite file: after a sync, each kept value's members are exactly the ids the service returns
 * for the same query (paged through here with the API client); queries and facet counts select by
 * them offline, alone, with other filters and inside a saved view; date presets roll forward with
 * the day of the read; a failed or cancelled read keeps the previous members.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptServiceQuery, keptValueName, localDay, presetRange } from '../../shared/keptFilters.ts';
import { addDays } from '../../shared/serviceParams.ts';
import { ORDER_STATUSES } from '../../shared/vocabularies.ts';
import type { ContactQuery, OrderQuery } from '../../shared/query.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../shared/views.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { learnedStatusNames, listKeptFilters } from '../../electron/main/cache/read/kept.ts';
import { contactFacets, orderFacets } from '../../electron/main/cache/read/facets.ts';
import { queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { createView } from '../../electron/main/cache/savedViews/savedViews.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import type { KeptReadOutcome } from '../../electron/main/sync/keptRefresh.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { serviceIds as readServiceIds } from '../helpers/serviceIds.ts';

const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
let dir: string;
let api: SampleApi;
let db: Database.Database;
const today = localDay(new Date());

/** The ids the service returns for `query`, read page by page with the API client, sorted. */
const serviceIds = async (resource: Resource, query: ViewServiceQuery): Promise<string[]> => (await readServiceIds(api.baseUrl, resource, query)).sort();

/** The kept members of one value, sorted. */
function keptIds(resource: Resource, param: string, value: string): string[] {
  return db.prepare(`SELECT km.id FROM kept_members km JOIN kept_filters kf ON kf.fid = km.fid WHERE kf.resource = ? AND kf.param = ? AND kf.value = ? ORDER BY km.id`)
    .pluck().all(resource, param, value) as string[];
}

/** Every id a query's windows of 1,000 rows hold, sorted. */
function allIds(window: (offset: number) => { rows: { id: string }[] }): string[] {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const rows = window(offset).rows;
    ids.push(...rows.map((r) => r.id));
    if (rows.length < 1000) return ids.sort();
  }
}

const contactIds = (query: ContactQuery): string[] => allIds((offset) => queryContacts(db, query, { offset, limit: 1000 }));
const orderIds = (query: OrderQuery): string[] => allIds((offset) => queryOrders(db, query, { offset, limit: 1000 }));

async function sync(options: { today?: string; resources?: Resource[]; retries?: number; signal?: AbortSignal } = {}): Promise<KeptReadOutcome[]> {
  const outcomes: KeptReadOutcome[] = [];
  await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens, backoffMs: 5, retries: options.retries ?? 4 }), {
    resources: options.resources ?? ['contacts', 'orders'], pageSize: 500, concurrency: 3, progressIntervalMs: 0,
    keptFilters: true, onKeptRead: (o) => outcomes.push(o), ...(options.today ? { today: options.today } : {}), ...(options.signal ? { signal: options.signal } : {}),
  });
  return outcomes;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-kept-'));
  api = await startSampleApi({ contacts: 3000, orders: 900, seed: 44 });
  db = openCache(join(dir, 'cache.sqlite'));
}, 60_000);

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kept filters', () => {
  it('a new cache keeps address status, last mailed in 30 days, order status and payment, none read yet', () => {
    const kept = listKeptFilters(db);
    expect(kept.map((k) => `${k.resource} ${k.param} ${k.value}`)).toEqual([
      'contacts addressStatus Failed', 'contacts addressStatus Verified', 'contacts addressStatus Corrected', 'contacts lastMailedDate 30d',
      'orders orderStatus ON_HOLD', 'orders orderStatus SCHEDULED', 'orders orderStatus PROCESSING', 'orders orderStatus MAILED', 'orders orderStatus CANCELED',
      'orders paymentStatus PENDING', 'orders paymentStatus PAID', 'orders paymentStatus PAYMENT_FAILED', 'orders paymentStatus NOT_CHARGED',
    ]);
    expect(kept.every((k) => k.readAt === null && k.members === null)).toBe(true);
    expect(contactFacets(db, {}).kept.find((f) => f.param === 'addressStatus')?.options.map((o) => o.count)).toEqual([null, null, null]);
  });

  it('after a sync each kept value holds exactly what the service returns for its query', async () => {
    const outcomes = await sync();
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(13).fill('succeeded'));
    for (const k of listKeptFilters(db)) {
      const expected = await serviceIds(k.resource, keptServiceQuery(k.resource, k.param, k.value, today) as ViewServiceQuery);
      expect(keptIds(k.resource, k.param, k.value), `${k.param} ${k.value}`).toEqual(expected);
      expect(k.members).toBe(expected.length);
      expect(k.serverCount).toBe(expected.length);
      expect(k.readAt).not.toBeNull();
      expect(k.asOfDay).toBe(k.param === 'lastMailedDate' ? today : null);
      expect(k.lastError).toBeNull();
    }
    // The sample data has rows of each: a kept value that found nothing would prove little.
    expect(listKeptFilters(db).filter((k) => (k.members ?? 0) === 0).map((k) => k.value)).toEqual([]);
  });

  it('a query selects by kept values offline: one value, OR within a parameter, AND across, with local filters', async () => {
    api.setFaults({ serverErrorRate: 1 }); // nothing below may ask the service
    try {
      const failed = keptIds('contacts', 'addressStatus', 'Failed');
      const corrected = keptIds('contacts', 'addressStatus', 'Corrected');
      const recent = new Set(keptIds('contacts', 'lastMailedDate', '30d'));
      expect(contactIds({ kept: [{ param: 'addressStatus', values: ['Failed'] }] })).toEqual(failed);
      expect(contactIds({ kept: [{ param: 'addressStatus', values: ['Failed', 'Corrected'] }] })).toEqual([...failed, ...corrected].sort());
      const both = contactIds({ kept: [{ param: 'addressStatus', values: ['Failed'] }, { param: 'lastMailedDate', values: ['30d'] }] });
      expect(both).toEqual(failed.filter((id) => recent.has(id)));
      expect(both.length).toBeGreaterThan(0);
      const state = queryContacts(db, {}, { offset: 0, limit: 1 }).rows[0]!.state;
      const inState = new Set(contactIds({ states: [state] }));
      expect(contactIds({ states: [state], kept: [{ param: 'addressStatus', values: ['Failed'] }] })).toEqual(failed.filter((id) => inState.has(id)));
      // A value that is not kept selects nothing rather than everything.
      expect(contactIds({ kept: [{ param: 'addressStatus', values: ['Unknown status'] }] })).toEqual([]);
      const onHoldUnpaid = orderIds({ kept: [{ param: 'orderStatus', values: ['ON_HOLD'] }, { param: 'paymentStatus', values: ['PAYMENT_FAILED'] }] });
      const unpaid = new Set(keptIds('orders', 'paymentStatus', 'PAYMENT_FAILED'));
      expect(onHoldUnpaid).toEqual(keptIds('orders', 'orderStatus', 'ON_HOLD').filter((id) => unpaid.has(id)));
    } finally {
      api.setFaults({});
    }
  });

  it('facet counts are the rows each kept value would select within the view', () => {
    const whole = contactFacets(db, {}).kept.find((f) => f.param === 'addressStatus')!;
    expect(whole.title).toBe('Address status');
    expect(whole.options.map((o) => [o.label, o.count])).toEqual(['Failed', 'Verified', 'Corrected'].map((v) => [v, keptIds('contacts', 'addressStatus', v).length]));
    const search = queryContacts(db, {}, { offset: 0, limit: 1 }).rows[0]!.lastName.slice(0, 3);
    const within = contactFacets(db, { search, kept: [{ param: 'addressStatus', values: ['Failed'] }] });
    for (const o of within.kept.find((f) => f.param === 'addressStatus')!.options) {
      // The parameter's own selection is left out of its counts.
      expect(o.count, o.value).toBe(contactIds({ search, kept: [{ param: 'addressStatus', values: [o.value] }] }).length);
    }
    const recent = within.kept.find((f) => f.param === 'lastMailedDate')!.options[0]!;
    expect(recent.label).toBe('Last 30 days');
    expect(recent.asOfDay).toBe(today);
    expect(recent.count).toBe(contactIds({ search, kept: [{ param: 'addressStatus', values: ['Failed'] }, { param: 'lastMailedDate', values: ['30d'] }] }).length);
    const payment = orderFacets(db, { kept: [{ param: 'orderStatus', values: ['ON_HOLD'] }] }).kept.find((f) => f.param === 'paymentStatus')!;
    expect(payment.options.map((o) => o.label)).toEqual(['Pending', 'Paid', 'Payment failed', 'Not charged']);
    for (const o of payment.options) expect(o.count).toBe(orderIds({ kept: [{ param: 'orderStatus', values: ['ON_HOLD'] }, { param: 'paymentStatus', values: [o.value] }] }).length);
    // Every count equals the rows of the view with that value ticked instead: local filters, a
    // value of another parameter, two values of one (OR), and a filter no row matches.
    const state = queryContacts(db, {}, { offset: 0, limit: 1 }).rows[0]!.state;
    const failedOrVerified = { param: 'addressStatus', values: ['Failed', 'Verified'] };
    const cases: ContactQuery[] = [
      { states: [state] }, { kept: [{ param: 'lastMailedDate', values: ['30d'] }] }, { kept: [failedOrVerified] },
      { verified: ['yes'], kept: [failedOrVerified, { param: 'lastMailedDate', values: ['30d'] }] }, { states: ['Nowhere'] },
    ];
    for (const query of cases) {
      for (const facet of contactFacets(db, query).kept) {
        for (const o of facet.options) {
          const kept = [...(query.kept ?? []).filter((s) => s.param !== facet.param), { param: facet.param, values: [o.value] }];
          expect(o.count, `${JSON.stringify(query)} ${facet.param} ${o.value}`).toBe(contactIds({ ...query, kept }).length);
        }
      }
    }
  });

  it('each status code is named by the one order status the service returns its orders under', async () => {
    const expected: Record<string, string> = {};
    for (const status of ORDER_STATUSES) {
      const ids = await serviceIds('orders', { orderStatus: [status] });
      const codes = new Set(ids.map((id) => db.prepare('SELECT status FROM orders WHERE id = ?').pluck().get(id) as number));
      // The sample API gives each status one code, as the service is taken to.
      expect(codes.size, status).toBe(1);
      expected[String([...codes][0])] = keptValueName('orderStatus', status);
    }
    expect(learnedStatusNames(db)).toEqual({ names: expected, conflicts: [] });
    expect(Object.values(expected)).toEqual(['On hold', 'Scheduled', 'Processing', 'Mailed', 'Canceled']);
  });

  it('inside a saved view a kept value narrows the view to its members', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Verified in the service', serviceQuery: { addressStatus: ['Verified'] } });
    await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens }), { resources: [], pageSize: 500, views: { ids: [view.id] } });
    const members = new Set(contactIds({ view: view.id }));
    expect(members.size).toBeGreaterThan(0);
    const recent = keptIds('contacts', 'lastMailedDate', '30d');
    expect(contactIds({ view: view.id, kept: [{ param: 'lastMailedDate', values: ['30d'] }] })).toEqual(recent.filter((id) => members.has(id)));
  });

  it('a date preset rolls forward: the next read computes its range from its own day', async () => {
    const later = addDays(today, 20);
    const outcomes = await sync({ resources: ['contacts'], today: later });
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(4).fill('succeeded'));
    const kept = listKeptFilters(db, 'contacts').find((k) => k.param === 'lastMailedDate')!;
    expect(kept.asOfDay).toBe(later);
    const range = presetRange('30d', later);
    expect(range).toEqual({ startDate: addDays(today, -9), endDate: later });
    const expected = await serviceIds('contacts', { lastMailedDate: range });
    expect(keptIds('contacts', 'lastMailedDate', '30d')).toEqual(expected);
    // Twenty days on, a third of the sample's last 30 days is left: fewer rows, not the same ones.
    expect(expected.length).toBeLessThan(await serviceIds('contacts', { lastMailedDate: presetRange('30d', today) }).then((ids) => ids.length));
  });

  it('a failed read keeps the previous members and says why; the next success clears it', async () => {
    const before = keptIds('orders', 'orderStatus', 'MAILED');
    const readAt = listKeptFilters(db, 'orders').find((k) => k.value === 'MAILED')!.readAt;
    // The records sync succeeds; every request after it fails.
    const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens, backoffMs: 5, retries: 0 });
    const outcomes: KeptReadOutcome[] = [];
    await runSync(db, source, {
      resources: ['orders'], pageSize: 500, keptFilters: true, onKeptRead: (o) => outcomes.push(o),
      onRun: () => api.setFaults({ serverErrorRate: 1 }),
    });
    api.setFaults({});
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(9).fill('failed'));
    expect(outcomes[0]!.error?.message).toMatch(/HTTP 500.* Order status "On hold" keeps the orders its last read found\.$/);
    expect(keptIds('orders', 'orderStatus', 'MAILED')).toEqual(before);
    const failed = listKeptFilters(db, 'orders').find((k) => k.value === 'MAILED')!;
    expect(failed.readAt).toBe(readAt);
    expect(failed.lastError?.code).toBeTruthy();
    expect(failed.members).toBe(before.length);
    expect(orderIds({ kept: [{ param: 'orderStatus', values: ['MAILED'] }] })).toEqual(before);
    const again = await sync({ resources: ['orders'] });
    expect(again.every((o) => o.outcome === 'succeeded')).toBe(true);
    expect(listKeptFilters(db, 'orders').every((k) => k.lastError === null)).toBe(true);
  });

  it('a cancelled sync leaves the kept values as they were', async () => {
    const before = listKeptFilters(db, 'contacts');
    const abort = new AbortController();
    const outcomes: KeptReadOutcome[] = [];
    await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens }), {
      resources: ['contacts'], pageSize: 100, concurrency: 1, keptFilters: true, signal: abort.signal,
      // Pages of the first kept value take 50 ms each: the cancel lands in the middle of its read.
      onRun: () => {
        api.setFaults({ latencyMs: 50 });
        setTimeout(() => abort.abort(), 120);
      },
      onKeptRead: (o) => outcomes.push(o),
    });
    api.setFaults({});
    expect(outcomes.map((o) => o.outcome)).toEqual(['cancelled']);
    expect(listKeptFilters(db, 'contacts')).toEqual(before);
    expect(db.prepare("SELECT count(*) FROM view_stage WHERE view_id LIKE 'kept-%'").pluck().get()).toBe(0);
  });

  it('a code whose orders the service lists under two statuses is reported, not named', () => {
    const mailed = learnedStatusNames(db).names;
    const code = Object.keys(mailed).find((c) => mailed[c] === 'Mailed')!;
    const order = db.prepare('SELECT id FROM orders WHERE status = ? LIMIT 1').pluck().get(Number(code)) as string;
    const canceled = db.prepare("SELECT fid FROM kept_filters WHERE param = 'orderStatus' AND value = 'CANCELED'").pluck().get() as number;
    db.prepare('INSERT INTO kept_members (fid, id) VALUES (?, ?)').run(canceled, order);
    const learned = learnedStatusNames(db);
    expect(learned.names[code]).toBeUndefined();
    const total = db.prepare('SELECT count(*) FROM orders WHERE status = ?').pluck().get(Number(code)) as number;
    expect(learned.conflicts).toEqual([{ code: Number(code), statuses: [{ name: 'Mailed', orders: total }, { name: 'Canceled', orders: 1 }] }]);
    expect(Object.keys(learned.names)).toHaveLength(4);
  });
});
