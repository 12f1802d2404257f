/**
 * Choosing the kept values, against the sample API over loopback HTTP and real SQLite files:
 * a value kept already keeps its members, a value dropped loses them, a value added is read by the
 * next sync, and a refused change changes nothing. The cost the Profiles page shows is checked
 * against the requests the sample API counts: exact for values read before, an upper bound within
 * one request a value for values never read.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../shared/contract.ts';
import { KEPT_PARAMS, keptParamCost, type KeptCostBasis, type KeptFilter, type KeptParamSpec } from '../../shared/keptFilters.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { listKeptFilters } from '../../electron/main/cache/read/kept.ts';
import { syncHistory } from '../../electron/main/cache/read/queries.ts';
import { setKeptValues } from '../../electron/main/cache/savedViews/keptValues.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { CacheRegistry } from '../../electron/main/core/caches.ts';
import { readKeptSettings, secondsPerRequest, setKeptValues as setProfileKeptValues } from '../../electron/main/core/keptSettings.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { costDuration, costText, totalCost } from '../../renderer/src/lib/keptCost.ts';

const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
const PAGE_SIZE = 100;
let dir: string;
let api: SampleApi;
let db: Database.Database;

/** Syncs `resources`, with or without the kept filters; returns the requests the sample API answered. */
async function sync(resources: Resource[], keptFilters: boolean): Promise<number> {
  const before = api.stats().requests;
  await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens, backoffMs: 5 }), { resources, pageSize: PAGE_SIZE, concurrency: 2, progressIntervalMs: 0, keptFilters });
  return api.stats().requests - before;
}

