/**
 * Empty values sort last in both directions (cache/store/positions.ts, cache/read/emptyOrder.ts), against a
 * real cache synced from the sample API over loopback, with contacts whose city, company, email or
 * labels are empty and orders whose campaign has no name.
 *
 * The reference is computed in JavaScript from the cached values alone: the non-empty values in
 * Intl.Collator's order (ties by id: shorter, then smaller digit strings first) and the empty ones
 * after them by id; descending is the non-empty values in the exact reverse order, then the empty
 * ones in reverse of their ascending order. Windows at several offsets (one straddling the last
 * non-empty row), filtered and searched results, a saved view's members (all in the mirror, and
 * with members newer than the mirror), sorts by several keys, the CSV export and the records job
 * all follow it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContactQuery, OrderQuery, SortDirection } from '../../shared/query.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { openExportRows, type ExportSelection } from '../../electron/main/cache/read/exportRows.ts';
import { countContacts, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { readRecords } from '../../electron/main/cache/read/records.ts';
import { createView, getView } from '../../electron/main/cache/savedViews/savedViews.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;
let source: PageSource;
/** A view whose members are all in the mirror, and one with members newer than the mirror. */
let inMirrorView = '';
let newerView = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-empties-'));
  api = await startSampleApi({ contacts: 1200, orders: 300, seed: 31 });
  const ids = [...api.dataset.contactIds()];
  ids.forEach((id, i) => {
    if (i % 9 === 1) api.dataset.updateContact(id, { city: '' });
    if (i % 13 === 2) api.dataset.updateContact(id, { email: '' });
    if (i % 7 === 3) api.dataset.updateContact(id, { companyName: '' });
    if (i % 5 === 4) api.dataset.updateContact(id, { ContactLabels: [] });
  });
  const orderIds = [...api.dataset.orderIds()];
  orderIds.forEach((id, i) => {
    if (i % 6 === 0) api.dataset.updateOrder(id, { campaign: { ...api.dataset.orderById(id)!.campaign, name: '' } });
  });
  db = openCache(join(dir, 'cache.sqlite'));
  source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
  expect((await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 500 })).map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
  inMirrorView = createView(db, { resource: 'contacts', name: 'With an e', serviceQuery: { search: 'e' } }).id;
  await runSync(db, source, { resources: [], pageSize: 500, views: { ids: [inMirrorView] } });
  // Contacts the mirror does not hold yet, some with an empty city or company: newer members.
  const added = api.dataset.addContacts(40);
  added.forEach((id, i) => {
    api.dataset.updateContact(id, { firstName: 'Eve', fullName: `Eve ${i}`, ...(i % 3 === 0 ? { city: '' } : {}), ...(i % 4 === 0 ? { companyName: '' } : {}) });
  });
  newerView = createView(db, { resource: 'contacts', name: 'Also with an e', serviceQuery: { search: 'e' } }).id;
  await runSync(db, source, { resources: [], pageSize: 500, views: { ids: [newerView] } });
  expect(getView(db, inMirrorView)?.membership?.newerThanMirror).toBe(0);
  expect(getView(db, newerView)?.membership?.newerThanMirror).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const collator = new Intl.Collator();
const byId = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

interface Valued {
  id: string;
  v: string | null;
}

/** Empty as positions.ts means it: NULL, '' or (labels) an empty list. */
const isEmpty = (v: string | null): boolean => v === null || v === '' || v === '[]';

/** The reference order of `rows` by their value, and the number of non-empty ones. */
function referenceOrder(rows: readonly Valued[], direction: SortDirection): { ids: string[]; filled: number } {
  const filled = rows.filter((r) => !isEmpty(r.v)).sort((a, b) => collator.compare(a.v!, b.v!) || byId(a.id, b.id)).map((r) => r.id);
  const empty = rows.filter((r) => isEmpty(r.v)).map((r) => r.id).sort(byId);
  return { ids: direction === 'asc' ? [...filled, ...empty] : [...filled.reverse(), ...empty.reverse()], filled: filled.length };
}

