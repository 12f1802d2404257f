/**
 * What the tables ask of the cache beyond the plain filters, against a real cache synced from the
 * sample API over loopback:
 * - `ids` (a selection of the table): windows, counts, export rows and records hold exactly the
 *   named records that the rest of the query selects, in the query's own order; the query schemas
 *   bound and check the list;
 * - `labelsMode`: the label filter's labels combined with any or all, with and without a search
 *   (filter tokens in the search index or row conditions), and the label facet's counts in each mode;
 * - text sorts in the locale's order (Intl.Collator), empty values last.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_IDS, contactQuerySchema, orderQuerySchema, type ContactQuery, type OrderQuery } from '../../shared/query.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { localeKey } from '../../electron/main/cache/store/collation.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { openExportRows, type ExportSelection } from '../../electron/main/cache/read/exportRows.ts';
import { contactFacets, countContacts, countOrders, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { readRecords } from '../../electron/main/cache/read/records.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let db: Database.Database;
let api: SampleApi;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-selection-'));
  api = await startSampleApi({ contacts: 2000, orders: 500, seed: 11 });
  const some = [...api.dataset.contactIds()];
  api.dataset.updateContact(some[5] as string, { firstName: 'Łukasz', lastName: 'Nowak', fullName: 'Łukasz Nowak' });
  api.dataset.updateContact(some[6] as string, { firstName: 'Zachary', lastName: 'Adams', fullName: 'Zachary Adams' });
  api.dataset.updateContact(some[7] as string, { firstName: 'élodie', lastName: 'Ábrahám', fullName: 'élodie Ábrahám' });
  api.dataset.updateContact(some[8] as string, { firstName: '', lastName: '', fullName: '', companyName: '' });
  db = openCache(join(dir, 'cache.sqlite'));
  const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } });
  const runs = await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 1000 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
});
afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const contactIds = (q: ContactQuery) => queryContacts(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id);
const orderIds = (q: OrderQuery) => queryOrders(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id);

function exportRows(selection: ExportSelection): unknown[][] {
  const rows = openExportRows(db, selection);
  try {
    return [...rows.rows];
  } finally {
    rows.close();
  }
}

async function records(kind: Resource, query: ContactQuery | OrderQuery): Promise<string[]> {
  const out: string[] = [];
  await readRecords(db, { kind, query, limit: 1_000_000 }, { signal: new AbortController().signal, onProgress: (chunk) => out.push(...chunk), drained: async () => {} });
  return out;
}

/** Every `step`-th id of the whole contacts table, in no particular order. */
function someContactIds(step: number): string[] {
  return (db.prepare('SELECT id FROM contacts WHERE rowid % ? = 0 ORDER BY random()').pluck().all(step) as string[]);
}

