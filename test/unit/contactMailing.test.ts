/**
 * The contacts table as a mailing list: each contact's Times mailed, Delivered and Last order,
 * synced from the sample API over loopback HTTP into a real cache file and checked against what
 * the service's own orders say (counted here from the sample data, not from the cache); each
 * order's first-seen time kept across syncs; the times-mailed filter, its facet and sorts; the
 * contact's detail; the CLI's `letterdesk` key, offline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactRow } from '../../shared/query.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { contactFacets, countContacts, getContact, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;
const source = () => createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
const sync = async () => {
  const runs = await runSync(db, source(), { resources: ['contacts', 'orders'], pageSize: 500 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
};

/** Per contact id, the service's orders that list it: how many, how many delivered to it, and which. */
function serviceMailings(): Map<string, { orders: Set<string>; delivered: Set<string> }> {
  const out = new Map<string, { orders: Set<string>; delivered: Set<string> }>();
  for (let i = 0; i < api.dataset.orderCount; i++) {
    const order = api.dataset.orderAt(i);
    for (const r of order.contacts) {
      const m = out.get(r.contact.id) ?? { orders: new Set(), delivered: new Set() };
      m.orders.add(order.id);
      if (r.isDelivered) m.delivered.add(order.id);
      out.set(r.contact.id, m);
    }
  }
  return out;
}

const allContacts = (): ContactRow[] => queryContacts(db, {}, { offset: 0, limit: 1000 }).rows;
let firstSyncEnd: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-mailing-'));
  api = await startSampleApi({ contacts: 900, orders: 400, seed: 17 });
  db = openCache(join(dir, 'cache.sqlite'));
  await sync();
  firstSyncEnd = new Date().toISOString();
}, 120_000);

