import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/db.ts';
import { countContacts, getContact, getOrder, queryContacts, queryOrders } from '../../electron/main/cache/queries.ts';
import { runSync, type PageSource } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-sync-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function source(api: SampleApi, extra: { retries?: number; backoffMs?: number } = {}): PageSource {
  return createHttpPageSource({ baseUrl: api.baseUrl, tokens, backoffMs: 5, ...extra });
}

/** Every id of a resource in the cache vs. the server, and every raw record equal. */
function expectMirror(db: Database.Database, api: SampleApi): void {
  const cacheContacts = db.prepare('SELECT id, raw FROM contacts').all() as { id: string; raw: string }[];
  const server = new Map<string, unknown>();
  for (const c of api.dataset.contacts()) server.set(c.id, c);
  expect(cacheContacts.length).toBe(server.size);
  for (const row of cacheContacts) expect(JSON.parse(row.raw)).toEqual(JSON.parse(JSON.stringify(server.get(row.id))));
  const cacheOrders = db.prepare('SELECT id, raw FROM orders').all() as { id: string; raw: string }[];
  const serverOrders = new Map<string, unknown>();
  for (const o of api.dataset.orders()) serverOrders.set(o.id, o);
  expect(cacheOrders.length).toBe(serverOrders.size);
  for (const row of cacheOrders) expect(JSON.parse(row.raw)).toEqual(JSON.parse(JSON.stringify(serverOrders.get(row.id))));
  const fts = (db.prepare('SELECT count(*) AS n FROM contacts_fts').get() as { n: number }).n;
  expect(fts).toBe(server.size);
}

describe('sync against the sample API', () => {
  it('mirrors 10,000 contacts and 3,000 orders exactly, then follows deletes, edits and additions', async () => {
    const api = await startSampleApi({ contacts: 10_000, orders: 3_000, seed: 7 });
    const db = openCache(join(dir, 'clean.sqlite'));
    try {
      const t0 = performance.now();
      const runs = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 500 });
      console.log(`clean sync 10k+3k: ${Math.round(performance.now() - t0)} ms`);
      expect(runs.map((r) => [r.resource, r.outcome, r.rows])).toEqual([['contacts', 'succeeded', 10_000], ['orders', 'succeeded', 3_000]]);
      expectMirror(db, api);

      const ids = [...api.dataset.contactIds()];
      const gone = ids.slice(100, 105);
      for (const id of gone) api.dataset.deleteContact(id);
      api.dataset.updateContact(ids[200] as string, { city: 'Zürich-Changed' });
      const added = api.dataset.addContacts(7);
      api.dataset.deleteOrder([...api.dataset.orderIds()][10] as string);
      const runs2 = await runSync(db, source(api), { resources: ['contacts', 'orders'], pageSize: 500 });
      expect(runs2.every((r) => r.outcome === 'succeeded')).toBe(true);
      expectMirror(db, api);
      expect(getContact(db, gone[0] as string)).toBeNull();
      expect(getContact(db, added[0] as string)).not.toBeNull();
      expect(queryContacts(db, { search: 'zurich-changed' }, { offset: 0, limit: 10 }).rows.map((r) => r.id)).toEqual([ids[200]]);
      const order = queryOrders(db, {}, { offset: 0, limit: 1 }).rows[0];
      expect(order).toBeDefined();
      expect(getOrder(db, order!.id)?.recipients.length).toBe(order!.recipients);
      expect(countContacts(db, {}).count).toBe(api.dataset.contactCount);
    } finally {
      db.close();
      await api.close();
    }
  });
});