describe('a query limited to ids', () => {
  it('contacts: the named records the rest of the query selects, in its order, with an exact count', () => {
    const chosen = someContactIds(7);
    const set = new Set(chosen);
    const queries: ContactQuery[] = [
      {},
      { sort: { column: 'email', direction: 'desc' } },
      { sort: { column: 'createdAt', direction: 'asc' } },
      { search: 'a', sort: { column: 'name', direction: 'asc' } },
      { verified: ['yes'], states: ['Ohio', 'Texas', 'California'] },
      { search: 'e', labels: [String(db.prepare('SELECT id FROM labels LIMIT 1').pluck().get())] },
    ];
    for (const q of queries) {
      const expected = contactIds(q).filter((id) => set.has(id));
      // Beyond the 1000 rows read above, the whole view is read through its export SQL.
      const all = exportRows({ kind: 'contacts', query: q, columns: ['id'] }).map((r) => String(r[0])).filter((id) => set.has(id));
      expect(all.slice(0, expected.length)).toEqual(expected);
      const limited = { ...q, ids: chosen };
      expect(contactIds(limited), JSON.stringify(q)).toEqual(all.slice(0, 1000));
      expect(countContacts(db, limited)).toEqual({ count: all.length, exact: true });
      expect(queryContacts(db, limited, { offset: 5, limit: 10 }).rows.map((r) => r.id)).toEqual(all.slice(5, 15));
      expect(exportRows({ kind: 'contacts', query: limited, columns: ['id'] }).map((r) => String(r[0]))).toEqual(all);
    }
  });

  it('ids the cache does not hold, or repeated, change nothing but what they name', () => {
    const [a, b] = someContactIds(101);
    expect(contactIds({ ids: [a!, 'no-such-id', b!, a!], sort: { column: 'name', direction: 'asc' } })).toEqual(contactIds({ ids: [b!, a!], sort: { column: 'name', direction: 'asc' } }));
    expect(contactIds({ ids: ['no-such-id'] })).toEqual([]);
    expect(countContacts(db, { ids: ['no-such-id'] })).toEqual({ count: 0, exact: true });
  });

  it('orders and their recipients: the named orders in the view\'s order; the records job reads the same', async () => {
    const every = orderIds({ sort: { column: 'campaign', direction: 'asc' } });
    const chosen = every.filter((_, i) => i % 5 === 2).reverse();
    const q: OrderQuery = { sort: { column: 'campaign', direction: 'asc' }, ids: chosen };
    expect(orderIds(q)).toEqual(every.filter((id) => chosen.includes(id)));
    expect(countOrders(db, q)).toEqual({ count: chosen.length, exact: true });
    const recipients = exportRows({ kind: 'recipients', query: q, columns: ['orderId'] }).map((r) => String(r[0]));
    const perOrder = db.prepare('SELECT order_id, count(*) AS n FROM order_recipients GROUP BY order_id').all() as { order_id: string; n: number }[];
    const n = new Map(perOrder.map((r) => [r.order_id, r.n]));
    expect(recipients).toEqual(orderIds(q).flatMap((id) => Array<string>(n.get(id) ?? 0).fill(id)));
    const raws = await records('orders', q);
    expect(raws.map((r) => String((JSON.parse(r) as { id: unknown }).id))).toEqual(orderIds(q));
    const contacts = someContactIds(50);
    expect((await records('contacts', { ids: contacts })).map((r) => String((JSON.parse(r) as { id: unknown }).id))).toEqual(contactIds({ ids: contacts }));
  });

  it('the query schemas take up to MAX_QUERY_IDS ids and refuse an empty list, too many, or an id with control characters', () => {
    const many = Array.from({ length: MAX_QUERY_IDS }, (_, i) => String(i + 1));
    expect(contactQuerySchema.safeParse({ ids: many }).success).toBe(true);
    expect(orderQuerySchema.safeParse({ ids: many }).success).toBe(true);
    expect(contactQuerySchema.safeParse({ ids: [...many, '0'] }).success).toBe(false);
    expect(orderQuerySchema.safeParse({ ids: [] }).success).toBe(false);
    expect(contactQuerySchema.safeParse({ ids: ['1\u0000'] }).success).toBe(false);
    expect(contactQuerySchema.safeParse({ ids: [1] }).success).toBe(false);
  });

  it('a window of 100,000 named contacts reads fast: the ids are one parameter looked up through the id index', () => {
    const all = db.prepare('SELECT id FROM contacts').pluck().all() as string[];
    const many = Array.from({ length: MAX_QUERY_IDS }, (_, i) => all[i % all.length]! + (i < all.length ? '' : `-${i}`));
    const t0 = performance.now();
    const page = queryContacts(db, { ids: many, sort: { column: 'name', direction: 'asc' } }, { offset: 0, limit: 100 });
    const ms = performance.now() - t0;
    expect(page.total).toEqual({ count: all.length, exact: true });
    expect(ms).toBeLessThan(3000);
  });
});

