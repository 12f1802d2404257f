/**
 * Requirement: "Service responses with huge fields, deep nesting, wrong types, unknown fields, duplicate
 * ids, negative or absurd `count`, `__proto__`/`constructor` keys inside `meta`: handled without
 * crash or prototype pollution; the record is kept or reported, never silently dropped."
 *
 * A loopback HTTP server answers with hand-built JSON *text* (so `__proto__` arrives as the service
 * would send it), and the app's sync path — `createHttpPageSource` + `runSync` on a real SQLite
 * file — mirrors it. Then the cache is read back (queries, detail) and exported (`runExport`,
 * parsed back with csv-parse). Every scenario asserts:
 *  - runSync resolves (no throw, no unhandled rejection) within a time limit;
 *  - `Object.prototype` is unchanged in this process (client parse, cache write/read, export);
 *  - either the run succeeded and every record the server sent is in the cache (valid, or kept with
 *    its `invalid_reason`), or the run failed with a known, non-INTERNAL code and a message — never
 *    a success that silently lost a record;
 *  - the cache passes integrity_check.
 * The absurd-`count` scenario runs the sync in a child process (test/reliability/syncChild.ts), so a
 * sync that tries to plan 10^15 pages cannot take the test runner down with it.
 */
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRun } from '../../shared/contract.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { getContact, getOrder, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { integrityCheck } from '../reliability/cacheCheck.ts';
import { createDataset, patchText } from '../reliability/hostileData.ts';
import { runSyncChild } from '../reliability/runSyncChild.ts';

const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

function expectNoPollution(where: string): void {
  const probe: Record<string, unknown> = {};
  for (const key of ['polluted', 'polluted2', 'polluted3', 'isAdmin', 'x']) expect(probe[key], `${where}: Object.prototype.${key}`).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort(), where).toEqual(PROTO_KEYS);
  expect(Object.getOwnPropertyNames(Array.prototype).includes('polluted'), where).toBe(false);
}

/** A hostile service: answers each endpoint with the JSON text the current scenario builds. */
interface Scenario {
  contacts: (page: number, pageSize: number) => string;
  orders: (page: number, pageSize: number) => string;
}

async function startHostile(): Promise<{ baseUrl: string; set(s: Scenario): void; close(): Promise<void> }> {
  let scenario: Scenario | null = null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page = Number(url.searchParams.get('page') ?? 0);
    const pageSize = Number(url.searchParams.get('pageSize') ?? 10);
    const body = url.pathname.startsWith('/api/v1/contacts') ? scenario?.contacts(page, pageSize) : scenario?.orders(page, pageSize);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body ?? '{"message":"success","data":{"count":0,"rows":[]}}');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    set: (s) => (scenario = s),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** Serves `rows` (JSON texts) in pages, with `count` (default: rows.length). */
function paged(rows: string[], count: number | string = rows.length): (page: number, pageSize: number) => string {
  return (page, pageSize) => `{"message":"success","data":{"count":${count},"rows":[${rows.slice(page * pageSize, (page + 1) * pageSize).join(',')}]}}`;
}

const EMPTY = paged([]);