/** Offsets that start, straddle and follow the last non-empty row, and end the list. */
function offsets(filled: number, total: number): number[] {
  return [...new Set([0, 1, filled - 40, filled - 1, filled, filled + 3, total - 60, total - 1].filter((o) => o >= 0 && o < total))];
}

const CONTACT_FIELDS = { city: 'city', company: 'company_name', email: 'email', labels: 'labels' } as const;

function contactValues(column: keyof typeof CONTACT_FIELDS, where = '1'): Valued[] {
  return db.prepare(`SELECT id, ${CONTACT_FIELDS[column]} AS v FROM contacts WHERE ${where}`).all() as Valued[];
}

const ids = (q: ContactQuery, offset: number, limit: number) => queryContacts(db, q, { offset, limit }).rows.map((r) => r.id);

function exportIds(selection: ExportSelection): string[] {
  const rows = openExportRows(db, selection);
  try {
    return [...rows.rows].map((r) => String(r[0]));
  } finally {
    rows.close();
  }
}

async function recordIds(query: ContactQuery, limit: number): Promise<string[]> {
  const out: string[] = [];
  await readRecords(db, { kind: 'contacts', query, limit }, { signal: new AbortController().signal, onProgress: (chunk) => out.push(...chunk), drained: async () => {} });
  return out.map((raw) => (JSON.parse(raw) as { id: string }).id);
}