describe('labels combined with any or all', () => {
  /** Each contact's label ids and titles, from the link table. */
  function labelsById(): Map<string, Set<string>> {
    const rows = db.prepare('SELECT cl.contact_id AS id, l.id AS lid, l.title AS title FROM contact_labels cl JOIN labels l ON l.id = cl.label_id').all() as { id: string; lid: string; title: string }[];
    const out = new Map<string, Set<string>>();
    for (const r of rows) {
      const set = out.get(r.id) ?? new Set<string>();
      set.add(r.lid).add(r.title);
      out.set(r.id, set);
    }
    return out;
  }
  const everyId = (q: ContactQuery) => exportRows({ kind: 'contacts', query: q, columns: ['id'] }).map((r) => String(r[0]));

  it('all: only the contacts with every label (by id or title); any: with one of them; with and without a search', () => {
    const byContact = labelsById();
    // Three labels that one contact has together.
    const owner = db.prepare('SELECT contact_id FROM contact_labels GROUP BY contact_id HAVING count(*) >= 3 LIMIT 1').pluck().get() as string;
    const common = db.prepare('SELECT l.id, l.title FROM contact_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.contact_id = ? LIMIT 3').all(owner) as { id: string; title: string }[];
    expect(common).toHaveLength(3);
    const [a, b, c] = common as [{ id: string; title: string }, { id: string; title: string }, { id: string; title: string }];
    for (const labels of [[a.id, b.id], [a.title, b.id], [a.id, b.id, c.title]]) {
      // A search the owner matches (its name's first letter).
      const initial = (db.prepare('SELECT full_name FROM contacts WHERE id = ?').pluck().get(owner) as string).slice(0, 1);
      for (const search of [undefined, initial]) {
        const base: ContactQuery = search ? { search } : {};
        const inBase = new Set(everyId(base));
        const want = (mode: 'any' | 'all') =>
          everyId({}).filter((id) => inBase.has(id) && (mode === 'all' ? labels.every((l) => byContact.get(id)?.has(l)) : labels.some((l) => byContact.get(id)?.has(l))));
        const all = everyId({ ...base, labels, labelsMode: 'all' });
        const any = everyId({ ...base, labels, labelsMode: 'any' });
        expect(all, `all ${labels.join('+')} ${search ?? ''}`).toEqual(want('all'));
        expect(any).toEqual(want('any'));
        expect(everyId({ ...base, labels })).toEqual(any);
        expect(all.length).toBeGreaterThan(0);
        expect(all.length).toBeLessThan(any.length);
        expect(countContacts(db, { ...base, labels, labelsMode: 'all' })).toEqual({ count: all.length, exact: true });
        expect(queryContacts(db, { ...base, labels, labelsMode: 'all' }, { offset: 0, limit: 50 }).rows.map((r) => r.id)).toEqual(all.slice(0, 50));
      }
    }
  });

  it('the label facet counts what ticking an option would give: any adds to the view, all narrows it', () => {
    const [a, b] = db.prepare('SELECT label_id FROM contact_labels GROUP BY label_id ORDER BY count(*) DESC LIMIT 2').pluck().all() as string[];
    const states = ['Ohio', 'Texas', 'California', 'New York', 'Florida'];
    for (const mode of ['any', 'all'] as const) {
      const q: ContactQuery = { labels: [a!], labelsMode: mode, states };
      const facet = contactFacets(db, q).labels;
      const option = (id: string) => facet.find((o) => o.value === id)?.count ?? 0;
      // Ticking b: the view with both labels in this mode.
      const both = countContacts(db, { ...q, labels: [a!, b!] }).count;
      if (mode === 'all') {
        expect(option(b!)).toBe(both);
        expect(option(a!)).toBe(countContacts(db, q).count);
      } else {
        expect(option(b!)).toBe(countContacts(db, { states, labels: [b!] }).count);
        expect(option(a!)).toBe(countContacts(db, q).count);
      }
    }
  });

  it('the query schema takes any or all and nothing else', () => {
    expect(contactQuerySchema.safeParse({ labels: ['1'], labelsMode: 'all' }).success).toBe(true);
    expect(contactQuerySchema.safeParse({ labels: ['1'], labelsMode: 'some' }).success).toBe(false);
    expect(orderQuerySchema.safeParse({ labelsMode: 'all' }).success).toBe(false);
  });
});