afterAll(async () => {
  db?.close();
  await api?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('each contact’s mailings', () => {
  it('count the service’s orders that list the contact, each once, and those delivered to it', () => {
    const want = serviceMailings();
    const rows = allContacts();
    expect(rows).toHaveLength(900);
    expect([...want.keys()].some((id) => rows.some((r) => r.id === id))).toBe(true);
    for (const r of rows) {
      const m = want.get(r.id);
      expect([r.timesMailed, r.deliveredCount], r.id).toEqual([m?.orders.size ?? 0, m?.delivered.size ?? 0]);
      expect(r.lastOrderSeenAt === null, r.id).toBe(m === undefined);
    }
    // Some contacts are mailed several times and some never: the sample data exercises both.
    expect(rows.some((r) => r.timesMailed >= 2)).toBe(true);
    expect(rows.some((r) => r.timesMailed === 0)).toBe(true);
  });

  it('the detail gives the same mailings as the row', () => {
    const row = allContacts().find((r) => r.timesMailed >= 2)!;
    const detail = getContact(db, row.id)!;
    expect(detail.mailing).toEqual({ timesMailed: row.timesMailed, deliveredCount: row.deliveredCount, lastOrderSeenAt: row.lastOrderSeenAt });
    const never = allContacts().find((r) => r.timesMailed === 0)!;
    expect(getContact(db, never.id)!.mailing).toEqual({ timesMailed: 0, deliveredCount: 0, lastOrderSeenAt: null });
  });

  it('the times-mailed filter and its facet agree with the counts', () => {
    const rows = allContacts();
    const count = (pred: (r: ContactRow) => boolean) => rows.filter(pred).length;
    const ids = (q: Parameters<typeof queryContacts>[1]) => queryContacts(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id).sort();
    expect(ids({ timesMailed: { max: 0 } })).toEqual(rows.filter((r) => r.timesMailed === 0).map((r) => r.id).sort());
    expect(ids({ timesMailed: { min: 2 } })).toEqual(rows.filter((r) => r.timesMailed >= 2).map((r) => r.id).sort());
    expect(countContacts(db, { timesMailed: { min: 1, max: 1 } }).count).toBe(count((r) => r.timesMailed === 1));
    const facet = Object.fromEntries(contactFacets(db, {}).timesMailed.map((o) => [o.value, o.count]));
    expect(facet).toEqual({ never: count((r) => r.timesMailed === 0), 1: count((r) => r.timesMailed >= 1), 2: count((r) => r.timesMailed >= 2), 3: count((r) => r.timesMailed >= 3), 5: count((r) => r.timesMailed >= 5) });
    // The facet leaves its own filter out, and follows the others.
    expect(contactFacets(db, { timesMailed: { max: 0 } }).timesMailed).toEqual(contactFacets(db, {}).timesMailed);
    const state = rows[0]!.state;
    expect(contactFacets(db, { states: [state] }).timesMailed[0]!.count).toBe(count((r) => r.state === state && r.timesMailed === 0));
  });

  it('sorts by times mailed and last order put the most mailed and the latest first, never mailed last', () => {
    const page = queryContacts(db, { sort: { column: 'timesMailed', direction: 'desc' } }, { offset: 0, limit: 1000 }).rows;
    const times = page.map((r) => r.timesMailed);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const last = queryContacts(db, { sort: { column: 'lastOrder', direction: 'desc' }, timesMailed: { min: 0 } }, { offset: 0, limit: 1000 }).rows;
    const seen = last.map((r) => r.lastOrderSeenAt);
    const firstNever = seen.indexOf(null);
    expect(firstNever).toBeGreaterThan(0);
    expect(seen.slice(firstNever).every((s) => s === null)).toBe(true);
  });
});

describe('an order’s first-seen time', () => {
  it('is kept across syncs; an order new to the cache gets the sync that first saw it', async () => {
    const before = new Map(queryOrders(db, {}, { offset: 0, limit: 1000 }).rows.map((o) => [o.id, o.firstSeenAt]));
    expect([...before.values()].every((t) => t !== null && t <= firstSyncEnd)).toBe(true);
    // A new order for a contact that was never mailed.
    const never = allContacts().find((r) => r.timesMailed === 0)!;
    const [added] = api.dataset.addOrders(1);
    const order = api.dataset.orderAt(0);
    expect(order.id).toBe(added);
    const recipient = { ...order.contacts[0]!, contact: { ...order.contacts[0]!.contact, id: never.id } };
    api.dataset.updateOrder(added!, { contacts: [recipient] });
    await sync();
    const after = new Map(queryOrders(db, {}, { offset: 0, limit: 1000 }).rows.map((o) => [o.id, o.firstSeenAt]));
    for (const [id, t] of before) expect(after.get(id), id).toBe(t);
    expect(after.get(added!)! > firstSyncEnd).toBe(true);
    const row = allContacts().find((r) => r.id === never.id)!;
    expect([row.timesMailed, row.lastOrderSeenAt]).toEqual([1, after.get(added!)]);
  }, 60_000);
});

describe('the command line', () => {
  it('adds what Letterdesk derives under one key of the service’s records, offline', async () => {
    const data = join(dir, 'data');
    const tokens = { LETTERDESK_ACCESS_TOKEN: SAMPLE_ACCESS_TOKEN, LETTERDESK_REFRESH_TOKEN: SAMPLE_REFRESH_TOKEN };
    const cli = (args: string[]) => runCliProcess(data, dir, args, tokens);
    expect((await cli(['profile', 'add', 'Mailer', '--base-url', api.baseUrl, '--page-size', '500'])).code).toBe(0);
    const synced = await cli(['sync']);
    expect(synced.code, synced.stderr).toBe(0);
    await api.close();
    const contacts = await cli(['contacts', '--mailed-at-least', '2', '--sort', 'timesMailed:desc', '--limit', '1000', '--json']);
    expect(contacts.code, contacts.stderr).toBe(0);
    const printed = JSON.parse(contacts.stdout) as { id: string; letterdesk: { timesMailed: number; deliveredCount: number; lastOrderSeenAt: string | null } }[];
    const want = serviceMailings();
    expect(printed.length).toBe([...want.values()].filter((m) => m.orders.size >= 2).length);
    for (const c of printed) {
      expect(c.letterdesk.timesMailed, c.id).toBe(want.get(c.id)?.orders.size);
      expect(c.letterdesk.deliveredCount, c.id).toBe(want.get(c.id)?.delivered.size);
      expect(Number.isNaN(Date.parse(c.letterdesk.lastOrderSeenAt ?? ''))).toBe(false);
    }
    // The rest of each record is the service's.
    const first = printed[0]!;
    const { letterdesk: _derived, ...record } = first;
    expect(record).toEqual(JSON.parse(JSON.stringify(allContactsRaw(first.id))));
    const never = await cli(['contacts', '--never-mailed', '--limit', '1', '--json']);
    expect((JSON.parse(never.stdout) as { letterdesk: unknown }[])[0]?.letterdesk).toEqual({ timesMailed: 0, deliveredCount: 0, lastOrderSeenAt: null });
    const both = await cli(['contacts', '--never-mailed', '--mailed-at-least', '1']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/Choose one of --never-mailed and --mailed-at-least/);
    const orders = await cli(['orders', '--limit', '20', '--json']);
    expect(orders.code, orders.stderr).toBe(0);
    const printedOrders = JSON.parse(orders.stdout) as { status: number; letterdesk: { statusName: string | null; firstSeenAt: string } }[];
    // The sample API's statuses are learned from the kept order-status memberships.
    expect(printedOrders.some((o) => typeof o.letterdesk.statusName === 'string')).toBe(true);
    for (const o of printedOrders) expect(Number.isNaN(Date.parse(o.letterdesk.firstSeenAt))).toBe(false);
  }, 120_000);
});

/** The contact as the service sent it, from the synced cache's raw JSON. */
function allContactsRaw(id: string): unknown {
  return JSON.parse(db.prepare('SELECT raw FROM contacts WHERE id = ?').pluck().get(id) as string);
}
