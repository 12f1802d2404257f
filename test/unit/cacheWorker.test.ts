/**
 * The database worker's typed protocol and its `records` job, over a real worker thread (the
 * entry the app ships from its sources, electron/main/dbWorker.ts) and a real SQLite cache synced
 * from the sample API: every read method answers through the worker what it answers when called
 * directly; the records of a view stream in view order, in chunks of about 1 MiB, up to a limit,
 * and stop when cancelled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactQuery, OrderQuery } from '../../shared/query.ts';
import { CacheClient, defaultWorkerUrl } from '../../electron/main/cache/worker/client.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { CACHE_METHODS, type CacheMethodName, type CacheMethods } from '../../electron/main/cache/worker/methods.ts';
import { createView, getView } from '../../electron/main/cache/savedViews/savedViews.ts';
import type { HostResponse, MethodArgs } from '../../electron/main/cache/worker/protocol.ts';
import { RECORDS_CHUNK_CHARS } from '../../electron/main/cache/read/records.ts';
import { contactViewSql, orderViewSql } from '../../electron/main/cache/read/list.ts';
import { listKeptFilters } from '../../electron/main/cache/read/kept.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

const CONTACTS = 8000;
const ORDERS = 1500;

let dir: string;
let file: string;
let db: Database.Database;
let api: SampleApi;
let client: CacheClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cache-worker-'));
  file = join(dir, 'cache.sqlite');
  api = await startSampleApi({ contacts: CONTACTS, orders: ORDERS, seed: 5 });
  db = openCache(file);
  const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), {
    resources: ['contacts', 'orders'],
    pageSize: 1000,
  });
  expect(runs.every((r) => r.outcome === 'succeeded')).toBe(true);
  viewId = createView(db, { resource: 'contacts', name: 'Worker view', serviceQuery: { search: 'a' }, settings: { search: 'x' } }).id;
  // No startup reader: every answer below comes from the worker thread.
  client = await CacheClient.open(file, { startupReader: false });
}, 120_000);

afterAll(async () => {
  await client?.close();
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The saved views' methods that write. */
type ViewWrite = 'createView' | 'renameView' | 'updateView' | 'duplicateView' | 'deleteView' | 'setKeptValues';
let viewId = '';

/** The raw JSON of a view's records straight from the test's own connection, in view order. */
function expectedRaws(kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, limit: number): string[] {
  const view = kind === 'contacts' ? contactViewSql(query as ContactQuery) : orderViewSql(query as OrderQuery);
  const alias = kind === 'contacts' ? 'c' : 'o';
  return db.prepare(`SELECT ${alias}.raw FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT :limit`).pluck().all({ ...view.params, limit }) as string[];
}