describe('text in the locale\'s order', () => {
  const collator = new Intl.Collator();
  const byId = (a: { id: string }, b: { id: string }) => a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  it('names, companies, cities and emails sort as Intl.Collator sorts them, empty values last; descending reverses the others and keeps the empty ones last', () => {
    for (const [column, field] of [['name', 'full_name'], ['company', 'company_name'], ['city', 'city'], ['email', 'email']] as const) {
      const rows = db.prepare(`SELECT id, ${field} AS v FROM contacts`).all() as { id: string; v: string | null }[];
      const filled = rows.filter((r) => r.v).sort((a, b) => collator.compare(a.v!, b.v!) || byId(a, b));
      const empty = rows.filter((r) => !r.v).sort(byId);
      const want = [...filled, ...empty].map((r) => r.id);
      const asc = exportRows({ kind: 'contacts', query: { sort: { column, direction: 'asc' } }, columns: ['id'] }).map((r) => String(r[0]));
      expect(asc, column).toEqual(want);
      const page = queryContacts(db, { sort: { column, direction: 'desc' } }, { offset: 0, limit: 20 }).rows.map((r) => r.id);
      const descending = [...filled.reverse(), ...empty.reverse()].map((r) => r.id);
      expect(page).toEqual(descending.slice(0, 20));
    }
    const names = exportRows({ kind: 'contacts', query: { sort: { column: 'name', direction: 'asc' } }, columns: ['fullName'] }).map((r) => String(r[0]));
    expect(names.indexOf('Łukasz Nowak')).toBeLessThan(names.indexOf('Zachary Adams'));
    expect(names.indexOf('élodie Ábrahám')).toBeLessThan(names.indexOf('Zachary Adams'));
    expect(names.at(-1)).toBe('');
  });

  it('keys order texts as the collator does at its three strengths', () => {
    const words = ['Zachary', 'Łukasz', 'lukas', 'Lukas', 'Émile', 'emile', 'Emily', 'Ångström', 'Zoë', 'zoe', 'Mary Ann', 'Maryann', "O'Brien", 'Obama', 'Øyvind', 'Oz', '123', 'abc', 'Ωmega', 'Ärger', 'Azure', 'a'];
    const byKey = [...words].sort((a, b) => Buffer.compare(Buffer.from(localeKey(a)), Buffer.from(localeKey(b))));
    expect(byKey).toEqual([...words].sort(collator.compare));
    // Outside the Basic Multilingual Plane: after it, by code point (an approximation).
    expect(Buffer.compare(Buffer.from(localeKey('𝒜lpha')), Buffer.from(localeKey('日本')))).toBe(1);
  });
});