describe('contacts: empty values last in both directions', () => {
  it('the test data has empty and non-empty values in every column it sorts', () => {
    for (const column of Object.keys(CONTACT_FIELDS) as (keyof typeof CONTACT_FIELDS)[]) {
      const { filled } = referenceOrder(contactValues(column), 'asc');
      expect(filled, column).toBeGreaterThan(100);
      expect(filled, column).toBeLessThan(1150);
    }
  });

  it('windows of the whole table at every offset, the export and the records follow the reference', async () => {
    for (const column of Object.keys(CONTACT_FIELDS) as (keyof typeof CONTACT_FIELDS)[]) {
      for (const direction of ['asc', 'desc'] as const) {
        const q: ContactQuery = { sort: { column, direction } };
        const { ids: want, filled } = referenceOrder(contactValues(column), direction);
        for (const offset of offsets(filled, want.length)) expect(ids(q, offset, 100), `${column} ${direction} @${offset}`).toEqual(want.slice(offset, offset + 100));
        expect(exportIds({ kind: 'contacts', query: q, columns: ['id'] }), `${column} ${direction} export`).toEqual(want);
        expect(await recordIds(q, filled + 5), `${column} ${direction} records`).toEqual(want.slice(0, filled + 5));
      }
    }
  });

  it('filtered (row conditions) and searched results follow the reference among their rows', async () => {
    const verified = new Set(db.prepare('SELECT id FROM contacts WHERE is_verified = 1 OR is_verified IS NULL').pluck().all() as string[]);
    const searched = new Set(ids({ search: 'a' }, 0, 5000));
    expect(searched.size).toBeGreaterThan(200);
    for (const column of ['city', 'company', 'labels'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const narrowings: [string, ContactQuery, Set<string>][] = [['verified', { verified: ['yes', 'unknown'] }, verified], ['search', { search: 'a' }, searched]];
        for (const [name, extra, keep] of narrowings) {
          const q: ContactQuery = { ...extra, sort: { column, direction } };
          const { ids: want, filled } = referenceOrder(contactValues(column).filter((r) => keep.has(r.id)), direction);
          for (const offset of offsets(filled, want.length)) expect(ids(q, offset, 100), `${column} ${direction} ${name} @${offset}`).toEqual(want.slice(offset, offset + 100));
          // A window that starts past every non-empty row (the first part counted, not read).
          expect(ids(q, filled + 2, 10), `${column} ${direction} ${name} after`).toEqual(want.slice(filled + 2, filled + 12));
          expect(queryContacts(db, q, { offset: filled + 2, limit: 10 }).total.count).toBe(want.length);
          expect(exportIds({ kind: 'contacts', query: q, columns: ['id'] }), `${column} ${direction} ${name} export`).toEqual(want);
          expect(await recordIds(q, 1_000_000), `${column} ${direction} ${name} records`).toEqual(want);
        }
      }
    }
  });

  it('a saved view\'s members, all in the mirror or some newer than it, follow the reference', () => {
    for (const view of [inMirrorView, newerView]) {
      const key = db.prepare('SELECT member_key FROM view_memberships WHERE view_id = ?').pluck().get(view) as number;
      for (const column of ['city', 'company'] as const) {
        const field = CONTACT_FIELDS[column];
        const members = db.prepare(`SELECT m.id, coalesce((SELECT ${field} FROM contacts x WHERE x.id = m.id), (SELECT ${field} FROM view_newer_contacts n WHERE n.member_key = m.member_key AND n.id = m.id)) AS v
          FROM view_members m WHERE m.member_key = ?`).all(key) as Valued[];
        expect(countContacts(db, { view }).count).toBe(members.length);
        for (const direction of ['asc', 'desc'] as const) {
          const q: ContactQuery = { view, sort: { column, direction } };
          const { ids: want, filled } = referenceOrder(members, direction);
          expect(filled).toBeGreaterThan(50);
          expect(filled).toBeLessThan(want.length);
          for (const offset of offsets(filled, want.length)) expect(ids(q, offset, 100), `${column} ${direction} @${offset}`).toEqual(want.slice(offset, offset + 100));
          expect(exportIds({ kind: 'contacts', query: q, columns: ['id'] })).toEqual(want);
          // Filtered inside the view.
          const verified = new Set(db.prepare('SELECT id FROM contacts WHERE is_verified = 1 UNION SELECT id FROM view_newer_contacts WHERE is_verified = 1').pluck().all() as string[]);
          const narrowed = referenceOrder(members.filter((r) => verified.has(r.id)), direction).ids;
          expect(ids({ ...q, verified: ['yes'] }, 0, 5000), `${column} ${direction} verified`).toEqual(narrowed);
        }
      }
    }
  });

  it('sorts by several keys keep each descending key\'s empty values last', () => {
    const rows = db.prepare('SELECT id, state, company_name AS company, full_name AS name FROM contacts').all() as { id: string; state: string; company: string; name: string }[];
    const text = (a: string, b: string) => (isEmpty(a) ? (isEmpty(b) ? 0 : 1) : isEmpty(b) ? -1 : collator.compare(a, b));
    // State ascending, then company descending (empty companies last within each state).
    const byStateCompany = [...rows].sort((a, b) => text(a.state, b.state) || Number(isEmpty(a.company)) - Number(isEmpty(b.company)) || -text(a.company, b.company) || -byId(a.id, b.id)).map((r) => r.id);
    // Company descending (the empty companies last), then name ascending.
    const byCompanyName = [...rows].sort((a, b) => Number(isEmpty(a.company)) - Number(isEmpty(b.company)) || -text(a.company, b.company) || text(a.name, b.name) || byId(a.id, b.id)).map((r) => r.id);
    const cases: [ContactQuery, string[]][] = [
      [{ sort: { column: 'state', direction: 'asc' }, thenBy: [{ column: 'company', direction: 'desc' }] }, byStateCompany],
      [{ sort: { column: 'company', direction: 'desc' }, thenBy: [{ column: 'name', direction: 'asc' }] }, byCompanyName],
    ];
    for (const [q, want] of cases) {
      expect(exportIds({ kind: 'contacts', query: q, columns: ['id'] }), JSON.stringify(q)).toEqual(want);
      for (const offset of [0, 500, want.length - 30]) expect(ids(q, offset, 50), `${JSON.stringify(q)} @${offset}`).toEqual(want.slice(offset, offset + 50));
    }
  });

  it('the CSV export in descending order puts the empty companies last', async () => {
    const path = join(dir, 'companies.csv');
    const options = { delimiter: 'comma' as const, bom: false, neutralizeFormulas: true };
    await runExport(db, { kind: 'contacts', query: { sort: { column: 'company', direction: 'desc' } }, columns: ['id', 'companyName'], options }, path, {});
    const parsed = parse(readFileSync(path, 'utf8'), { record_delimiter: '\r\n' }) as string[][];
    expect(parsed.slice(1).map((r) => r[0])).toEqual(referenceOrder(contactValues('company'), 'desc').ids);
    const firstEmpty = parsed.findIndex((r, i) => i > 0 && r[1] === '');
    expect(firstEmpty).toBeGreaterThan(1);
    expect(parsed.slice(firstEmpty).every((r) => r[1] === '')).toBe(true);
  });
});