const spec = (resource: Resource, param: string): KeptParamSpec => KEPT_PARAMS[resource].find((p) => p.param === param)!;
const valuesOf = (resource: Resource, param: string): KeptFilter[] => listKeptFilters(db).filter((k) => k.resource === resource && k.param === param);
const rowsOf = (resource: Resource): number => db.prepare(`SELECT count(*) FROM ${resource}`).pluck().get() as number;
const basis = (resource: Resource): KeptCostBasis => ({ pageSize: PAGE_SIZE, rows: rowsOf(resource), secondsPerRequest: null });
/** The estimated requests of every kept value of `resource`, from their last reads. */
const estimate = (resource: Resource): number =>
  KEPT_PARAMS[resource].reduce((sum, p) => sum + keptParamCost(p, valuesOf(resource, p.param), basis(resource)).requests!, 0);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-kept-settings-'));
  api = await startSampleApi({ contacts: 1200, orders: 400, seed: 47 });
  db = openCache(join(dir, 'cache.sqlite'));
}, 60_000);

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('choosing the kept values', () => {
  it('a change the service filter does not accept is refused with what it accepts, and nothing changes', () => {
    const before = listKeptFilters(db);
    expect(() => setKeptValues(db, { resource: 'contacts', param: 'tags', values: ['x'] })).toThrow(/contacts cannot keep "tags"; these can be kept: addressStatus, lastMailedStatus/);
    expect(() => setKeptValues(db, { resource: 'contacts', param: 'lastMailedDate', values: ['30d', '14d'] })).toThrow(/Last mailed date is kept for 7d, 30d, 90d, this-year, not "14d"/);
    expect(() => setKeptValues(db, { resource: 'orders', param: 'createdBy', values: [' 15'] })).toThrow(/without leading or trailing spaces/);
    // The spec names the address statuses the service allows; its lists are comma-separated.
    expect(() => setKeptValues(db, { resource: 'contacts', param: 'addressStatus', values: ['Returned'] })).toThrow(/Address status is kept for Failed, Verified, Corrected, not "Returned"/);
    expect(() => setKeptValues(db, { resource: 'orders', param: 'sources', values: ['ZAPIER,HUBSPOT'] })).toThrow(/cannot hold a comma/);
    expect(() => setKeptValues(db, { resource: 'orders', param: 'createdBy', values: Array.from({ length: 51 }, (_, i) => String(i)) })).toThrow(/at most 50 values/);
    expect(listKeptFilters(db)).toEqual(before);
  });

  it('before any read, a partitioning filter is estimated at about one read of its resource; the read costs no more', async () => {
    const recordRequests = await sync(['contacts', 'orders'], false);
    expect(recordRequests).toBeGreaterThan(0);
    const orderStatus = keptParamCost(spec('orders', 'orderStatus'), valuesOf('orders', 'orderStatus'), basis('orders'));
    const wholeRead = Math.ceil(rowsOf('orders') / PAGE_SIZE);
    expect(orderStatus).toMatchObject({ estimated: true, requests: wholeRead + 4 });
    const estimated = { contacts: estimate('contacts'), orders: estimate('orders') };
    const before = api.stats().byEndpoint;
    const recordsAgain = await sync(['contacts', 'orders'], false);
    const records = { contacts: api.stats().byEndpoint.contacts - before.contacts, orders: api.stats().byEndpoint.orders - before.orders };
    const withKept = api.stats().byEndpoint;
    expect(await sync(['contacts', 'orders'], true)).toBeGreaterThan(recordsAgain);
    const kept = { contacts: api.stats().byEndpoint.contacts - withKept.contacts - records.contacts, orders: api.stats().byEndpoint.orders - withKept.orders - records.orders };
    expect(kept.contacts).toBeLessThanOrEqual(estimated.contacts);
    expect(kept.orders).toBeLessThanOrEqual(estimated.orders);
    // The orders keep two partitioning filters: over by at most one request a value (each value's
    // last page is the only one that may be part-full).
    expect(estimated.orders - kept.orders).toBeLessThanOrEqual(valuesOf('orders', 'orderStatus').length + valuesOf('orders', 'paymentStatus').length);
  });

  it('once read, the estimate is the requests the next reads make', async () => {
    expect(listKeptFilters(db).every((k) => k.serverCount !== null)).toBe(true);
    const estimated = estimate('contacts') + estimate('orders');
    const recordRequests = await sync(['contacts', 'orders'], false);
    const keptRequests = (await sync(['contacts', 'orders'], true)) - recordRequests;
    expect(keptRequests).toBe(estimated);
  });

  it('a value kept stays read, a value dropped loses its members, a value added is read by the next sync', async () => {
    const failed = valuesOf('contacts', 'addressStatus').find((k) => k.value === 'Failed')!;
    const verifiedFid = db.prepare("SELECT fid FROM kept_filters WHERE param = 'addressStatus' AND value = 'Verified'").pluck().get() as number;
    expect(db.prepare('SELECT count(*) FROM kept_members WHERE fid = ?').pluck().get(verifiedFid)).toBeGreaterThan(0);
    const others = listKeptFilters(db).filter((k) => k.param !== 'addressStatus');
    const after = setKeptValues(db, { resource: 'contacts', param: 'addressStatus', values: ['Failed', 'Failed'] });
    expect(after.filter((k) => k.param === 'addressStatus')).toEqual([failed]);
    expect(db.prepare('SELECT count(*) FROM kept_members WHERE fid = ?').pluck().get(verifiedFid)).toBe(0);
    // The other parameters are left as they were.
    expect(after.filter((k) => k.param !== 'addressStatus')).toEqual(others);
    const typed = setKeptValues(db, { resource: 'contacts', param: 'lastMailedStatus', values: ['Returned to sender', 'Mailed'] }).filter((k) => k.param === 'lastMailedStatus');
    expect(typed.map((k) => [k.value, k.readAt, k.members])).toEqual([['Returned to sender', null, null], ['Mailed', null, null]]);
    await sync(['contacts'], true);
    const read = valuesOf('contacts', 'lastMailedStatus');
    expect(read.every((k) => k.readAt !== null && k.lastError === null)).toBe(true);
    expect(read.find((k) => k.value === 'Returned to sender')?.serverCount).toBe(0);
    expect(read.find((k) => k.value === 'Mailed')?.serverCount).toBeGreaterThan(0);
    expect(setKeptValues(db, { resource: 'orders', param: 'paymentStatus', values: [] }).filter((k) => k.param === 'paymentStatus')).toEqual([]);
    expect(keptParamCost(spec('orders', 'paymentStatus'), [], basis('orders'))).toEqual({ requests: 0, estimated: false, seconds: 0 });
  });

  it('the pace is the last successful sync of the resource: its length over its pages', () => {
    const history = syncHistory(db, 50);
    const last = history.find((r) => r.resource === 'contacts' && r.outcome === 'succeeded')!;
    const seconds = (Date.parse(last.endedAt!) - Date.parse(last.startedAt)) / 1000;
    expect(secondsPerRequest(history, 'contacts', PAGE_SIZE)).toBeCloseTo(seconds / Math.ceil(last.rows / PAGE_SIZE), 9);
    expect(secondsPerRequest([], 'contacts', PAGE_SIZE)).toBeNull();
  });
});

