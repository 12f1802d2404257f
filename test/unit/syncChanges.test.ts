/**
 * What changed in each sync (shared/query.ts `changed`, SyncRun `changes`): a real cache synced
 * from the sample API over loopback; then the service's records are edited, added and removed; a
 * second sync records exactly those, and the `changed` filter selects them in windows, counts,
 * facets, details, exports (parsed back with csv-parse) and the records job, removed records coming
 * from their kept copies. The view of every changed record must answer what the same query answers
 * on a reference cache whose mirror is exactly those records (as the view shows them: the current
 * copy of the added and changed ones, the last copy of the removed ones), built by the ordinary
 * sync path. A third sync without edits records nothing and lets the removed records go.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { copyMailingTables } from '../helpers/mailingTables.ts';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRun } from '../../shared/contract.ts';
import { CONTACT_SORT_COLUMNS, ORDER_SORT_COLUMNS, type ContactQuery, type FacetOption, type OrderQuery, type RecordChange } from '../../shared/query.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { openExportRows, type ExportSelection } from '../../electron/main/cache/read/exportRows.ts';
import { StageWriter } from '../../electron/main/cache/build/ingest.ts';
import { buildNext, publishNext } from '../../electron/main/cache/build/publish.ts';
import { contactFacets, countContacts, countOrders, getContact, getOrder, orderFacets, queryContacts, queryOrders, resourceStates, syncHistory } from '../../electron/main/cache/read/queries.ts';
import { readRecords } from '../../electron/main/cache/read/records.ts';
import { createView } from '../../electron/main/cache/savedViews/savedViews.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

const ALL: RecordChange[] = ['added', 'changed', 'removed'];
let dir: string;
let api: SampleApi;
let db: Database.Database;
let source: PageSource;
let runs2: SyncRun[];
let viewId = '';
/** What the test did to the service between the first and the second sync. */
const edits = { contacts: { added: [] as string[], changed: [] as string[], removed: [] as string[] }, orders: { added: [] as string[], changed: [] as string[], removed: [] as string[] } };
/** The raw JSON the cache held for each removed record before the second sync. */
const lastCopy = new Map<string, string>();
const refs: Partial<Record<Resource, Database.Database>> = {};
const sorted = (ids: string[]) => [...ids].sort();

/** A cache whose mirror is exactly `raws` (built by staging, build and publish, as a sync does). */
function reference(resource: Resource, raws: string[]): Database.Database {
  const ref = openCache(join(dir, `ref-${resource}.sqlite`));
  const writer = new StageWriter(ref);
  writer.writePage(resource, 1, 0, raws.length, raws.map((r) => ({ ok: true, record: JSON.parse(r) as unknown })));
  buildNext(ref, resource, 'ref');
  publishNext(ref, resource, () => {});
  return ref;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-changes-'));
  api = await startSampleApi({ contacts: 3000, orders: 900, seed: 31 });
  db = openCache(join(dir, 'cache.sqlite'));
  source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
  const runs1 = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 500 });
  expect(runs1.map((r) => [r.outcome, r.changes])).toEqual([['succeeded', null], ['succeeded', null]]);
  // A saved view whose membership (read now) includes records about to be removed.
  viewId = createView(db, { resource: 'contacts', name: 'With an a', serviceQuery: { search: 'a' } }).id;
  await runSync(db, source, { resources: [], pageSize: 500, views: { ids: [viewId] } });

  const contactIds = [...api.dataset.contactIds()];
  edits.contacts.changed = [contactIds[3], contactIds[400], contactIds[2999]] as string[];
  api.dataset.updateContact(edits.contacts.changed[0]!, { city: 'Zürich', fullName: 'Ångström Changed' });
  api.dataset.updateContact(edits.contacts.changed[1]!, { isVerified: null, unknownField: { added: true } });
  api.dataset.updateContact(edits.contacts.changed[2]!, { ContactLabels: [{ id: '990001', title: 'Quarterly Platinum' }] });
  // One unchanged edit (the same value again) must not count as changed.
  const same = api.dataset.contactAt(10);
  api.dataset.updateContact(same.id, { city: same.city });
  edits.contacts.removed = [contactIds[5], contactIds[6], contactIds[700], contactIds[1500], contactIds[2500]] as string[];
  edits.contacts.added = api.dataset.addContacts(4);
  const orderIds = [...api.dataset.orderIds()];
  edits.orders.changed = [orderIds[1], orderIds[500]] as string[];
  api.dataset.updateOrder(edits.orders.changed[0]!, { status: 97 });
  api.dataset.updateOrder(edits.orders.changed[1]!, { mergeVariables: [{ name: 'first', value: 'Ada' }] });
  edits.orders.removed = [orderIds[2], orderIds[3], orderIds[600], orderIds[899]] as string[];
  edits.orders.added = api.dataset.addOrders(3);
  for (const [resource, ids] of [['contacts', edits.contacts.removed], ['orders', edits.orders.removed]] as const) {
    for (const id of ids) lastCopy.set(id, db.prepare(`SELECT raw FROM ${resource} WHERE id = ?`).pluck().get(id) as string);
  }
  for (const id of edits.contacts.removed) api.dataset.deleteContact(id);
  for (const id of edits.orders.removed) api.dataset.deleteOrder(id);

  runs2 = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 500 });
  expect(runs2.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
  for (const resource of ['contacts', 'orders'] as const) {
    const current = [...edits[resource].added, ...edits[resource].changed].map((id) => db.prepare(`SELECT raw FROM ${resource} WHERE id = ?`).pluck().get(id) as string);
    refs[resource] = reference(resource, [...current, ...edits[resource].removed.map((id) => lastCopy.get(id) as string)]);
  }
  // The references hold one resource each: the mailings and first-seen times are the synced cache's.
  copyMailingTables(db, Object.values(refs));
}, 120_000);