describe('orders: orders whose campaign has no name last in both directions', () => {
  it('windows, the orders export and the recipients export follow the reference', () => {
    const rows = db.prepare('SELECT id, campaign_name AS v FROM orders').all() as Valued[];
    for (const direction of ['asc', 'desc'] as const) {
      const q: OrderQuery = { sort: { column: 'campaign', direction } };
      const { ids: want, filled } = referenceOrder(rows, direction);
      expect(filled).toBeLessThan(want.length);
      for (const offset of offsets(filled, want.length)) expect(queryOrders(db, q, { offset, limit: 100 }).rows.map((r) => r.id), `${direction} @${offset}`).toEqual(want.slice(offset, offset + 100));
      expect(exportIds({ kind: 'orders', query: q, columns: ['id'] })).toEqual(want);
      const recipients = exportIds({ kind: 'recipients', query: q, columns: ['orderId'] });
      expect([...new Set(recipients)]).toEqual(want.filter((id) => recipients.includes(id)));
      const live = new Set(db.prepare('SELECT id FROM orders WHERE is_live_mode = 1').pluck().all() as string[]);
      const filtered = referenceOrder(rows.filter((r) => live.has(r.id)), direction).ids;
      expect(queryOrders(db, { ...q, liveMode: ['live'] }, { offset: 0, limit: 1000 }).rows.map((r) => r.id)).toEqual(filtered);
    }
  });
});

describe('the kept copies of removed records sort with the mirror\'s rows', () => {
  it('a change filter with removed records, sorted by company descending, keeps the empty companies last', async () => {
    const some = (db.prepare("SELECT id FROM contacts WHERE company_name != '' ORDER BY rowid LIMIT 6").pluck().all() as string[]);
    const blank = (db.prepare("SELECT id FROM contacts WHERE company_name = '' ORDER BY rowid LIMIT 2").pluck().all() as string[]);
    for (const id of [some[0]!, some[1]!, blank[0]!]) api.dataset.deleteContact(id);
    api.dataset.updateContact(some[2]!, { companyName: '' });
    api.dataset.updateContact(some[3]!, { companyName: 'Ångström Works' });
    api.dataset.updateContact(blank[1]!, { companyName: 'Zephyr Ltd' });
    expect((await runSync(db, source, { resources: ['contacts'], pageSize: 500 })).map((r) => r.outcome)).toEqual(['succeeded']);
    const rows = db.prepare(`SELECT id, company_name AS v FROM contacts WHERE id IN (SELECT id FROM contact_changes)
      UNION ALL SELECT id, company_name AS v FROM removed_contacts`).all() as Valued[];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const direction of ['asc', 'desc'] as const) {
      const q: ContactQuery = { changed: ['added', 'changed', 'removed'], sort: { column: 'company', direction } };
      const want = referenceOrder(rows, direction).ids;
      expect(ids(q, 0, 100), direction).toEqual(want);
      expect(exportIds({ kind: 'contacts', query: q, columns: ['id'] }), `${direction} export`).toEqual(want);
    }
  });
});
