/**
 * The Overview's numbers computed at publish (build/overview.ts, read/overview.ts) against the
 * sample API's own records, grouped here: after a first sync, after a second one the sample API's
 * clock moved on for (statuses, deliveries, new and deleted orders), and for a cache and a history
 * written before the numbers were stored (migration 10, history version 2). And the order filters
 * the Overview's marks open (envelopeTypes, postageTypes, deliveredBetween, firstSeenBetween),
 * with the edges of local days, in a time zone that moves its clocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Local days are this process's: a zone with a 23-hour day (8 March 2026) and a 25-hour one.
process.env.TZ = 'America/Chicago';

import type { Overview } from '../../shared/contract.ts';
import { localDay } from '../../shared/keptFilters.ts';
import type { OrderQuery } from '../../shared/query.ts';
import { uspsStateCode } from '../../shared/usStates.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { SCHEMA_VERSION } from '../../electron/main/cache/store/migrations/index.ts';
import { overview } from '../../electron/main/cache/read/overview.ts';
import { listKeptFilters } from '../../electron/main/cache/read/kept.ts';
import { queryOrders } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let file: string;
let db: Database.Database;
let api: SampleApi;

async function sync(): Promise<void> {
  const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } });
  const runs = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 100, keptFilters: true });
  for (const run of runs) expect(run.outcome, `${run.resource}: ${run.error?.message ?? ''}`).toBe('succeeded');
}

/** Counts of `values` per value, most first then by value, as the overview lists them. */
function counted(values: Iterable<string>): { value: string; count: number }[] {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/** What the overview's record numbers must be, grouped from the sample API's records as it serves them now. */
function expectedFromRecords() {
  const byState: Record<string, number> = {};
  const stateValues: Record<string, Set<string>> = {};
  let contacts = 0;
  for (const c of api.dataset.contacts()) {
    const code = uspsStateCode(c.state) ?? 'other';
    byState[code] = (byState[code] ?? 0) + 1;
    (stateValues[code] ??= new Set()).add(c.state ?? '');
    contacts += 1;
  }
  const orders = [...api.dataset.orders()];
  const byStatus = new Map<number | null, number>();
  const templates = new Map<string, { orders: number; recipients: number }>();
  let recipients = 0;
  let delivered = 0;
  for (const o of orders) {
    byStatus.set(o.status ?? null, (byStatus.get(o.status ?? null) ?? 0) + 1);
    recipients += o.contacts.length;
    delivered += o.contacts.filter((r) => r.isDelivered).length;
    const t = templates.get(o.template.id) ?? { orders: 0, recipients: 0 };
    templates.set(o.template.id, { orders: t.orders + 1, recipients: t.recipients + o.contacts.length });
  }
  return {
    contacts: { total: contacts, byState, stateValues: Object.fromEntries(Object.entries(stateValues).map(([k, v]) => [k, [...v].sort()])) },
    orders: {
      total: orders.length, byStatus,
      byProductType: counted(orders.map((o) => o.product.productType ?? '')),
      byEnvelope: counted(orders.map((o) => o.product.envelopeType ?? '')),
      byPostage: counted(orders.map((o) => o.product.postageType ?? '')),
    },
    recipients: { total: recipients, delivered },
    templates,
  };
}

/** Checks `o` against {@link expectedFromRecords} and the cache's own kept filters. */
function expectRecordNumbers(o: Overview): void {
  const e = expectedFromRecords();
  expect(o.contacts.total).toBe(e.contacts.total);
  expect(o.contacts.byState).toEqual(e.contacts.byState);
  expect(Object.fromEntries(Object.entries(o.contacts.stateValues).map(([k, v]) => [k, [...v].sort()]))).toEqual(e.contacts.stateValues);
  expect(o.orders.total).toBe(e.orders.total);
  expect(new Map(o.orders.byStatus.map((s) => [s.code, s.count]))).toEqual(e.orders.byStatus);
  expect(o.orders.byProductType).toEqual(e.orders.byProductType);
  expect(o.orders.byEnvelope).toEqual(e.orders.byEnvelope);
  expect(o.orders.byPostage).toEqual(e.orders.byPostage);
  expect(o.recipients).toEqual(e.recipients);
  expect(new Map(o.templates.map((t) => [t.id, { orders: t.orders, recipients: t.recipients }]))).toEqual(e.templates);
  expect(o.templates.map((t) => t.orders)).toEqual([...o.templates.map((t) => t.orders)].sort((a, b) => b - a));
  expect(o.orders.firstSeenByDay.reduce((n, d) => n + d.count, 0)).toBe(e.orders.total);
  // Nothing the sample API sends is invalid: the cache agrees.
  expect(o.contacts.invalid).toBe(db.prepare('SELECT count(*) FROM contacts WHERE invalid_reason IS NOT NULL').pluck().get());
  expect(o.orders.invalid).toBe(db.prepare('SELECT count(*) FROM orders WHERE invalid_reason IS NOT NULL').pluck().get());
  const read = listKeptFilters(db).filter((k) => k.readAt !== null);
  expect(read.length).toBeGreaterThan(0);
  expect(o.kept).toEqual(read.map((k) => ({ resource: k.resource, param: k.param, value: k.value, members: k.members, readAt: k.readAt })));
}

/** Each live order's recipients, delivered or not, by order id and recipient id. */
function deliveries(): Map<string, Map<string, boolean>> {
  return new Map([...api.dataset.orders()].map((o) => [o.id, new Map(o.contacts.map((r) => [r.id, r.isDelivered === true]))]));
}

const ids = (query: OrderQuery) => queryOrders(db, query, { offset: 0, limit: 10_000 }).rows.map((r) => r.id).sort();

let first: Overview;
let firstSyncDay: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-overview-pre-'));
  file = join(dir, 'p1.sqlite');
  api = await startSampleApi({ contacts: 400, orders: 160, seed: 29 });
  const contactIds = [...api.dataset.contactIds()];
  for (const [i, state] of [[0, 'il'], [1, 'Ontario'], [2, '']] as const) api.dataset.updateContact(contactIds[i]!, { state });
  // Orders that send no envelope or postage type, and one that sends an empty one.
  const orderIds = [...api.dataset.orders()].map((o) => o.id);
  for (const [i, patch] of [[0, { envelopeType: null }], [1, { envelopeType: null, postageType: '' }], [2, { postageType: null }]] as const) {
    const o = [...api.dataset.orders()].find((x) => x.id === orderIds[i])!;
    api.dataset.updateOrder(o.id, { product: { ...o.product, ...patch } });
  }
  db = openCache(file);
  firstSyncDay = localDay(new Date());
  await sync();
  first = overview(db);
}, 120_000);

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the overview computed at publish', () => {
  it('holds the numbers of the records after a first sync, with no deliveries observed yet', () => {
    expectRecordNumbers(first);
    expect(first.orders.firstSeenByDay).toEqual([{ day: firstSyncDay, count: 160 }]);
    expect(first.orders.byEnvelope.find((v) => v.value === '')?.count).toBe(2);
    expect(first.orders.byPostage.find((v) => v.value === '')?.count).toBe(2);
    expect(first.contacts.stateValues.IL).toContain('il');
    expect(first.contacts.stateValues.other?.sort()).toEqual(['', 'Ontario']);
    expect(first.deliveriesByDay).toEqual([]);
    expect(first.computedAt).not.toBeNull();
    expect(first.campaigns.length).toBeGreaterThan(0);
  });

  it('reads stored numbers: a change to the mirror alone does not move them until a publish', () => {
    db.exec("UPDATE contacts SET state = 'Texas' WHERE rowid IN (SELECT rowid FROM contacts LIMIT 10)");
    expect(overview(db).contacts.byState).toEqual(first.contacts.byState);
  });

  it('follows a second sync after the sample API moved on: statuses, deliveries, new and deleted orders', async () => {
    const before = deliveries();
    api.dataset.advanceClock(40);
    const added = api.dataset.addOrders(6);
    const gone = [...api.dataset.orders()].find((o) => !added.includes(o.id))!.id;
    api.dataset.deleteOrder(gone);
    api.dataset.addContacts(5);
    const after = deliveries();
    let observed = 0;
    for (const [id, recipients] of after) {
      const was = before.get(id);
      if (!was) continue;
      for (const [rid, delivered] of recipients) if (delivered && was.get(rid) === false) observed += 1;
    }
    expect(observed).toBeGreaterThan(0);
    await sync();
    const second = overview(db);
    expectRecordNumbers(second);
    expect(second.orders.total).toBe(165);
    expect(second.contacts.total).toBe(405);
    expect(second.deliveriesByDay).toEqual([{ day: localDay(new Date()), count: observed }]);
    expect(second.computedAt! > first.computedAt!).toBe(true);
    // The delivered counts per run are the history's own observations, counted here.
    const counted = db.prepare(`SELECT count(*) FROM history.observations o JOIN history.observed_fields f ON f.code = o.field
      WHERE f.field = 'isDelivered' AND o.to_value = 'true'`).pluck().get();
    expect(counted).toBe(observed);
  });

  it('fills the numbers of a cache and a history written before they were stored', () => {
    const now = overview(db);
    db.exec('DROP TABLE history.delivered_counts');
    db.pragma('history.user_version = 1');
    // A reader of a version 1 history groups its observations instead.
    expect(overview(db).deliveriesByDay).toEqual(now.deliveriesByDay);
    // A version 9 cache: none of the tables the later migrations add.
    db.exec('DROP TABLE contact_overview; DROP TABLE order_overview; DROP TABLE contact_duplicates; DROP TABLE contact_duplicates_state');
    db.pragma('user_version = 9');
    db.close();
    db = openCache(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('history.user_version', { simple: true })).toBe(2);
    expect(db.prepare('SELECT count(*) FROM history.delivered_counts').pluck().get()).toBe(1);
    const filled = overview(db);
    expect({ ...filled, computedAt: null }).toEqual({ ...now, computedAt: null });
    expect(filled.computedAt! >= now.computedAt!).toBe(true);
  });

  it('is empty, computedAt null, for a cache never synced', () => {
    const empty = openCache(join(dir, 'never.sqlite'));
    try {
      const o = overview(empty);
      expect(o.computedAt).toBeNull();
      expect(o.contacts).toEqual({ total: 0, byState: {}, stateValues: {}, invalid: 0 });
      expect(o.orders.total).toBe(0);
      expect(o.deliveriesByDay).toEqual([]);
    } finally {
      empty.close();
    }
  });
});

