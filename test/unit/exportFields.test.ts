/**
 * Every field the service sends, exportable: the orders' merge variables and meta as JSON, the
 * recipients' meta, and the opt-in "Raw JSON" column of contacts, orders and recipients, which
 * holds the record exactly as cached (for a recipient, its entry in its order's cached JSON). A
 * real cache synced from the sample API over loopback; the CSVs parsed back with csv-parse.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_KINDS, type ExportRequest } from '../../shared/contract.ts';
import type { Order } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { exportColumns } from '../../electron/main/export/columns.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let db: Database.Database;
const options = { delimiter: 'comma' as const, bom: false, neutralizeFormulas: false };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-export-fields-'));
  const api = await startSampleApi({ contacts: 400, orders: 200, seed: 13 });
  const order = api.dataset.orderAt(4);
  api.dataset.updateOrder(order.id, {
    mergeVariables: [{ name: 'first', value: '=1+1' }, { name: 'note', value: 'a,b\n"c"' }],
    meta: { account_id: 'acct-9', nested: { list: [1, 2] } },
    contacts: order.contacts.map((c, i) => (i === 0 ? { ...c, meta: { tag: 'vip', score: 3 } } : c)),
    unknownOrderField: { kept: true },
  });
  api.dataset.updateContact(api.dataset.contactAt(2).id, { lastMailedStatus: 'In Transit', nickname: 'Zed, "the" = one' });
  db = openCache(join(dir, 'cache.sqlite'));
  try {
    const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), { resources: ['contacts', 'orders'], pageSize: 200 });
    expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
  } finally {
    await api.close();
  }
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function csv(name: string, request: ExportRequest): Promise<Record<string, string>[]> {
  const file = join(dir, name);
  await runExport(db, request, file);
  return parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
}
const every = (kind: 'contacts' | 'orders' | 'recipients') => exportColumns(kind).map((c) => c.key);

describe('export columns', () => {
  it('offer "Raw JSON" last and outside the default set; the default set is every other column', async () => {
    for (const kind of EXPORT_KINDS) {
      const columns = exportColumns(kind);
      expect(columns.at(-1)).toMatchObject({ key: 'raw', header: 'Raw JSON', inDefault: false });
      expect(columns.filter((c) => !c.inDefault).map((c) => c.key)).toEqual(['raw']);
      const rows = await csv(`default-${kind}.csv`, { kind, query: null, columns: null, options } as ExportRequest);
      expect(Object.keys(rows[0]!)).toEqual(columns.filter((c) => c.inDefault).map((c) => c.header));
    }
    expect(every('orders')).toEqual(expect.arrayContaining(['statusName', 'mergeVariables', 'meta', 'productMeta', 'invalidReason', 'change']));
    expect(every('recipients')).toEqual(expect.arrayContaining(['orderStatus', 'orderStatusName', 'meta']));
  });

  it('contacts: the Raw JSON column is the record exactly as cached, unknown fields and all', async () => {
    const rows = await csv('contacts.csv', { kind: 'contacts', query: null, columns: every('contacts'), options });
    const cached = new Map((db.prepare('SELECT id, raw FROM contacts').all() as { id: string; raw: string }[]).map((r) => [r.id, r.raw]));
    expect(rows).toHaveLength(cached.size);
    for (const r of rows) expect(r['Raw JSON']).toBe(cached.get(r['Contact ID'] as string));
    expect(rows.some((r) => JSON.parse(r['Raw JSON'] as string).nickname === 'Zed, "the" = one')).toBe(true);
  });

  it('orders: merge variables, meta and product meta as JSON, and the Raw JSON as cached', async () => {
    const rows = await csv('orders.csv', { kind: 'orders', query: null, columns: every('orders'), options });
    const cached = new Map((db.prepare('SELECT id, raw FROM orders').all() as { id: string; raw: string }[]).map((r) => [r.id, r.raw]));
    expect(rows).toHaveLength(cached.size);
    for (const r of rows) {
      const raw = cached.get(r['Order ID'] as string) as string;
      const order = JSON.parse(raw) as Order;
      expect(r['Raw JSON']).toBe(raw);
      expect(JSON.parse(r['Merge variables (JSON)'] as string)).toEqual(order.mergeVariables);
      expect(JSON.parse(r['Meta (JSON)'] as string)).toEqual(order.meta);
      expect(r['Product meta (JSON)'] === '' ? null : JSON.parse(r['Product meta (JSON)'] as string)).toEqual(order.product.meta);
      expect(r['Status name']).toBe(`Status ${order.status}`);
    }
    const edited = rows.find((r) => r['Merge variables (JSON)'] !== '[]')!;
    expect(JSON.parse(edited['Merge variables (JSON)'] as string)).toEqual([{ name: 'first', value: '=1+1' }, { name: 'note', value: 'a,b\n"c"' }]);
    expect(JSON.parse(edited['Raw JSON'] as string).unknownOrderField).toEqual({ kept: true });
  });

  it('recipients: their meta as JSON, and the Raw JSON is their entry in the order as cached', async () => {
    const rows = await csv('recipients.csv', { kind: 'recipients', query: null, columns: every('recipients'), options });
    const orders = new Map((db.prepare('SELECT id, raw FROM orders').all() as { id: string; raw: string }[]).map((r) => [r.id, JSON.parse(r.raw) as Order]));
    expect(rows).toHaveLength([...orders.values()].reduce((n, o) => n + o.contacts.length, 0));
    for (const r of rows) {
      const entry = orders.get(r['Order ID'] as string)!.contacts.find((c) => c.id === r['Recipient entry ID']);
      expect(entry, r['Recipient entry ID']).toBeDefined();
      expect(JSON.parse(r['Raw JSON'] as string)).toEqual(entry);
      expect(JSON.parse(r['Meta (JSON)'] as string)).toEqual(entry!.meta);
    }
    expect(rows.filter((r) => r['Meta (JSON)'] !== '{}').map((r) => JSON.parse(r['Meta (JSON)'] as string))).toEqual([{ tag: 'vip', score: 3 }]);
  });
});
