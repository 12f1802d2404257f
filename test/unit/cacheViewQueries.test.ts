/**
 * Queries limited to a saved view's members (shared/query.ts `view`): windows, counts, facets,
 * details, export rows and records equal what an independent computation gives.
 *
 * A real cache is synced from the sample API over loopback; then the service changes (records added
 * — newer than the mirror — and deleted) and two views' memberships are refreshed through the
 * sync's engine. The reference is a second cache whose whole mirror is exactly the view's members
 * as the view shows them (the mirror's records of the members it holds, the service's records of
 * the newer ones), built by the ordinary sync path: every query of the view must answer what the
 * same query without a view answers on the reference. Filters without a search are also checked
 * against the records' JSON in plain JavaScript. After a full sync brings the newer records into
 * the mirror, the same holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { copyMailingTables } from '../helpers/mailingTables.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_SORT_COLUMNS, ORDER_SORT_COLUMNS, type ContactQuery, type FacetOption, type OrderQuery } from '../../shared/query.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { openExportRows, type ExportSelection } from '../../electron/main/cache/read/exportRows.ts';
import { StageWriter } from '../../electron/main/cache/build/ingest.ts';
import { buildNext, publishNext } from '../../electron/main/cache/build/publish.ts';
import { contactFacets, countContacts, countOrders, getContact, getOrder, orderFacets, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { readRecords } from '../../electron/main/cache/read/records.ts';
import { createView, getView, viewNewerIds } from '../../electron/main/cache/savedViews/savedViews.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;
let source: PageSource;
let contactView = '';
let orderView = '';
let smallView = '';
const refs: Partial<Record<string, Database.Database>> = {};

/** A cache whose mirror is exactly the members of `viewId`, as the view shows them. */
function reference(name: string, resource: Resource, viewId: string): Database.Database {
  const ref = openCache(join(dir, `${name}.sqlite`));
  const key = db.prepare('SELECT member_key FROM view_memberships WHERE view_id = ?').pluck().get(viewId) as number;
  const table = resource === 'contacts' ? 'contacts' : 'orders';
  const raws = db.prepare(`SELECT coalesce((SELECT x.raw FROM ${table} x WHERE x.id = m.id), (SELECT n.raw FROM view_newer_${table} n WHERE n.member_key = m.member_key AND n.id = m.id))
    FROM view_members m WHERE m.member_key = ? ORDER BY m.position`).pluck().all(key) as (string | null)[];
  expect(raws.every((r) => r !== null)).toBe(true);
  const writer = new StageWriter(ref);
  for (let page = 0; page * 500 < raws.length; page++) {
    writer.writePage(resource, 1, page, raws.length, raws.slice(page * 500, page * 500 + 500).map((r) => ({ ok: true, record: JSON.parse(r as string) })));
  }
  buildNext(ref, resource, 'ref');
  publishNext(ref, resource, () => {});
  return ref;
}

const byValue = <V>(options: FacetOption<V>[]) => [...options].sort((a, b) => String(a.value).localeCompare(String(b.value)));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-viewq-'));
  api = await startSampleApi({ contacts: 3000, orders: 900, seed: 23 });
  db = openCache(join(dir, 'cache.sqlite'));
  source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
  const runs = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 500 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
  // The service changes after the sync: records added (newer than the mirror), a few deleted, and
  // one new record with text the search must fold.
  const added = api.dataset.addContacts(60);
  api.dataset.updateContact(added[3] as string, { firstName: 'Ångström', lastName: 'Anders', fullName: 'Ångström Anders', city: 'Zürich' });
  for (const id of [...api.dataset.contactIds()].slice(100, 104)) api.dataset.deleteContact(id);
  api.dataset.addOrders(25);
  const product = api.dataset.orderAt(0).product.productType;
  const label = api.dataset.contactAt(10).ContactLabels[0] ?? { id: '1' };
  contactView = createView(db, { resource: 'contacts', name: 'An', serviceQuery: { search: 'an' } }).id;
  smallView = createView(db, { resource: 'contacts', name: 'Tagged', serviceQuery: { tags: [label.id] } }).id;
  orderView = createView(db, { resource: 'orders', name: 'One product', serviceQuery: { productTypes: [product] } }).id;
  const outcomes: string[] = [];
  await runSync(db, source, { resources: [], pageSize: 300, views: { ids: [contactView, smallView, orderView], onViewRefreshed: (r) => outcomes.push(r.outcome) } });
  expect(outcomes).toEqual(['succeeded', 'succeeded', 'succeeded']);
  for (const id of [contactView, orderView]) expect(getView(db, id)?.membership?.newerThanMirror, id).toBeGreaterThan(0);
  refs.contacts = reference('ref-contacts', 'contacts', contactView);
  refs.small = reference('ref-small', 'contacts', smallView);
  refs.orders = reference('ref-orders', 'orders', orderView);
  // The references hold one resource each: the mailings and first-seen times are the synced cache's.
  copyMailingTables(db, Object.values(refs) as Database.Database[]);
}, 120_000);