describe('the kept filters as a profile setting', () => {
  const profile: Profile = {
    id: '7d3c1f0e-0000-4000-8000-000000000047', name: 'Kept', environment: 'custom', baseUrl: 'http://127.0.0.1:1/api/v1', accountId: null, pageSize: 250, sampleData: false, createdAt: new Date().toISOString(),
  };

  it('a profile without a cache shows the defaults unread and creates no file; a change creates the cache', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ld-kept-profile-'));
    const caches = new CacheRegistry({ dataDir });
    try {
      const settings = await readKeptSettings(caches, profile);
      expect(existsSync(caches.fileOf(profile.id))).toBe(false);
      expect(settings.enabled).toBe(true);
      expect(settings.basis).toEqual({ contacts: { pageSize: 250, rows: null, secondsPerRequest: null }, orders: { pageSize: 250, rows: null, secondsPerRequest: null } });
      const fresh = openCache(join(dataDir, 'fresh.sqlite'));
      const defaults = listKeptFilters(fresh).map((k) => `${k.param} ${k.value}`);
      fresh.close();
      expect(settings.kept.map((k) => `${k.param} ${k.value}`)).toEqual(defaults);
      expect(settings.kept.every((k) => k.readAt === null)).toBe(true);
      // Before the first sync there is nothing to estimate from, and the page says so.
      expect(costText(keptParamCost(spec('contacts', 'addressStatus'), settings.kept.filter((k) => k.param === 'addressStatus'), settings.basis.contacts))).toBe('Cost known after the first sync');
      const changed = await setProfileKeptValues(caches, { ...profile, keptFilters: false }, { resource: 'orders', param: 'createdBy', values: ['15'] });
      expect(existsSync(caches.fileOf(profile.id))).toBe(true);
      expect(changed.enabled).toBe(false);
      expect(changed.kept.filter((k) => k.param === 'createdBy').map((k) => k.value)).toEqual(['15']);
    } finally {
      await caches.closeAll();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('costs are said in requests and minutes', () => {
    expect(costText({ requests: 1, estimated: false, seconds: 0.2 })).toBe('1 request · under 1 min');
    expect(costText({ requests: 1520, estimated: true, seconds: 250 })).toBe(`about ${(1520).toLocaleString()} requests · ≈ 4 min`);
    expect(costText({ requests: 12, estimated: false, seconds: null })).toBe('12 requests');
    expect(costText({ requests: 0, estimated: false, seconds: 0 })).toBe('Nothing kept');
    expect(costDuration(4800)).toBe('≈ 1 h 20 min');
    expect(costDuration(7200)).toBe('≈ 2 h');
    expect(totalCost([{ requests: 3, estimated: false, seconds: 6 }, { requests: 5, estimated: true, seconds: 10 }])).toEqual({ requests: 8, estimated: true, seconds: 16 });
    expect(totalCost([{ requests: 3, estimated: false, seconds: 6 }, { requests: null, estimated: true, seconds: null }]).requests).toBeNull();
  });
});
