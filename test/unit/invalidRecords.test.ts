/**
 * Records kept as invalid (they do not match §2; the API client reports each with its reason):
 * synced from the sample API over loopback with its `invalidRecordRate` fault, then the table rows
 * carry the reason, the resource states count them, the `invalidOnly` filter selects exactly them
 * (alone, with a search, with other filters), and every one opens in the details with its JSON as
 * cached and its reason, whatever fields it lacks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { contactFacets, countContacts, countOrders, getContact, getOrder, orderFacets, queryContacts, queryOrders, resourceStates } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;
/** Id → invalid reason, as the cache's own columns hold them. */
const invalid: Record<'contacts' | 'orders', Map<string, string>> = { contacts: new Map(), orders: new Map() };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-invalid-'));
  api = await startSampleApi({ contacts: 2000, orders: 600, seed: 5, faults: { invalidRecordRate: 0.05 } });
  db = openCache(join(dir, 'cache.sqlite'));
  const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
  const runs = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 250 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
  for (const resource of ['contacts', 'orders'] as const) {
    for (const r of db.prepare(`SELECT id, invalid_reason FROM ${resource} WHERE invalid_reason IS NOT NULL`).all() as { id: string; invalid_reason: string }[]) invalid[resource].set(r.id, r.invalid_reason);
    expect(invalid[resource].size, resource).toBeGreaterThan(10);
    expect(runs.find((r) => r.resource === resource)?.invalidRecords).toBe(invalid[resource].size);
  }
}, 120_000);

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sorted = (ids: Iterable<string>) => [...ids].sort();
/** Every row of a contact view, window after window. */
function allContacts(q: Parameters<typeof queryContacts>[1]): ReturnType<typeof queryContacts>['rows'] {
  const rows: ReturnType<typeof queryContacts>['rows'] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = queryContacts(db, q, { offset, limit: 1000 });
    rows.push(...page.rows);
    if (page.rows.length < 1000) return rows;
  }
}

describe('records kept as invalid', () => {
  it('the resource states count them', () => {
    const states = resourceStates(db);
    expect(states.contacts.invalidRecords).toBe(invalid.contacts.size);
    expect(states.orders.invalidRecords).toBe(invalid.orders.size);
  });

  it('table rows carry their reason; valid rows carry none', () => {
    const contacts = allContacts({});
    expect(contacts).toHaveLength(2000);
    for (const row of contacts) expect(row.invalidReason, row.id).toBe(invalid.contacts.get(row.id) ?? null);
    const orders = queryOrders(db, { sort: { column: 'status', direction: 'asc' } }, { offset: 0, limit: 1000 }).rows;
    for (const row of orders) expect(row.invalidReason, row.id).toBe(invalid.orders.get(row.id) ?? null);
  });

  it('"only records kept as invalid" selects exactly them, alone and with other filters', () => {
    const contacts = queryContacts(db, { invalidOnly: true }, { offset: 0, limit: 1000 });
    expect(sorted(contacts.rows.map((r) => r.id))).toEqual(sorted(invalid.contacts.keys()));
    expect(contacts.rows.every((r) => r.invalidReason !== null)).toBe(true);
    expect(countContacts(db, { invalidOnly: true })).toEqual({ count: invalid.contacts.size, exact: true });
    expect(countContacts(db, { invalidOnly: false }).count).toBe(2000);
    // With a search and filters: the intersection, as the same query without the filter shows it.
    for (const q of [{ search: 'a' }, { verified: ['yes' as const] }, { search: 'e', sort: { column: 'name' as const, direction: 'desc' as const } }]) {
      const all = allContacts(q);
      const got = allContacts({ ...q, invalidOnly: true }).map((r) => r.id);
      expect(got, JSON.stringify(q)).toEqual(all.filter((r) => invalid.contacts.has(r.id)).map((r) => r.id));
    }
    expect(sorted(queryOrders(db, { invalidOnly: true }, { offset: 0, limit: 1000 }).rows.map((r) => r.id))).toEqual(sorted(invalid.orders.keys()));
    expect(countOrders(db, { invalidOnly: true }).count).toBe(invalid.orders.size);
  });

  it('the facets count them within the view, the filter itself left out', () => {
    expect(contactFacets(db, {}).invalid).toBe(invalid.contacts.size);
    expect(contactFacets(db, { invalidOnly: true }).invalid).toBe(invalid.contacts.size);
    const q = { search: 'a' };
    expect(contactFacets(db, q).invalid).toBe(allContacts(q).filter((r) => invalid.contacts.has(r.id)).length);
    expect(orderFacets(db, {}).invalid).toBe(invalid.orders.size);
  });

  it('every one opens in the details with its JSON as cached and its reason', () => {
    for (const [id, reason] of invalid.contacts) {
      const detail = getContact(db, id);
      expect(detail, id).not.toBeNull();
      expect(detail!.invalidReason).toBe(reason);
      expect(detail!.raw).toBe(db.prepare('SELECT raw FROM contacts WHERE id = ?').pluck().get(id));
      expect(detail!.contact).toEqual(JSON.parse(detail!.raw));
    }
    for (const [id, reason] of invalid.orders) {
      const detail = getOrder(db, id);
      expect(detail, id).not.toBeNull();
      expect(detail!.invalidReason).toBe(reason);
      expect(detail!.order).toEqual(JSON.parse(detail!.raw));
      expect(Array.isArray(detail!.recipients)).toBe(true);
    }
    // The fault's mutations include orders without a template and with `contacts: null`: still open.
    const kinds = [...invalid.orders.values()].join('\n');
    expect(kinds).toMatch(/template/);
    expect(kinds).toMatch(/contacts/);
    const valid = queryContacts(db, {}, { offset: 0, limit: 50 }).rows.find((r) => r.invalidReason === null)!;
    expect(getContact(db, valid.id)?.invalidReason).toBeNull();
  });
});