describe('read methods through the worker', () => {
  // One set of arguments per read method of the table: a method added without a case here (or in
  // the writes' test below) fails to compile.
  const someId = () => (db.prepare('SELECT id FROM contacts ORDER BY rowid LIMIT 1 OFFSET 17').pluck().get() as string);
  const someOrder = () => (db.prepare('SELECT id FROM orders ORDER BY rowid LIMIT 1 OFFSET 5').pluck().get() as string);
  const cases: () => { [K in Exclude<CacheMethodName, ViewWrite>]: MethodArgs<CacheMethods[K]>[] } = () => ({
    queryContacts: [
      [{}, { offset: 0, limit: 50 }],
      [{ search: 'ma', sort: { column: 'city', direction: 'desc' } }, { offset: 10, limit: 25 }],
      [{ states: ['Ohio', 'Texas'], verified: ['yes'] }, { offset: 0, limit: 100 }],
    ],
    countContacts: [[{}], [{ search: 'a' }], [{ liveMode: ['live'] }], [{ invalidOnly: true }], [{ changed: ['added', 'removed'] }]],
    contactFacets: [[{}], [{ search: 'e' }], [{ changed: ['removed'] }], [{ kept: [{ param: 'addressStatus', values: ['Failed'] }] }]],
    getContact: [[someId()], ['no such id']],
    queryOrders: [
      [{}, { offset: 0, limit: 50 }],
      [{ sort: { column: 'campaign', direction: 'asc' } }, { offset: 100, limit: 20 }],
    ],
    countOrders: [[{}], [{ delivered: ['all'] }], [{ changed: ['changed'], invalidOnly: true }]],
    orderFacets: [[{}]],
    getOrder: [[someOrder()], ['0']],
    queryTemplates: [[{}, { offset: 0, limit: 50 }], [{ search: 'a', sort: { column: 'orders', direction: 'desc' } }, { offset: 2, limit: 5 }]],
    getTemplate: [[db.prepare('SELECT template_id FROM orders LIMIT 1').pluck().get() as string], ['none']],
    queryCampaigns: [[{}, { offset: 0, limit: 50 }], [{ search: 'e', sort: { column: 'deliveredShare', direction: 'asc' } }, { offset: 0, limit: 10 }]],
    getCampaign: [[db.prepare('SELECT campaign_id FROM orders LIMIT 1').pluck().get() as string], ['']],
    resourceStates: [[]],
    syncHistory: [[10], [1]],
    recordTimeline: [['orders', someOrder()], ['contacts', 'no such id']],
    overview: [[], [{ '4': 'Mailed' }]],
    duplicateGroups: [[{ level: 'household', offset: 0, limit: 50 }], [{ level: 'address', offset: 10, limit: 1 }]],
    duplicateGroupIds: [['individual']],
    labelAddresses: [[{ source: 'contacts', query: { states: ['Ohio'] } }], [{ source: 'recipients', query: { search: 'a' } }]],
    readPreview: [['0'.repeat(32)], ['not a key']],
    listKeptFilters: [[], ['contacts'], ['orders']],
    learnedStatusNames: [[]],
    listViews: [[], ['contacts'], ['orders']],
    getView: [[viewId], ['0000']],
    viewsNamed: [['Worker view'], ['worker VIEW'], ['nothing']],
    viewNewerIds: [[viewId]],
  });

  it('every method answers what the same function answers on a direct connection', async () => {
    const table = cases();
    for (const name of Object.keys(table) as (keyof typeof table)[]) {
      for (const args of table[name]) {
        const direct = (CACHE_METHODS[name] as (db: Database.Database, ...a: unknown[]) => unknown)(db, ...args);
        const viaWorker = await (client[name] as (...a: unknown[]) => Promise<unknown>)(...args);
        expect(viaWorker, `${name}(${JSON.stringify(args)})`).toEqual(direct);
      }
    }
  });

  it('the saved views\' writes run on the worker\'s connection and a direct connection reads what they wrote', async () => {
    // One call per write method: a write added without a case here fails to compile.
    const writes: { [K in ViewWrite]: (id: string) => Promise<unknown> } = {
      createView: () => client.createView({ resource: 'orders', name: 'Unpaid', serviceQuery: { paymentStatus: ['unpaid'] }, settings: { columns: ['id'] } }),
      renameView: (id) => client.renameView(id, 'Still unpaid'),
      updateView: (id) => client.updateView(id, { settings: { columns: ['id', 'status'] }, refreshAfterSync: false }),
      duplicateView: (id) => client.duplicateView(id),
      deleteView: (id) => client.deleteView(id),
      setKeptValues: () => client.setKeptValues({ resource: 'orders', param: 'createdBy', values: ['15'] }),
    };
    const created = (await writes.createView('')) as { id: string };
    await writes.renameView(created.id);
    await writes.updateView(created.id);
    const copy = (await writes.duplicateView(created.id)) as { id: string; name: string };
    expect(copy.name).toBe('Still unpaid (copy)');
    expect(getView(db, created.id)).toMatchObject({ name: 'Still unpaid', resource: 'orders', serviceQuery: { paymentStatus: ['unpaid'] }, settings: { columns: ['id', 'status'] }, refreshAfterSync: false });
    await writes.deleteView(created.id);
    expect(getView(db, created.id)).toBeNull();
    expect(getView(db, copy.id)?.name).toBe('Still unpaid (copy)');
    expect((await writes.setKeptValues('')) as unknown).toEqual(listKeptFilters(db));
    expect(listKeptFilters(db, 'orders').filter((k) => k.param === 'createdBy').map((k) => k.value)).toEqual(['15']);
    await expect(client.setKeptValues({ resource: 'orders', param: 'createdBy', values: [' 15'] })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(client.renameView(created.id, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.createView({ resource: 'orders', name: 'STILL UNPAID (COPY)' })).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('the client has exactly one method per entry of the table, and errors keep their code across the thread', async () => {
    for (const name of Object.keys(CACHE_METHODS)) expect(typeof (client as unknown as Record<string, unknown>)[name], name).toBe('function');
    await expect(client.records('people' as 'contacts', {}, 10, () => {})).rejects.toMatchObject({ code: 'VALIDATION' });
    // Compile-time: arguments and results are those of the table.
    const typed = async () => {
      // @ts-expect-error syncHistory takes a number
      await client.syncHistory('ten');
      // @ts-expect-error getContact answers a detail or null, not a page
      const page: { rows: unknown[] } = await client.getContact('1');
      return page;
    };
    expect(typeof typed).toBe('function');
  });

  it('the worker host refuses a method or job not in its tables (a name from the prototype included)', async () => {
    const worker = new Worker(defaultWorkerUrl(), { workerData: { file } });
    try {
      const replies: HostResponse<CacheMethods, Record<string, never>>[] = [];
      const wanted = new Promise<void>((resolve) => {
        worker.on('message', (m: HostResponse<CacheMethods, Record<string, never>>) => {
          replies.push(m);
          if (replies.filter((r) => r.type === 'result').length === 3) resolve();
        });
      });
      const raw = (message: unknown) => worker.postMessage(message);
      raw({ id: 1, type: 'call', method: 'toString', args: [] });
      raw({ id: 2, type: 'call', method: 'dropEverything', args: [] });
      raw({ id: 3, type: 'job', job: 'constructor', args: {} });
      await wanted;
      expect(replies[0]).toEqual({ id: 0, type: 'ready' });
      for (const id of [1, 2, 3]) expect(replies.find((r) => r.id === id)).toMatchObject({ type: 'result', ok: false, error: { code: 'INTERNAL' } });
      raw({ id: 4, type: 'close' });
      await new Promise((resolve) => worker.once('exit', resolve));
    } finally {
      await worker.terminate();
    }
  });
});

describe('records job', () => {
  /** Runs the job and collects the chunks. */
  async function records(kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, limit: number): Promise<{ rows: number; chunks: string[][] }> {
    const chunks: string[][] = [];
    const { rows } = await client.records(kind, query, limit, (raws) => chunks.push(raws));
    return { rows, chunks };
  }

  it('streams every record of a view in view order, in chunks of about 1 MiB of JSON', async () => {
    for (const [kind, query] of [['contacts', {}], ['orders', {}], ['contacts', { sort: { column: 'name', direction: 'desc' } }], ['orders', { search: 'a', sort: { column: 'recipients', direction: 'asc' } }]] as const) {
      const want = expectedRaws(kind, query, 10_000_000);
      const { rows, chunks } = await records(kind, query, 10_000_000);
      const what = `${kind} ${JSON.stringify(query)}`;
      expect(rows, what).toBe(want.length);
      expect(chunks.flat(), what).toEqual(want);
      const sizes = chunks.map((c) => c.reduce((n, raw) => n + raw.length, 0));
      const total = sizes.reduce((a, b) => a + b, 0);
      if (total > RECORDS_CHUNK_CHARS) expect(chunks.length, what).toBeGreaterThan(1);
      // Every chunk but the last reaches the size and stops at the record that reached it.
      for (const [i, chunk] of chunks.slice(0, -1).entries()) {
        expect(sizes[i], `${what} chunk ${i}`).toBeGreaterThanOrEqual(RECORDS_CHUNK_CHARS);
        expect((sizes[i] as number) - (chunk.at(-1) as string).length, `${what} chunk ${i}`).toBeLessThan(RECORDS_CHUNK_CHARS);
      }
    }
    const all = await records('contacts', {}, 10_000_000);
    expect(all.rows).toBe(CONTACTS);
    expect(all.chunks.length).toBeGreaterThanOrEqual(4);
  });

  it('stops at the limit; a limit of 0 reads nothing; a bad limit is refused', async () => {
    const some = await records('contacts', { search: 'e' }, 1234);
    expect(some.rows).toBe(1234);
    expect(some.chunks.flat()).toEqual(expectedRaws('contacts', { search: 'e' }, 1234));
    expect(await records('orders', {}, 0)).toEqual({ rows: 0, chunks: [] });
    for (const limit of [-1, 1.5, Number.NaN]) await expect(client.records('contacts', {}, limit, () => {})).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('a cancelled job rejects with CANCELLED and sends no more than a few chunks after the cancel; the worker keeps answering', async () => {
    const abort = new AbortController();
    const chunks: string[][] = [];
    let chunksAtCancel = -1;
    const reading = client.records(
      'contacts',
      {},
      10_000_000,
      (raws) => {
        chunks.push(raws);
        if (chunks.length === 1) {
          chunksAtCancel = 1;
          abort.abort();
        }
      },
      { signal: abort.signal },
    );
    await expect(reading).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(chunksAtCancel).toBe(1);
    // The worker waits for the client after a few chunks, so the cancel is seen long before the end.
    expect(chunks.length).toBeLessThanOrEqual(4);
    expect(chunks.flat().length).toBeLessThan(CONTACTS);
    expect(chunks.flat()).toEqual(expectedRaws('contacts', {}, chunks.flat().length));
    expect((await client.countContacts({})).count).toBe(CONTACTS);
  });

  it('a chunk handler that throws stops the job with its error', async () => {
    let calls = 0;
    await expect(
      client.records('orders', {}, 10_000_000, () => {
        calls++;
        throw new Error('stdout is closed');
      }),
    ).rejects.toThrow('stdout is closed');
    expect(calls).toBe(1);
    expect((await client.resourceStates()).orders.rows).toBe(ORDERS);
  });

  it('an already aborted signal reads nothing', async () => {
    const abort = new AbortController();
    abort.abort();
    const chunks: string[][] = [];
    await expect(client.records('contacts', {}, 100, (raws) => chunks.push(raws), { signal: abort.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(chunks).toEqual([]);
  });
});