describe('sorts by several keys and by last name', () => {
  const collator = new Intl.Collator();
  /** Text order of the positions: empty values after the others, else the collator's. */
  const text = (a: string | null, b: string | null) => (!a ? (!b ? 0 : 1) : !b ? -1 : collator.compare(a, b));
  const all = (q: ContactQuery) => exportRows({ kind: 'contacts', query: q, columns: ['id'] }).map((r) => String(r[0]));

  it('state ascending, then name descending: windows anywhere, filtered or searched, equal the export of the same query and the reference', () => {
    const q: ContactQuery = { sort: { column: 'state', direction: 'asc' }, thenBy: [{ column: 'name', direction: 'desc' }] };
    const rows = db.prepare('SELECT id, state, full_name AS name, pos_state, pos_name FROM contacts').all() as { id: string; state: string | null; name: string | null; pos_state: number; pos_name: number }[];
    const group = new Map<string, number>();
    for (const r of rows) group.set(r.state ?? '', Math.min(group.get(r.state ?? '') ?? Infinity, r.pos_state));
    const want = [...rows].sort((a, b) => group.get(a.state ?? '')! - group.get(b.state ?? '')! || Number(!a.name) - Number(!b.name) || b.pos_name - a.pos_name);
    // Semantics: states in locale order, and within one state names in reverse locale order, empty names last.
    for (let i = 1; i < want.length; i++) {
      const [a, b] = [want[i - 1]!, want[i]!];
      expect(text(a.state, b.state)).toBeLessThanOrEqual(0);
      if (a.state === b.state && a.name && b.name) expect(text(a.name, b.name)).toBeGreaterThanOrEqual(0);
      if (a.state === b.state && !a.name) expect(b.name).toBeFalsy();
    }
    const ids = want.map((r) => r.id);
    expect(all(q)).toEqual(ids);
    for (const offset of [0, 777, 1990]) expect(queryContacts(db, q, { offset, limit: 50 }).rows.map((r) => r.id)).toEqual(ids.slice(offset, offset + 50));
    expect(queryContacts(db, q, { offset: 0, limit: 10 }).total).toEqual({ count: 2000, exact: true });
    for (const narrowed of [{ ...q, verified: ['yes'] }, { ...q, search: 'a' }] as ContactQuery[]) {
      const expected = all(narrowed);
      const inView = new Set(expected);
      expect(expected).toEqual(ids.filter((id) => inView.has(id)));
      expect(queryContacts(db, narrowed, { offset: 3, limit: 40 }).rows.map((r) => r.id)).toEqual(expected.slice(3, 43));
    }
  });

  it('by last name, then first name, in locale order with empty last names last in both directions', () => {
    const rows = db.prepare('SELECT id, first_name AS f, last_name AS l FROM contacts').all() as { id: string; f: string | null; l: string | null }[];
    const want = [...rows].sort((a, b) => text(a.l, b.l) || (a.l && b.l ? text(a.f, b.f) : 0) || a.id.length - b.id.length || (a.id < b.id ? -1 : 1)).map((r) => r.id);
    const asc = all({ sort: { column: 'lastName', direction: 'asc' } });
    const names = new Map(rows.map((r) => [r.id, r]));
    for (let i = 1; i < asc.length; i++) {
      const [a, b] = [names.get(asc[i - 1]!)!, names.get(asc[i]!)!];
      expect(text(a.l, b.l), `${a.l} / ${b.l}`).toBeLessThanOrEqual(0);
    }
    expect(asc.length).toBe(want.length);
    expect(names.get(asc.at(-1)!)!.l).toBe('');
    const filled = asc.filter((id) => names.get(id)!.l);
    const descending = [...filled.reverse(), ...asc.slice(filled.length).reverse()];
    for (const offset of [0, 100, filled.length - 10]) {
      const page = queryContacts(db, { sort: { column: 'lastName', direction: 'desc' } }, { offset, limit: 30 }).rows.map((r) => r.id);
      expect(page).toEqual(descending.slice(offset, offset + 30));
    }
    // Ábrahám sorts with the A's, among the first last names.
    expect(asc.indexOf(rows.find((r) => r.l === 'Ábrahám')!.id)).toBeLessThan(asc.indexOf(rows.find((r) => r.l === 'Nowak')!.id));
  });

  it('orders: status, then campaign, then delivery date; the recipients export follows the same order', () => {
    const q: OrderQuery = { sort: { column: 'status', direction: 'desc' }, thenBy: [{ column: 'campaign', direction: 'asc' }, { column: 'deliveryDate', direction: 'desc' }] };
    const rows = db.prepare('SELECT id, status, campaign_name AS c, campaign_delivery_date AS d, pos_campaign, pos_delivery_date FROM orders').all() as { id: string; status: number; c: string; d: string | null; pos_campaign: number; pos_delivery_date: number }[];
    const group = new Map<string, number>();
    for (const r of rows) group.set(r.c, Math.min(group.get(r.c) ?? Infinity, r.pos_campaign));
    // Orders without a delivery date last within their campaign, also in descending order.
    const want = [...rows].sort((a, b) => b.status - a.status || group.get(a.c)! - group.get(b.c)! || Number(!a.d) - Number(!b.d) || b.pos_delivery_date - a.pos_delivery_date).map((r) => r.id);
    expect(rows.some((r) => !r.d) && rows.some((r) => r.d)).toBe(true);
    expect(orderIds(q)).toEqual(want);
    expect(queryOrders(db, q, { offset: 250, limit: 25 }).rows.map((r) => r.id)).toEqual(want.slice(250, 275));
    const recipients = [...new Set(exportRows({ kind: 'recipients', query: q, columns: ['orderId'] }).map((r) => String(r[0])))];
    expect(recipients).toEqual(want.filter((id) => recipients.includes(id)));
  });
});

describe('a sort by several keys after the next sync', () => {
  it('windows follow the new snapshot, not the order materialized for the previous one', async () => {
    const q: ContactQuery = { sort: { column: 'state', direction: 'asc' }, thenBy: [{ column: 'lastName', direction: 'asc' }] };
    const before = queryContacts(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id);
    const first = before[0]!;
    // The first row moves to the end: no state.
    api.dataset.updateContact(first, { state: '' });
    const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } });
    expect((await runSync(db, source, { resources: ['contacts'], pageSize: 1000 })).map((r) => r.outcome)).toEqual(['succeeded']);
    const all = exportRows({ kind: 'contacts', query: q, columns: ['id'] }).map((r) => String(r[0]));
    expect(all[0]).not.toBe(first);
    expect(queryContacts(db, q, { offset: 0, limit: 1000 }).rows.map((r) => r.id)).toEqual(all.slice(0, 1000));
    expect(queryContacts(db, q, { offset: 1000, limit: 1000 }).rows.map((r) => r.id)).toEqual(all.slice(1000));
  });
});