describe('hostile service responses', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-rel-hostile-'));
  let hostile: Awaited<ReturnType<typeof startHostile>>;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let caseNo = 0;

  beforeAll(async () => {
    hostile = await startHostile();
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await hostile?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Syncs the scenario into a fresh cache; returns the runs and the cache file. */
  async function syncScenario(scenario: Scenario, pageSize = 50): Promise<{ runs: SyncRun[]; file: string; ms: number }> {
    hostile.set(scenario);
    const file = join(root, `case-${++caseNo}.sqlite`);
    const db = openCache(file);
    const started = performance.now();
    try {
      const runs = await runSync(db, createHttpPageSource({ baseUrl: hostile.baseUrl, tokens: { accessToken: 't0k3n-hostile', refreshToken: null }, retries: 1, backoffMs: 5, timeoutMs: 10_000 }), {
        resources: ['contacts', 'orders'],
        pageSize,
        maxPasses: 2,
      });
      return { runs, file, ms: performance.now() - started };
    } finally {
      db.close();
    }
  }

  /** Every id the server sent is in the cache when the run succeeded; a failed run has a known code. */
  function expectKeptOrReported(runs: SyncRun[], file: string, sent: { contacts: string[]; orders: string[] }, where: string): void {
    const db = new Database(file, { readonly: true });
    try {
      for (const resource of ['contacts', 'orders'] as const) {
        const run = runs.find((r) => r.resource === resource);
        if (!run) continue;
        if (run.outcome === 'succeeded') {
          const ids = new Set((db.prepare(`SELECT id FROM ${resource}`).pluck().all() as string[]));
          const lost = sent[resource].filter((id) => !ids.has(id));
          expect(lost, `${where}: ${resource} sent but not in the cache after a successful sync`).toEqual([]);
        } else {
          expect(ERROR_CODES, `${where}: ${resource} ${run.error?.code} ${run.error?.message}`).toContain(run.error?.code);
          expect(run.error?.code, `${where}: ${resource}: ${run.error?.message}`).not.toBe('INTERNAL');
          expect(run.error?.message.length, where).toBeGreaterThan(10);
        }
      }
    } finally {
      db.close();
    }
    expect(integrityCheck(file), where).toBe('ok');
    expect(unhandled, where).toEqual([]);
    expectNoPollution(where);
  }

  /**
   * Every cached record opens in the details (the page's view of it) without throwing: its JSON as
   * cached, its reason when kept as invalid (the record itself `{}` when it was not an object), and
   * the table's "only records kept as invalid" filter selects exactly the ones with a reason.
   */
  function expectDetailsOpen(file: string, where: string): void {
    const db = openCache(file, { skipCheck: true });
    try {
      for (const resource of ['contacts', 'orders'] as const) {
        const rows = db.prepare(`SELECT id, raw, invalid_reason FROM ${resource}`).all() as { id: string; raw: string; invalid_reason: string | null }[];
        for (const row of rows) {
          const detail = resource === 'contacts' ? getContact(db, row.id) : getOrder(db, row.id);
          expect(detail, `${where}: ${resource} ${row.id}`).not.toBeNull();
          expect(detail!.raw).toBe(row.raw);
          expect(detail!.invalidReason).toBe(row.invalid_reason);
          const record = resource === 'contacts' ? (detail as ReturnType<typeof getContact>)!.contact : (detail as ReturnType<typeof getOrder>)!.order;
          expect(typeof record === 'object' && record !== null && !Array.isArray(record), `${where}: ${row.id} reads as an object`).toBe(true);
        }
        const query = resource === 'contacts' ? queryContacts(db, { invalidOnly: true }, { offset: 0, limit: 1000 }).rows : queryOrders(db, { invalidOnly: true }, { offset: 0, limit: 1000 }).rows;
        expect(query.map((r) => r.id).sort(), where).toEqual(rows.filter((r) => r.invalid_reason !== null).map((r) => r.id).sort());
      }
    } finally {
      db.close();
    }
  }

  it('__proto__ / constructor / prototype keys inside meta, labels and the record itself: no pollution anywhere, records kept as sent, exported', async () => {
    const data = createDataset(30, 12);
    const evilMeta = '{"__proto__":{"polluted":"meta"},"constructor":{"prototype":{"polluted2":"meta"}},"prototype":{"polluted3":"meta"},"account_id":"acct-1"}';
    const contacts = data.contacts.map((c, i) =>
      i % 3 === 0 ? patchText(c, [['__proto__', '{"isAdmin":true}'], ['constructor', '{"prototype":{"polluted":"contact"}}'], ['meta', evilMeta], ['ContactLabels', '[{"id":"1","title":"x","__proto__":{"polluted":"label"}}]']]) : c,
    );
    const orders = data.orders.map((o, i) => (i % 2 === 0 ? patchText(o, [['meta', evilMeta]]) : o));
    expect(orders.some((o) => o.includes('"polluted":"meta"'))).toBe(true);
    const { runs, file } = await syncScenario({ contacts: paged(contacts), orders: paged(orders) }, 10);
    expect(runs.map((r) => `${r.resource} ${r.outcome} ${r.error?.message ?? ''}`)).toEqual(['contacts succeeded ', 'orders succeeded ']);
    expectKeptOrReported(runs, file, { contacts: data.contactIds, orders: data.orderIds }, 'proto keys');

    // Read back: the raw record keeps the keys as data; the parsed detail has normal prototypes.
    const db = openCache(file, { skipCheck: true });
    try {
      const orderId = data.orderIds[0] as string;
      const detail = getOrder(db, orderId);
      expect(detail).not.toBeNull();
      const meta = detail!.order.meta as Record<string, unknown>;
      expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(meta, '__proto__'), 'the __proto__ key is kept as data').toBe(true);
      expect(meta.account_id).toBe('acct-1');
      const contact = getContact(db, data.contactIds[0] as string);
      expect(contact).not.toBeNull();
      expect(Object.getPrototypeOf(contact!.contact)).toBe(Object.prototype);
      expect((contact!.contact as Record<string, unknown>).isAdmin).toBeUndefined();
      queryContacts(db, { search: 'polluted' }, { offset: 0, limit: 50 });
      expectNoPollution('after reading the cache');

      // Export: meta as JSON, parsed back by an independent parser; still no pollution.
      const out = join(root, 'orders-proto.csv');
      await runExport(db, { kind: 'orders', query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } }, out, {});
      const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(data.orderIds.length);
      expect(rows.some((r) => Object.values(r).some((v) => v.includes('__proto__'))), 'meta with its keys is in the export').toBe(true);
      expectNoPollution('after export');
    } finally {
      db.close();
    }
  });

  it('huge fields (a 4 MB name, 20,000 labels) and unknown fields: kept whole, searchable, no crash', async () => {
    const data = createDataset(20, 3);
    const huge = 'Ü'.repeat(2_000_000) + ' Needlefind';
    const labels = Array.from({ length: 20_000 }, (_, i) => `{"id":"${900000 + i}","title":"L${i}"}`).join(',');
    const contacts = [...data.contacts];
    contacts[0] = patchText(contacts[0] as string, [['fullName', JSON.stringify(huge)], ['ContactLabels', `[${labels}]`], ['unknownThing', '{"nested":[1,2,{"deep":true}]}'], ['another', 'null']]);
    const { runs, file, ms } = await syncScenario({ contacts: paged(contacts), orders: paged(data.orders) });
    expect(runs.map((r) => r.outcome), JSON.stringify(runs)).toEqual(['succeeded', 'succeeded']);
    expect(ms).toBeLessThan(30_000);
    expectKeptOrReported(runs, file, { contacts: data.contactIds, orders: data.orderIds }, 'huge fields');
    const db = new Database(file, { readonly: true });
    try {
      const raw = JSON.parse(db.prepare('SELECT raw FROM contacts WHERE id = ?').pluck().get(data.contactIds[0]) as string) as Record<string, unknown>;
      expect((raw.fullName as string).length).toBe(huge.length);
      expect(raw.unknownThing).toEqual({ nested: [1, 2, { deep: true }] });
      expect((raw.ContactLabels as unknown[]).length).toBe(20_000);
      expect(db.prepare("SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH 'needlefind'").all()).toHaveLength(1);
    } finally {
      db.close();
    }
  });

  it('deep nesting (an unknown field 100,000 levels deep): the sync does not crash; the answer is refused before parsing, with a clear error', async () => {
    const data = createDataset(10, 3);
    const depth = 100_000;
    const contacts = [...data.contacts];
    contacts[1] = patchText(contacts[1] as string, [['deep', `${'['.repeat(depth)}${']'.repeat(depth)}`]]);
    const orders = [...data.orders];
    orders[0] = patchText(orders[0] as string, [['meta', `{"deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`]]);
    const { runs, file } = await syncScenario({ contacts: paged(contacts), orders: paged(orders) });
    expectKeptOrReported(runs, file, { contacts: data.contactIds, orders: data.orderIds }, 'deep nesting');
    for (const run of runs) {
      expect(run.outcome, JSON.stringify(run)).toBe('failed');
      expect(run.error?.code).toBe('BAD_RESPONSE');
      expect(run.error?.message).toMatch(/nests arrays and objects more than 64 levels deep/);
    }
  });

  it('wrong types and non-object rows: invalid records are kept with their reason, nothing silently dropped', async () => {
    const data = createDataset(12, 4);
    const contacts = [...data.contacts];
    contacts[0] = patchText(contacts[0] as string, [['isVerified', '"maybe"']]);
    contacts[1] = patchText(contacts[1] as string, [['ContactLabels', '"VIP"']]);
    contacts[2] = patchText(contacts[2] as string, [['createdAt', '1700000000']]);
    contacts[3] = patchText(contacts[3] as string, [['firstName', '{"$gt":""}']]);
    const orders = [...data.orders];
    orders[0] = patchText(orders[0] as string, [['status', '"shipped"']]);
    orders[1] = patchText(orders[1] as string, [['contacts', (current) => `[null,42,"x"${(current as unknown[]).map((c) => `,${JSON.stringify(c)}`).join('')}]`]]);
    const { runs, file } = await syncScenario({ contacts: paged(contacts), orders: paged(orders) });
    expect(runs.map((r) => `${r.resource} ${r.outcome} ${r.error?.message ?? ''}`)).toEqual(['contacts succeeded ', 'orders succeeded ']);
    expect(runs.find((r) => r.resource === 'contacts')?.invalidRecords).toBe(4);
    expect(runs.find((r) => r.resource === 'orders')?.invalidRecords).toBe(2);
    expectKeptOrReported(runs, file, { contacts: data.contactIds, orders: data.orderIds }, 'wrong types');
    const db = new Database(file, { readonly: true });
    try {
      const reasons = db.prepare('SELECT id, invalid_reason FROM contacts WHERE invalid_reason IS NOT NULL ORDER BY id').all() as { id: string; invalid_reason: string }[];
      expect(reasons.map((r) => r.id).sort()).toEqual(data.contactIds.slice(0, 4).sort());
      expect(reasons.every((r) => r.invalid_reason.length > 0)).toBe(true);
    } finally {
      db.close();
    }
    expectDetailsOpen(file, 'wrong types');
  });

  it('rows that are not objects or have no usable id (null, 42, "text", [], {}, id "", {}, true, blank): reported, not silently dropped', async () => {
    const data = createDataset(6, 2);
    const contacts = [
      ...data.contacts, 'null', '42', '"text"', '[]', '{}', '{"fullName":"No Id"}',
      // Ids that cannot be keys, twice each: still one row per served record, not one per odd id.
      '{"id":""}', '{"id":""}', '{"id":{}}', '{"id":{}}', '{"id":true}', '{"id":true}', '{"id":"  "}',
    ];
    const { runs, file } = await syncScenario({ contacts: paged(contacts), orders: paged(data.orders) });
    const run = runs.find((r) => r.resource === 'contacts')!;
    // Either kept (6 valid + 6 invalid rows, each reported) or the sync failed saying so.
    if (run.outcome === 'succeeded') {
      const db = new Database(file, { readonly: true });
      try {
        const n = db.prepare('SELECT count(*) FROM contacts').pluck().get() as number;
        expect(n + 0, 'rows without an id must be kept (or the sync must fail), not merged into one').toBe(contacts.length);
        expect(run.invalidRecords).toBe(contacts.length - data.contacts.length);
      } finally {
        db.close();
      }
      expectDetailsOpen(file, 'rows without ids');
    }
    expectKeptOrReported(runs, file, { contacts: data.contactIds, orders: data.orderIds }, 'rows without ids');
  });

  it('duplicate ids on a page: reported (one record per id kept), never a silent success with fewer rows than count', async () => {
    const data = createDataset(10, 2);
    const contacts = [...data.contacts, patchText(data.contacts[0] as string, [['fullName', '"Duplicate Twin"']])];
    const { runs, file } = await syncScenario({ contacts: paged(contacts), orders: paged(data.orders) });
    const run = runs.find((r) => r.resource === 'contacts')!;
    if (run.outcome === 'succeeded') {
      const db = new Database(file, { readonly: true });
      try {
        const n = db.prepare('SELECT count(*) FROM contacts').pluck().get() as number;
        expect(n === contacts.length || run.invalidRecords > 0, `succeeded with ${n} rows for count ${contacts.length} and no record reported`).toBe(true);
      } finally {
        db.close();
      }
    } else {
      expect(run.error?.message).toMatch(/.{20,}/);
    }
    // A stable service that lists an id twice: one record per id is kept and the duplicate is reported.
    expect(run.outcome, JSON.stringify(run)).toBe('succeeded');
    expect(run.invalidRecords).toBe(1);
    expectKeptOrReported(runs, file, { contacts: data.contactIds, orders: data.orderIds }, 'duplicate ids');
  });

  it('negative, fractional, string and null counts: BAD_RESPONSE, nothing published', async () => {
    const data = createDataset(5, 2);
    for (const count of ['-1', '2.5', '"10"', 'null', '-9007199254740993']) {
      const { runs, file } = await syncScenario({ contacts: paged(data.contacts, count), orders: EMPTY });
      const run = runs.find((r) => r.resource === 'contacts')!;
      expect(run.outcome, `count ${count}`).toBe('failed');
      expect(run.error?.code, `count ${count}`).toBe('BAD_RESPONSE');
      expectKeptOrReported(runs, file, { contacts: [], orders: [] }, `count ${count}`);
    }
  });

  it('absurd counts (10^15, MAX_SAFE_INTEGER) with a handful of rows: the sync ends quickly with a clear error instead of planning billions of pages (child process, 20 s limit)', { timeout: 60_000 }, async () => {
    const data = createDataset(5, 2);
    for (const count of ['1000000000000000', String(Number.MAX_SAFE_INTEGER)]) {
      hostile.set({ contacts: paged(data.contacts, count), orders: EMPTY });
      const file = join(root, `absurd-${++caseNo}.sqlite`);
      openCache(file).close();
      const outcome = await runSyncChild({ heapMb: 512, timeoutMs: 20_000, env: { ...process.env, SYNC_CACHE_FILE: file, SYNC_BASE_URL: hostile.baseUrl, SYNC_LOG_DIR: root, SYNC_PAGE_SIZE: '50', SYNC_RESOURCES: 'contacts' } });
      const where = `count ${count}: exit ${outcome.code} ${outcome.signal ?? ''} after ${Math.round(outcome.ms)} ms${outcome.timedOut ? ' (killed at the 20 s limit)' : ''}; stderr: ${outcome.err}`;
      expect(outcome.timedOut, where).toBe(false);
      expect(outcome.code, where).toBe(0);
      const line = outcome.out.split('\n').find((l) => l.startsWith('done '));
      expect(line, where).toBeDefined();
      const runs = JSON.parse((line as string).slice(5)) as SyncRun[];
      expect(runs[0]?.outcome, where).toBe('failed');
      expect(runs[0]?.error?.code, `${where}: ${runs[0]?.error?.message}`).not.toBe('INTERNAL');
      expect(integrityCheck(file), where).toBe('ok');
    }
  });
});