afterAll(async () => {
  for (const ref of Object.values(refs)) ref?.close();
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

function contactCases(ref: Database.Database): ContactQuery[] {
  const row = ref.prepare('SELECT state, phone_digits, created_at FROM contacts ORDER BY rowid LIMIT 1 OFFSET 7').get() as { state: string; phone_digits: string; created_at: string };
  const label = ref.prepare('SELECT id, title FROM labels ORDER BY id LIMIT 1').get() as { id: string; title: string } | undefined;
  const day = row.created_at.slice(0, 10);
  return [
    {}, { sort: { column: 'createdAt', direction: 'asc' } },
    ...CONTACT_SORT_COLUMNS.flatMap((column) => (['asc', 'desc'] as const).map((direction) => ({ sort: { column, direction } }))),
    { search: 'a' }, { search: 'ma' }, { search: 'jo', sort: { column: 'name', direction: 'desc' } }, { search: 'angstrom' }, { search: 'zurich' },
    { search: row.phone_digits.slice(0, 4) }, { search: 'zzzz' },
    { states: [row.state, 'Ohio'] }, { verified: ['yes', 'unknown'] }, { liveMode: ['test'] }, { states: [''] },
    ...(label ? [{ labels: [label.title] }, { labels: [label.id], search: 'e' }] : []),
    { search: 'e', states: [row.state], verified: ['no'], sort: { column: 'city', direction: 'asc' } },
    { createdFrom: day, createdTo: day }, { search: 'a', createdBefore: row.created_at, liveMode: ['live'] },
  ];
}

function orderCases(ref: Database.Database): OrderQuery[] {
  const row = ref.prepare('SELECT id, status, campaign_type, campaign_name FROM orders ORDER BY rowid LIMIT 1 OFFSET 3').get() as { id: string; status: number; campaign_type: string; campaign_name: string };
  const contact = ref.prepare('SELECT contact_id FROM order_recipients LIMIT 1').pluck().get() as string;
  return [
    {}, ...ORDER_SORT_COLUMNS.flatMap((column) => (['asc', 'desc'] as const).map((direction) => ({ sort: { column, direction } }))),
    { search: row.id.slice(0, 5) }, { search: row.campaign_name.split(' ')[0] }, { statuses: [row.status] }, { campaignTypes: [row.campaign_type], delivered: ['some', 'none'] },
    { liveMode: ['live'], sort: { column: 'recipients', direction: 'desc' } }, { contactId: contact },
  ];
}

const WINDOWS = [[0, 50], [17, 100], [0, 1000], [40, 7], [1000, 600]] as const;

/** A page without its rows' `change`: the reference cache was synced once, so it records no change. */
function sansChange<P extends { rows: { change: unknown }[] }>(page: P): P {
  return { ...page, rows: page.rows.map((r) => ({ ...r, change: null })) };
}

function expectContactsEqual(viewId: string, ref: Database.Database): void {
  for (const q of contactCases(ref)) {
    const label = JSON.stringify(q);
    for (const [offset, limit] of WINDOWS) expect(sansChange(queryContacts(db, { ...q, view: viewId }, { offset, limit })), `${label} @${offset}`).toEqual(queryContacts(ref, q, { offset, limit }));
    expect(countContacts(db, { ...q, view: viewId }), label).toEqual(countContacts(ref, q));
    const got = contactFacets(db, { ...q, view: viewId });
    const want = contactFacets(ref, q);
    for (const k of ['labels', 'states', 'verified', 'liveMode'] as const) expect(byValue<unknown>(got[k]), `${label} facet ${k}`).toEqual(byValue<unknown>(want[k]));
  }
}

function expectOrdersEqual(viewId: string, ref: Database.Database): void {
  for (const q of orderCases(ref)) {
    const label = JSON.stringify(q);
    for (const [offset, limit] of WINDOWS) expect(sansChange(queryOrders(db, { ...q, view: viewId }, { offset, limit })), `${label} @${offset}`).toEqual(queryOrders(ref, q, { offset, limit }));
    expect(countOrders(db, { ...q, view: viewId }), label).toEqual(countOrders(ref, q));
    const got = orderFacets(db, { ...q, view: viewId });
    const want = orderFacets(ref, q);
    for (const k of ['statuses', 'productTypes', 'campaignTypes', 'scheduleTypes', 'liveMode', 'delivered'] as const) expect(byValue<unknown>(got[k]), `${label} facet ${k}`).toEqual(byValue<unknown>(want[k]));
  }
}

function exportRows(conn: Database.Database, selection: ExportSelection): unknown[][] {
  const rows = openExportRows(conn, selection);
  try {
    return [...rows.rows];
  } finally {
    rows.close();
  }
}

async function records(conn: Database.Database, kind: Resource, query: ContactQuery | OrderQuery): Promise<string[]> {
  const out: string[] = [];
  await readRecords(conn, { kind, query, limit: 1_000_000 }, { signal: new AbortController().signal, onProgress: (chunk) => out.push(...chunk), drained: async () => {} });
  return out;
}

describe('queries limited to a saved view', () => {
  it('contacts: windows, counts and facets equal the same queries on a cache holding exactly the members (newer ones included)', () => {
    expect(viewNewerIds(db, contactView).length).toBeGreaterThan(0);
    expectContactsEqual(contactView, refs.contacts!);
    expectContactsEqual(smallView, refs.small!);
  });

  it('orders: windows, counts and facets equal the reference too', () => {
    expectOrdersEqual(orderView, refs.orders!);
  });

  it('filters without a search select the members whose records match them, computed in plain JavaScript', () => {
    const members = db.prepare('SELECT m.id FROM view_members m JOIN view_memberships v ON v.member_key = m.member_key WHERE v.view_id = ?').pluck().all(contactView) as string[];
    const records = members.map((id) => getContact(db, id)?.contact as unknown as Record<string, unknown>);
    expect(records.every(Boolean)).toBe(true);
    const state = String(records[5]?.state);
    const label = (records.find((r) => (r.ContactLabels as unknown[]).length > 0)?.ContactLabels as { id: string; title: string }[])[0]!;
    const cases: [ContactQuery, (r: Record<string, unknown>) => boolean][] = [
      [{ states: [state, 'Ohio'] }, (r) => r.state === state || r.state === 'Ohio'],
      [{ verified: ['no', 'unknown'] }, (r) => r.isVerified !== true],
      [{ liveMode: ['test'] }, (r) => r.isLiveMode === false],
      [{ labels: [label.title] }, (r) => (r.ContactLabels as { id: string; title: string }[]).some((l) => l.title === label.title || l.id === label.title)],
      [{ labels: [label.id], verified: ['yes'] }, (r) => r.isVerified === true && (r.ContactLabels as { id: string }[]).some((l) => l.id === label.id)],
    ];
    for (const [q, keep] of cases) {
      const got = queryContacts(db, { ...q, view: contactView }, { offset: 0, limit: 1000 });
      const want = records.filter(keep).map((r) => r.id).sort();
      expect(got.rows.map((r) => r.id).sort(), JSON.stringify(q)).toEqual(want);
      expect(got.total).toEqual({ count: want.length, exact: true });
    }
  });

  it('details, export rows and records of a view equal the reference; a newer record shows its own details', async () => {
    const newer = viewNewerIds(db, contactView)[0] as string;
    expect(getContact(db, newer)?.contact).toEqual(getContact(refs.contacts!, newer)?.contact);
    const newerOrder = viewNewerIds(db, orderView)[0] as string;
    // The reference holds no contacts: compare the recipients' snapshots, not their comparison with the contacts.
    const snapshots = (detail: ReturnType<typeof getOrder>) => detail && { ...detail, recipients: detail.recipients.map(({ contactInCache: _a, changedSinceOrder: _b, addressChanged: _c, ...r }) => r) };
    expect(snapshots(getOrder(db, newerOrder))).toEqual(snapshots(getOrder(refs.orders!, newerOrder)));
    for (const q of [{}, { search: 'a', sort: { column: 'name', direction: 'desc' } }, { states: ['Ohio', 'Texas'] }] as ContactQuery[]) {
      expect(exportRows(db, { kind: 'contacts', query: { ...q, view: contactView }, columns: null })).toEqual(exportRows(refs.contacts!, { kind: 'contacts', query: q, columns: null }));
      expect(await records(db, 'contacts', { ...q, view: contactView })).toEqual(await records(refs.contacts!, 'contacts', q));
    }
    for (const q of [{}, { sort: { column: 'campaign', direction: 'asc' } }, { delivered: ['all'] }] as OrderQuery[]) {
      for (const kind of ['orders', 'recipients'] as const) {
        expect(exportRows(db, { kind, query: { ...q, view: orderView }, columns: null }), `${kind} ${JSON.stringify(q)}`).toEqual(exportRows(refs.orders!, { kind, query: q, columns: null }));
      }
      expect(await records(db, 'orders', { ...q, view: orderView })).toEqual(await records(refs.orders!, 'orders', q));
    }
  });

  it('refuses a view that does not exist or shows the other resource', () => {
    expect(() => queryContacts(db, { view: '00000000-0000-0000-0000-000000000000' }, { offset: 0, limit: 10 })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => countOrders(db, { view: contactView })).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/shows contacts, not orders/) }));
    // A view without a service query limits nothing.
    const local = createView(db, { resource: 'contacts', name: 'Local only', settings: { search: 'x' } }).id;
    expect(countContacts(db, { view: local })).toEqual(countContacts(db, {}));
  });

  it('after a full sync brings the newer records into the mirror, they are dropped from the view\'s own store and the view still equals the reference', async () => {
    const runs = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 500 });
    expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    expect(viewNewerIds(db, contactView)).toEqual([]);
    expect(viewNewerIds(db, orderView)).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM view_newer_contacts').pluck().get()).toBe(0);
    expect(getView(db, contactView)?.membership).toMatchObject({ newerThanMirror: 0, members: countContacts(refs.contacts!, {}).count });
    // The sync published the added orders: the contacts' mailings changed with them.
    copyMailingTables(db, Object.values(refs) as Database.Database[]);
    expectContactsEqual(contactView, refs.contacts!);
    expectOrdersEqual(orderView, refs.orders!);
  });
});