afterAll(async () => {
  for (const ref of Object.values(refs)) ref?.close();
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const contactIds = (q: ContactQuery) => sorted(queryContacts(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id));
const orderIds = (q: OrderQuery) => sorted(queryOrders(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id));
const byValue = <V>(options: FacetOption<V>[]) => [...options].sort((a, b) => String(a.value).localeCompare(String(b.value)));
/** A page without its rows' `change` (the reference, synced once, records none). */
const sansChange = <P extends { rows: { change: unknown }[] }>(page: P): P => ({ ...page, rows: page.rows.map((r) => ({ ...r, change: null })) });

describe('what a sync changed', () => {
  it('records per resource the records added, changed and removed, in the run and the history', () => {
    const counts = (r: keyof typeof edits) => ({ added: edits[r].added.length, changed: edits[r].changed.length, removed: edits[r].removed.length });
    expect(runs2.map((r) => r.changes)).toEqual([counts('contacts'), counts('orders')]);
    const history = syncHistory(db, 10).filter((r) => r.runId === runs2[0]!.runId);
    expect(Object.fromEntries(history.map((r) => [r.resource, r.changes]))).toEqual({ contacts: counts('contacts'), orders: counts('orders') });
  });

  it('the change filter selects exactly what the test changed, each kind and together, with exact counts', () => {
    for (const resource of ['contacts', 'orders'] as const) {
      const ids = resource === 'contacts' ? contactIds : orderIds;
      const count = (q: ContactQuery & OrderQuery) => (resource === 'contacts' ? countContacts(db, q) : countOrders(db, q)).count;
      for (const kind of ALL) {
        expect(ids({ changed: [kind] }), `${resource} ${kind}`).toEqual(sorted(edits[resource][kind]));
        expect(count({ changed: [kind] }), `${resource} ${kind}`).toBe(edits[resource][kind].length);
      }
      const every = sorted(ALL.flatMap((k) => edits[resource][k]));
      expect(ids({ changed: ALL })).toEqual(every);
      expect(ids({ changed: ['added', 'removed'] })).toEqual(sorted([...edits[resource].added, ...edits[resource].removed]));
      expect(count({ changed: ALL })).toBe(every.length);
    }
    // Each row says how it changed.
    const rows = queryContacts(db, { changed: ALL }, { offset: 0, limit: 100 }).rows;
    for (const kind of ALL) expect(sorted(rows.filter((r) => r.change === kind).map((r) => r.id))).toEqual(sorted(edits.contacts[kind]));
    expect(queryContacts(db, {}, { offset: 0, limit: 100 }).rows.filter((r) => r.change !== null).every((r) => r.change === 'added' || r.change === 'changed')).toBe(true);
  });

  it('the facets count each kind within the view', () => {
    const want = (r: keyof typeof edits) => ALL.map((k) => [k, edits[r][k].length]);
    expect(contactFacets(db, {}).changed.map((o) => [o.value, o.count])).toEqual(want('contacts'));
    expect(orderFacets(db, { changed: ['removed'] }).changed.map((o) => [o.value, o.count])).toEqual(want('orders'));
    // Within a search, only the matching changed records count (the removed ones by their kept copy's text).
    const zurich = contactFacets(db, { search: 'zurich' }).changed;
    expect(zurich).toEqual([{ value: 'changed', label: 'Changed', count: 1 }]);
  });

  it('every query of the changed records equals the same query on a cache holding exactly them', () => {
    const ref = refs.contacts!;
    const state = ref.prepare('SELECT state FROM contacts LIMIT 1').pluck().get() as string;
    const contactCases: ContactQuery[] = [
      {}, ...CONTACT_SORT_COLUMNS.flatMap((column) => (['asc', 'desc'] as const).map((direction) => ({ sort: { column, direction } }))),
      { search: 'a' }, { search: 'angstrom' }, { search: 'e', sort: { column: 'city', direction: 'asc' } }, { states: [state] }, { verified: ['unknown', 'no'] },
      { labels: ['Quarterly Platinum'] }, { search: 'a', labels: ['990001'] }, { liveMode: ['test'] },
    ];
    for (const q of contactCases) {
      const label = JSON.stringify(q);
      for (const [offset, limit] of [[0, 50], [3, 4]] as const) {
        expect(sansChange(queryContacts(db, { ...q, changed: ALL }, { offset, limit })), label).toEqual(queryContacts(ref, q, { offset, limit }));
      }
      expect(countContacts(db, { ...q, changed: ALL }), label).toEqual(countContacts(ref, q));
      const got = contactFacets(db, { ...q, changed: ALL });
      const want = contactFacets(ref, q);
      for (const k of ['labels', 'states', 'verified', 'liveMode'] as const) expect(byValue<unknown>(got[k]), `${label} ${k}`).toEqual(byValue<unknown>(want[k]));
    }
    const oref = refs.orders!;
    const contact = oref.prepare('SELECT contact_id FROM order_recipients LIMIT 1').pluck().get() as string;
    const orderCases: OrderQuery[] = [
      {}, ...ORDER_SORT_COLUMNS.flatMap((column) => (['asc', 'desc'] as const).map((direction) => ({ sort: { column, direction } }))),
      { search: '5' }, { statuses: [97, 1, 2, 3] }, { delivered: ['none'] }, { contactId: contact },
    ];
    for (const q of orderCases) {
      const label = JSON.stringify(q);
      expect(sansChange(queryOrders(db, { ...q, changed: ALL }, { offset: 0, limit: 50 })), label).toEqual(queryOrders(oref, q, { offset: 0, limit: 50 }));
      expect(countOrders(db, { ...q, changed: ALL }), label).toEqual(countOrders(oref, q));
      const got = orderFacets(db, { ...q, changed: ALL });
      const want = orderFacets(oref, q);
      for (const k of ['statuses', 'productTypes', 'campaignTypes', 'scheduleTypes', 'liveMode', 'delivered'] as const) expect(byValue<unknown>(got[k]), `${label} ${k}`).toEqual(byValue<unknown>(want[k]));
    }
  });

  it('export rows and records of the changed records equal the reference; removed ones are their last copies', async () => {
    const rows = (conn: Database.Database, selection: ExportSelection) => {
      const r = openExportRows(conn, selection);
      try {
        return [...r.rows];
      } finally {
        r.close();
      }
    };
    const records = async (conn: Database.Database, kind: Resource, query: ContactQuery | OrderQuery) => {
      const out: string[] = [];
      await readRecords(conn, { kind, query, limit: 1000 }, { signal: new AbortController().signal, onProgress: (c) => out.push(...c), drained: async () => {} });
      return out;
    };
    const columns = { contacts: ['id', 'fullName', 'labels', 'raw'], orders: ['id', 'status', 'campaignName', 'raw'], recipients: ['orderId', 'id', 'contactId', 'fullName'] };
    for (const q of [{}, { sort: { column: 'name', direction: 'desc' } }, { search: 'a' }] as ContactQuery[]) {
      expect(rows(db, { kind: 'contacts', query: { ...q, changed: ALL }, columns: columns.contacts })).toEqual(rows(refs.contacts!, { kind: 'contacts', query: q, columns: columns.contacts }));
      expect(await records(db, 'contacts', { ...q, changed: ALL })).toEqual(await records(refs.contacts!, 'contacts', q));
    }
    for (const q of [{}, { sort: { column: 'recipients', direction: 'asc' } }] as OrderQuery[]) {
      for (const kind of ['orders', 'recipients'] as const) {
        expect(rows(db, { kind, query: { ...q, changed: ALL }, columns: columns[kind] }), kind).toEqual(rows(refs.orders!, { kind, query: q, columns: columns[kind] }));
      }
      expect(await records(db, 'orders', { ...q, changed: ALL })).toEqual(await records(refs.orders!, 'orders', q));
    }
    expect(sorted(await records(db, 'contacts', { changed: ['removed'] }))).toEqual(sorted(edits.contacts.removed.map((id) => lastCopy.get(id) as string)));
  });

  it('a CSV of the removed records holds their last copies, marked removed', async () => {
    const file = join(dir, 'removed.csv');
    await runExport(db, { kind: 'contacts', query: { changed: ['removed'] }, columns: ['id', 'change', 'raw'], options: { delimiter: 'comma', bom: false, neutralizeFormulas: false } }, file);
    const parsed = parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(sorted(parsed.map((r) => r['Contact ID'] as string))).toEqual(sorted(edits.contacts.removed));
    for (const r of parsed) {
      expect(r['Change in the last sync']).toBe('removed');
      expect(r['Raw JSON']).toBe(lastCopy.get(r['Contact ID'] as string));
    }
    const orders = join(dir, 'removed-orders.csv');
    await runExport(db, { kind: 'recipients', query: { changed: ['removed'] }, columns: ['orderId', 'contactId'], options: { delimiter: 'comma', bom: false, neutralizeFormulas: false } }, orders);
    const recipients = parse(readFileSync(orders, 'utf8'), { columns: true }) as Record<string, string>[];
    const want = edits.orders.removed.flatMap((id) => (JSON.parse(lastCopy.get(id) as string) as { contacts: { contact: { id: string } }[] }).contacts.map((c) => `${id}:${c.contact.id}`));
    expect(sorted(recipients.map((r) => `${r['Order ID']}:${r['Contact ID']}`))).toEqual(sorted(want));
  });

  it('details open a removed record from its kept copy, and say how each record changed', () => {
    const removed = getContact(db, edits.contacts.removed[0]!);
    expect(removed).toMatchObject({ change: 'removed', invalidReason: null, raw: lastCopy.get(edits.contacts.removed[0]!) });
    expect(getContact(db, edits.contacts.changed[0]!)?.change).toBe('changed');
    expect(getContact(db, edits.contacts.added[0]!)?.change).toBe('added');
    expect(getContact(db, [...api.dataset.contactIds()][20]!)?.change).toBeNull();
    const order = getOrder(db, edits.orders.removed[0]!);
    const kept = JSON.parse(lastCopy.get(edits.orders.removed[0]!) as string) as { contacts: { id: string }[] };
    expect(order?.change).toBe('removed');
    expect(order?.recipients.map((r) => r.id)).toEqual(kept.contacts.map((c) => c.id));
  });

  it('a saved view shows its removed members with the filter', () => {
    const members = new Set(db.prepare('SELECT m.id FROM view_members m JOIN view_memberships v ON v.member_key = m.member_key WHERE v.view_id = ?').pluck().all(viewId) as string[]);
    const want = edits.contacts.removed.filter((id) => members.has(id));
    expect(want.length).toBeGreaterThan(0);
    expect(contactIds({ view: viewId, changed: ['removed'] })).toEqual(sorted(want));
    expect(countContacts(db, { view: viewId, changed: ['removed'] }).count).toBe(want.length);
  });

  it('a third sync without edits records nothing changed and lets the removed records go', async () => {
    const runs3 = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 500 });
    expect(runs3.map((r) => r.changes)).toEqual([{ added: 0, changed: 0, removed: 0 }, { added: 0, changed: 0, removed: 0 }]);
    expect(contactIds({ changed: ALL })).toEqual([]);
    expect(orderIds({ changed: ALL })).toEqual([]);
    expect(getContact(db, edits.contacts.removed[0]!)).toBeNull();
    expect(getOrder(db, edits.orders.removed[0]!)).toBeNull();
    expect(contactFacets(db, {}).changed).toEqual([]);
    for (const t of ['contact_changes', 'removed_contacts', 'order_changes', 'removed_orders', 'removed_order_recipients']) expect(db.prepare(`SELECT count(*) FROM ${t}`).pluck().get(), t).toBe(0);
    expect(resourceStates(db).contacts.rows).toBe(api.dataset.contactCount);
  });
});