describe('the order filters of the Overview', () => {
  it('envelopeTypes and postageTypes select the orders of those types, "" those that send none', () => {
    const orders = [...api.dataset.orders()];
    const of = (pick: (o: (typeof orders)[number]) => boolean) => orders.filter(pick).map((o) => o.id).sort();
    expect(ids({ envelopeTypes: ['#10 double window'] })).toEqual(of((o) => o.product.envelopeType === '#10 double window'));
    expect(ids({ envelopeTypes: ['', 'none'] })).toEqual(of((o) => !o.product.envelopeType || o.product.envelopeType === 'none'));
    expect(ids({ postageTypes: [''] })).toEqual(of((o) => !o.product.postageType));
    expect(ids({ postageTypes: ['standard'], envelopeTypes: ['none'] })).toEqual(of((o) => o.product.postageType === 'standard' && o.product.envelopeType === 'none'));
    expect(ids({ envelopeTypes: ['nothing like it'] })).toEqual([]);
  });

  /** Local midnight of `day` in this process's zone, plus `ms`, as ISO 8601 UTC. */
  const at = (day: string, ms = 0) => {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    return new Date(new Date(y, m - 1, d).getTime() + ms).toISOString();
  };

  it('firstSeenBetween takes whole local days, a 23-hour one too', () => {
    const all = ids({});
    const [a, b, c, d, e] = all as [string, string, string, string, string];
    const set = db.prepare('UPDATE order_first_seen SET first_seen_at = ? WHERE id = ?');
    db.exec("UPDATE order_first_seen SET first_seen_at = '2026-01-01T12:00:00.000Z'");
    set.run(at('2026-03-08', -1), a); // 7 March, its last millisecond
    set.run(at('2026-03-08'), b); // 8 March, its first
    set.run(at('2026-03-09', -1), c); // 8 March, its last (23 hours after its first)
    set.run(at('2026-03-09'), d); // 9 March
    set.run(at('2026-11-01', 24.5 * 3_600_000), e); // 1 November, its 25th hour
    expect(new Date(at('2026-03-09')).getTime() - new Date(at('2026-03-08')).getTime()).toBe(23 * 3_600_000);
    expect(ids({ firstSeenBetween: { from: '2026-03-08', to: '2026-03-08' } })).toEqual([b, c].sort());
    expect(ids({ firstSeenBetween: { from: '2026-03-07', to: '2026-03-09' } })).toEqual([a, b, c, d].sort());
    expect(ids({ firstSeenBetween: { from: '2026-11-01', to: '2026-11-01' } })).toEqual([e]);
    expect(ids({ firstSeenBetween: { from: '2026-11-02', to: '2026-12-31' } })).toEqual([]);
    expect(ids({ firstSeenBetween: { from: '2026-01-01', to: '2026-01-01' } })).toHaveLength(all.length - 5);
    // The overview's days were stored at the publish: an edit of the mirror is not one.
    expect(overview(db).orders.firstSeenByDay.reduce((n, x) => n + x.count, 0)).toBe(all.length);
  });

  it('deliveredBetween selects the orders with a recipient observed delivered in a read that ended within the local days', () => {
    const [a, b, c] = ids({}) as [string, string, string];
    const field = db.prepare("SELECT code FROM history.observed_fields WHERE field = 'isDelivered'").pluck().get() as number;
    const run = (atOrBefore: string) =>
      Number(db.prepare("INSERT INTO history.observation_runs (resource, run_id, after, at_or_before) VALUES ('orders', 'edge', ?, ?)").run(atOrBefore, atOrBefore).lastInsertRowid);
    const observe = db.prepare("INSERT INTO history.observations (run, record_id, field, recipient_id, from_value, to_value) VALUES (?, ?, ?, 'r1', ?, ?)");
    const late = run(at('2026-03-09', -1));
    const next = run(at('2026-03-09'));
    observe.run(late, a, field, 'false', 'true');
    observe.run(late, b, field, 'true', 'false'); // no longer delivered: not a delivery
    observe.run(next, c, field, 'false', 'true');
    expect(ids({ deliveredBetween: { from: '2026-03-08', to: '2026-03-08' } })).toEqual([a]);
    expect(ids({ deliveredBetween: { from: '2026-03-09', to: '2026-03-09' } })).toEqual([c]);
    expect(ids({ deliveredBetween: { from: '2026-03-01', to: '2026-03-31' } })).toEqual([a, c].sort());
    expect(ids({ deliveredBetween: { from: '2026-03-07', to: '2026-03-07' } })).toEqual([]);
    // The deliveries of the second sync, on its local day, are other orders.
    const today = localDay(new Date());
    const observed = db.prepare(`SELECT DISTINCT o.record_id FROM history.observations o JOIN history.observation_runs r ON r.run = o.run
      WHERE r.run_id <> 'edge' AND o.field = ? AND o.to_value = 'true'`).pluck().all(field) as string[];
    expect(ids({ deliveredBetween: { from: today, to: today } })).toEqual([...observed].sort());
  });
});
