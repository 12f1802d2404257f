import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONTACT_SORT_COLUMNS, ORDER_SORT_COLUMNS, type ContactQuery, type OrderQuery } from '../../shared/query.ts';
import { CacheClient, defaultWorkerUrl } from '../../electron/main/cache/worker/client.ts';
import { openCache, sessionMarkerPath, SORTER_THREADS, useBulkWriteSettings } from '../../electron/main/cache/store/db.ts';
import { COUNT_CAP, contactFacets, countContacts, countOrders, getContact, orderFacets, queryContacts, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { contactFilterTokensSql } from '../../electron/main/cache/build/publish.ts';
import { contactFtsValuesSql } from '../../electron/main/cache/store/searchIndex.ts';
import { CONTACT_FILTER_TOKENS, FILTER_TOKEN_MARK, compileSearch, contactViewSql, orderViewSql } from '../../electron/main/cache/read/list.ts';
import { CONTACT_POSITIONS } from '../../electron/main/cache/store/positions.ts';
import { CONTACT_SORT } from '../../electron/main/cache/read/listParts.ts';
import { reverse } from '../../electron/main/cache/store/positions.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let file: string;
let db: Database.Database;
let api: SampleApi;
let special: { diacritic: string; phone: string; label: string; intlPhone: string; elevenDigits: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cache-'));
  file = join(dir, 'cache.sqlite');
  api = await startSampleApi({ contacts: 3000, orders: 600, seed: 3 });
  const ids = [...api.dataset.contactIds()];
  special = { diacritic: ids[10] as string, phone: ids[20] as string, label: ids[30] as string, intlPhone: ids[40] as string, elevenDigits: ids[50] as string };
  api.dataset.updateContact(special.diacritic, { firstName: 'Zoë', lastName: 'Ångström-Müller', fullName: 'Zoë Ångström-Müller' });
  api.dataset.updateContact(special.phone, { phoneNo: '(614) 555-0199' });
  api.dataset.updateContact(special.intlPhone, { phoneNo: '+1 404 894 6866' });
  api.dataset.updateContact(special.elevenDigits, { phoneNo: '138 0013 8000' });
  api.dataset.updateContact(special.label, { ContactLabels: [{ id: '990001', title: 'Quarterly Platinum' }] });
  db = openCache(file);
  const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), {
    resources: ['contacts', 'orders'],
    pageSize: 1000,
  });
  expect(runs.every((r) => r.outcome === 'succeeded')).toBe(true);
});
afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = (q: ContactQuery, limit = 1000) => queryContacts(db, q, { offset: 0, limit }).rows.map((r) => r.id);

describe('contact search', () => {
  it('finds a diacritic-folded name, typed without accents, by prefix', () => {
    expect(ids({ search: 'zoe angst' })).toContain(special.diacritic);
    expect(ids({ search: 'zoe angstrom-mull' })).toEqual([special.diacritic]);
    expect(ids({ search: 'MULLER' })).toContain(special.diacritic);
  });

  it('finds a phone number however it is formatted', () => {
    for (const typed of ['6145550199', '614-555-0199', '614.555.01', '(614) 555 0199', '+614 5550199'.slice(1)]) {
      expect(ids({ search: typed }), typed).toContain(special.phone);
    }
    // With or without the North American country code, on either side.
    for (const typed of ['+1 614 555 0199', '16145550199', '1-614-555-0199', '+16145550199']) {
      expect(ids({ search: typed }), typed).toContain(special.phone);
    }
    for (const typed of ['4048946866', '404894', '(404) 894-6866', '404-894-6866', '+1 404 894 6866', '14048946866', '+1 404', '+1404894', '1404894']) {
      expect(ids({ search: typed }), typed).toContain(special.intlPhone);
    }
    // Eleven digits that begin with 1 but are not North American: a prefix of the digits as written.
    for (const typed of ['138 0013 8000', '13800138000', '138001', '138 0013', '3800138000']) {
      expect(ids({ search: typed }), typed).toContain(special.elevenDigits);
    }
  });

  it('sorts phone numbers by their national digits, written with +1 or without', () => {
    const phones = queryContacts(db, { sort: { column: 'phone', direction: 'asc' } }, { offset: 0, limit: 5000 }).rows.map((r) => r.phoneNo ?? '');
    const national = phones.map((p) => { const d = p.replace(/\D+/g, ''); return d.length === 11 && d.startsWith('1') ? d.slice(1) : d; });
    expect(national).toEqual([...national].sort());
    expect(phones.some((p) => p.startsWith('+1'))).toBe(true);
  });

  it('finds a label title, and filters by label id or title', () => {
    expect(ids({ search: 'quarterly platin' })).toEqual([special.label]);
    expect(ids({ labels: ['990001'] })).toEqual([special.label]);
    expect(ids({ labels: ['Quarterly Platinum'] })).toEqual([special.label]);
  });

  it('prefix search returns only matching rows, newest first, with a count that agrees', () => {
    const c = db.prepare("SELECT last_name FROM contacts WHERE last_name GLOB '[A-Z]*' LIMIT 1").get() as { last_name: string };
    const prefix = c.last_name.slice(0, 2).toLowerCase();
    const page = queryContacts(db, { search: prefix }, { offset: 0, limit: 1000 });
    expect(page.rows.length).toBeGreaterThan(0);
    expect(page.total).toEqual(countContacts(db, { search: prefix }));
    const created = page.rows.map((r) => r.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('compiles hostile input into a safe MATCH expression', () => {
    expect(compileSearch('  ')).toBeNull();
    expect(compileSearch('"')).toBeNull();
    for (const s of ['a"b', 'OR AND NOT', 'x*', '(', 'NEAR(a b)', 'col:val', '-a']) expect(() => ids({ search: s })).not.toThrow();
  });
});

describe('windows, sorts, filters, facets', () => {
  it('every window of every sort column equals the same slice of a plain ORDER BY', () => {
    const total = countContacts(db, {}).count;
    expect(total).toBe(3000);
    // The mirror's own ordering expressions (positions.ts: text in locale order, empty last),
    // evaluated row by row here; the positions are built from ranks of distinct values instead.
    // The mailing columns are counted here from the recipients themselves, not from contact_mailing.
    const mailings = (where: string) => `(SELECT count(DISTINCT r.order_id) FROM order_recipients r WHERE r.contact_id = contacts.id${where})`;
    const lastSeen = '(SELECT max(f.first_seen_at) FROM order_recipients r JOIN order_first_seen f ON f.id = r.order_id WHERE r.contact_id = contacts.id)';
    const EXPRESSIONS: Record<string, { flag?: string; order: string }> = {
      lastName: { flag: "(coalesce(last_name, '') = '')", order: 'locale_key(last_name), locale_key(first_name)' },
      address: { flag: "(coalesce(address1, '') = '')", order: 'locale_key(address1)' },
      line2: { flag: "(coalesce(address2, '') = '')", order: 'locale_key(address2)' },
      timesMailed: { order: mailings('') },
      deliveredCount: { order: mailings(' AND r.is_delivered = 1') },
      lastOrder: { flag: `(${lastSeen} IS NULL)`, order: lastSeen },
    };
    const refOrder = (column: string): { flag?: string; order: string } => {
      const expression = EXPRESSIONS[column];
      if (expression) return { ...expression, order: `${expression.order}, length(id), id` };
      const pos = CONTACT_SORT[column] as string;
      if (pos === 'rowid') return { order: 'created_at, length(id), id' };
      const full = `${CONTACT_POSITIONS[pos]}, length(id), id`;
      if (!full.startsWith('(coalesce(')) return { order: full };
      let depth = 0;
      let i = 0;
      for (; i < full.length; i++) {
        if (full[i] === '(') depth++;
        else if (full[i] === ')') depth--;
        else if (full[i] === ',' && depth === 0) break;
      }
      return { flag: full.slice(0, i), order: full.slice(i + 1).trim() };
    };
    // Descending: the empty flag stays ascending, the rest is reversed.
    const descending = ({ flag, order }: { flag?: string; order: string }): string => (flag ? `${flag}, ${reverse(order)}` : reverse(order));
    const ascending = ({ flag, order }: { flag?: string; order: string }): string => (flag ? `${flag}, ${order}` : order);
    for (const column of CONTACT_SORT_COLUMNS) {
      for (const direction of ['asc', 'desc'] as const) {
        const order = direction === 'desc' ? descending(refOrder(column)) : ascending(refOrder(column));
        const ref = (db.prepare(`SELECT id FROM contacts ORDER BY ${order}`).all() as { id: string }[]).map((r) => r.id);
        for (const offset of [0, 1, 1234, 2950, 2999]) {
          const page = queryContacts(db, { sort: { column, direction } }, { offset, limit: 100 });
          expect(page.rows.map((r) => r.id), `${column} ${direction} @${offset}`).toEqual(ref.slice(offset, offset + 100));
          expect(page.total).toEqual({ count: 3000, exact: true });
        }
      }
    }
  });

  it('a search with filters (filter tokens in the search index) selects exactly the search alone intersected with the filters alone (row conditions)', () => {
    // Odd values on purpose: an empty state, a state with a space and non-ASCII, a label title with punctuation.
    const all = ids({}, 100_000);
    const odd = all.slice(100, 110);
    api.dataset.updateContact(odd[0] as string, { state: '' });
    db.prepare("UPDATE contacts SET state = '' WHERE id = ?").run(odd[0]);
    // A state the service sent as null (the record is kept, as invalid): the same "(none)" as ''.
    db.prepare('UPDATE contacts SET state = NULL WHERE id = ?').run(odd[1]);
    const distinct = (sql: string) => (db.prepare(sql).pluck().all() as (string | null)[]).filter((v): v is string => v !== null);
    const states = [...distinct('SELECT DISTINCT state FROM contacts'), 'Île-de-France', 'NOPE'];
    const labels = [...distinct('SELECT id FROM labels'), ...distinct('SELECT title FROM labels'), 'no such label'];
    const searches = ['a', 'ma', 'st', 'er', 'smith', 'quarterly', '555', 'co'];
    // The search index of the row whose state changed above is rebuilt from the cache's own rows.
    db.exec("INSERT INTO contacts_fts (contacts_fts) VALUES ('delete-all')");
    db.exec(`INSERT INTO contacts_fts (rowid, name, company, email, phone, address, city, state, zip, labels, f)
      SELECT c.rowid, ${contactFtsValuesSql('c', contactFilterTokensSql('c', 'contact_labels', 'labels'))} FROM contacts c`);
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const some = <T,>(values: readonly T[], max: number): T[] => Array.from({ length: 1 + Math.floor(random() * max) }, () => values[Math.floor(random() * values.length)] as T);
    let nonEmpty = 0;
    for (let i = 0; i < 120; i++) {
      const filters: ContactQuery = {};
      if (random() < 0.5) filters.states = some(states, 3);
      if (random() < 0.4) filters.verified = some(['yes', 'no', 'unknown'] as const, 2);
      if (random() < 0.3) filters.liveMode = some(['live', 'test'] as const, 1);
      if (random() < 0.3) filters.labels = some(labels, 2);
      if (Object.keys(filters).length === 0) filters.states = some(states, 2);
      const search = searches[i % searches.length] as string;
      const folded = contactViewSql({ search, ...filters });
      expect(folded.where, JSON.stringify(filters)).not.toMatch(/c\.state|is_verified|is_live_mode|contact_labels/);
      const both = ids({ search, ...filters }, 100_000);
      const filteredOnly = new Set(ids(filters, 100_000));
      const expected = ids({ search }, 100_000).filter((id) => filteredOnly.has(id));
      expect(both, `${search} + ${JSON.stringify(filters)}`).toEqual(expected);
      expect(countContacts(db, { search, ...filters }).count).toBe(expected.length);
      if (expected.length > 0) nonEmpty++;
    }
    expect(nonEmpty, 'most combinations match something').toBeGreaterThan(40);
    // "(none)" is one option, counting both, and selecting it (with or without a search) finds both.
    const none = contactFacets(db, {}).states.filter((f) => f.value === '');
    expect(none).toEqual([{ value: '', label: '(none)', count: 2 }]);
    expect(ids({ states: [''] }).sort()).toEqual([odd[0], odd[1]].sort());
    expect(ids({ states: ['', 'Texas'], search: 'a' })).toEqual(ids({ search: 'a' }, 100_000).filter((id) => new Set(ids({ states: ['', 'Texas'] }, 100_000)).has(id)));
    // A search never matches the filter tokens themselves, and no prefix a person can type shares
    // a doclist with them: "z"* over all columns (the f column included) finds exactly what it
    // finds outside f.
    expect(ids({ search: CONTACT_FILTER_TOKENS.verified.yes })).toEqual(ids({ search: CONTACT_FILTER_TOKENS.verified.yes.slice(1) }));
    expect(compileSearch(FILTER_TOKEN_MARK)).toBeNull();
    const everywhere = db.prepare('SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ? ORDER BY rowid').pluck();
    for (const letter of ['z', 's', 'v', 'b', 't']) expect(everywhere.all(`"${letter}"*`), letter).toEqual(everywhere.all(`- {f} : ("${letter}"*)`));
  });

  it('filtered windows page through exactly the filtered rows', () => {
    const q: ContactQuery = { verified: ['yes', 'unknown'], liveMode: ['live'], sort: { column: 'city', direction: 'desc' } };
    const all = ids(q, 1000).concat(queryContacts(db, q, { offset: 1000, limit: 1000 }).rows.map((r) => r.id));
    const want = (db.prepare('SELECT id FROM contacts WHERE (is_verified = 1 OR is_verified IS NULL) AND is_live_mode = 1 ORDER BY pos_city DESC').all() as { id: string }[]).map((r) => r.id);
    expect(all).toEqual(want);
    expect(countContacts(db, q).count).toBe(want.length);
  });

  it('facet counts add up to the view', () => {
    const f = contactFacets(db, { search: 'a' });
    const total = countContacts(db, { search: 'a' }).count;
    expect(f.verified.reduce((s, o) => s + o.count, 0)).toBe(total);
    expect(f.states.reduce((s, o) => s + o.count, 0)).toBe(total);
    const first = f.states[0];
    expect(first).toBeDefined();
    expect(countContacts(db, { search: 'a', states: [first!.value] }).count).toBe(first!.count);
    const of = orderFacets(db, {});
    expect(of.delivered.reduce((s, o) => s + o.count, 0)).toBe(600);
    for (const o of of.delivered) expect(queryOrders(db, { delivered: [o.value] }, { offset: 0, limit: 1000 }).total.count).toBe(o.count);
  });

  it('every facet option counts what ticking it alone would give, with or without a search and other filters', () => {
    // The definition of a facet, through the count of each query: the filter's own selection
    // replaced by the one option. Queries where the facets share one scan and where they do not.
    const [state] = contactFacets(db, {}).states;
    const [label] = contactFacets(db, {}).labels;
    const contactQueries: ContactQuery[] = [
      {}, { search: 'a' }, { search: 'lee' }, { states: [state!.value] }, { search: 'e', verified: ['yes'], liveMode: ['test'] },
      { labels: [label!.value] }, { search: 'o', labels: [label!.value], labelsMode: 'all' }, { invalidOnly: true }, { search: 'zzzzqx' },
    ];
    let options = 0;
    for (const q of contactQueries) {
      const f = contactFacets(db, q);
      const check = (filter: keyof ContactQuery, got: readonly { value: unknown; count: number }[]) => {
        for (const o of got) {
          const want = countContacts(db, { ...q, [filter]: [o.value], ...(filter === 'labels' && q.labelsMode !== 'all' ? { labelsMode: 'any' } : {}) }).count;
          // In "all" mode a label's option narrows the view: the ticked labels and this one.
          const wantAll = filter === 'labels' && q.labelsMode === 'all' ? countContacts(db, { ...q, labels: [...new Set([...(q.labels ?? []), o.value as string])] }).count : want;
          expect(o.count, `${JSON.stringify(q)} ${filter}=${String(o.value)}`).toBe(wantAll);
          options++;
        }
      };
      check('states', f.states);
      check('verified', f.verified);
      // Every row has one state and one verified value: the options are all there.
      const without = (filter: keyof ContactQuery) => countContacts(db, { ...q, [filter]: undefined }).count;
      expect(f.states.reduce((sum, o) => sum + o.count, 0), JSON.stringify(q)).toBe(without('states'));
      expect(f.verified.reduce((sum, o) => sum + o.count, 0), JSON.stringify(q)).toBe(without('verified'));
      check('liveMode', f.liveMode);
      check('labels', f.labels);
      expect(f.invalid, JSON.stringify(q)).toBe(countContacts(db, { ...q, invalidOnly: true }).count);
    }
    const orderQueries: OrderQuery[] = [{}, { search: 'a' }, { statuses: [orderFacets(db, {}).statuses[0]!.value] }, { search: 'e', delivered: ['some'], liveMode: ['live'] }];
    for (const q of orderQueries) {
      const f = orderFacets(db, q);
      const keys = ['statuses', 'productTypes', 'campaignTypes', 'scheduleTypes', 'liveMode', 'delivered'] as const;
      for (const filter of keys) {
        for (const o of f[filter]) {
          expect(o.count, `${JSON.stringify(q)} ${filter}=${String(o.value)}`).toBe(countOrders(db, { ...q, [filter]: [o.value] }).count);
          options++;
        }
      }
      for (const filter of ['productTypes', 'delivered'] as const) {
        expect(f[filter].reduce((sum, o) => sum + o.count, 0), `${JSON.stringify(q)} ${filter}`).toBe(countOrders(db, { ...q, [filter]: undefined }).count);
      }
      expect(f.invalid).toBe(countOrders(db, { ...q, invalidOnly: true }).count);
    }
    expect(options).toBeGreaterThan(200);
  });

  it('orders: every sort column, search by id and by recipient, contact detail lists its orders', () => {
    for (const column of ORDER_SORT_COLUMNS) {
      const rows = queryOrders(db, { sort: { column, direction: 'asc' } }, { offset: 0, limit: 1000 }).rows;
      expect(rows.length).toBe(600);
      expect(new Set(rows.map((r) => r.id)).size).toBe(600);
    }
    const r = db.prepare('SELECT order_id, contact_id, full_name FROM order_recipients LIMIT 1').get() as { order_id: string; contact_id: string; full_name: string };
    expect(queryOrders(db, { search: r.order_id }, { offset: 0, limit: 10 }).rows.map((o) => o.id)).toContain(r.order_id);
    expect(queryOrders(db, { search: r.full_name }, { offset: 0, limit: 1000 }).rows.map((o) => o.id)).toContain(r.order_id);
    const detail = getContact(db, r.contact_id);
    if (detail) expect(detail.orders.map((o) => o.id)).toContain(r.order_id);
  });

  it('view SQL for export selects the same rows in the same order', () => {
    const q: ContactQuery = { search: 'a', states: ['Ohio', 'Texas'], sort: { column: 'name', direction: 'desc' } };
    const v = contactViewSql(q);
    const viaSql = (db.prepare(`SELECT c.id FROM ${v.from} WHERE ${v.where} ORDER BY ${v.orderBy}`).all(v.params) as { id: string }[]).map((x) => x.id);
    expect(viaSql).toEqual(ids(q));
    const ov = orderViewSql({ delivered: ['some'] });
    expect((db.prepare(`SELECT o.id FROM ${ov.from} WHERE ${ov.where} ORDER BY ${ov.orderBy}`).all(ov.params) as { id: string }[]).map((x) => x.id)).toEqual(
      queryOrders(db, { delivered: ['some'] }, { offset: 0, limit: 1000 }).rows.map((o) => o.id),
    );
  });
});

describe('the Created filter', () => {
  it('UTC days and instants select exactly the contacts whose createdAt falls in the range (compared as instants here)', () => {
    const all = (db.prepare('SELECT id, created_at FROM contacts').all() as { id: string; created_at: string }[]).map((r) => ({ id: r.id, t: Date.parse(r.created_at) }));
    expect(all.every((r) => Number.isFinite(r.t))).toBe(true);
    const sorted = [...all].sort((a, b) => a.t - b.t);
    // Ranges around real createdAt values, so some bounds fall within a second of a record.
    const picks = [0.1, 0.35, 0.5, 0.8].map((f) => sorted[Math.floor(f * sorted.length)]!.t);
    const expectRange = (q: ContactQuery, from: number, before: number, what: string) => {
      const want = all.filter((r) => r.t >= from && r.t < before).map((r) => r.id).sort();
      expect(want.length, what).toBeGreaterThan(0);
      expect(ids({ ...q, sort: undefined }, 5000).sort(), what).toEqual(want);
      expect(countContacts(db, q), what).toEqual({ count: want.length, exact: true });
    };
    for (const [i, start] of picks.entries()) {
      const end = start + (i + 1) * 9 * 86_400_000;
      // Instants (the app: where local days begin), on and off a record's own time.
      expectRange({ createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() }, start, end, `instants ${i}`);
      expectRange({ createdAfter: new Date(start + 1).toISOString(), createdBefore: new Date(end + 1).toISOString() }, start + 1, end + 1, `instants +1 ms ${i}`);
      // UTC days (the CLI): from the start of the first day to the end of the last.
      const fromDay = new Date(start).toISOString().slice(0, 10);
      const toDay = new Date(end).toISOString().slice(0, 10);
      expectRange({ createdFrom: fromDay, createdTo: toDay }, Date.parse(fromDay), Date.parse(toDay) + 86_400_000, `days ${fromDay}..${toDay}`);
    }
  });
});

describe('CacheClient (worker thread)', () => {
  it('answers the same as the direct queries and passes error codes through', async () => {
    const client = await CacheClient.open(file);
    try {
      const page = await client.queryContacts({ search: 'zoe' }, { offset: 0, limit: 50 });
      expect(page.rows.map((r) => r.id)).toContain(special.diacritic);
      expect((await client.getContact(special.phone))?.contact.phoneNo).toBe('(614) 555-0199');
      expect(await client.getOrder('1')).toBeNull();
      const states = await client.resourceStates();
      expect(states.contacts.rows).toBe(3000);
      expect(states.orders.rows).toBe(600);
      expect((await client.syncHistory(10)).map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
      await expect(client.queryContacts({ sort: { column: 'nope' as 'name', direction: 'asc' } }, { offset: 0, limit: 1 })).resolves.toBeDefined();
      const progress: number[] = [];
      const out = await client.exportFile({ kind: 'contacts', query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } }, join(dir, 'x.csv'), {
        onProgress: (p) => progress.push(p.rowsDone),
      });
      expect(out.rows).toBe(3000); // the exportFile job the worker entry registers
    } finally {
      await client.close();
    }
  });

  it('answers facet counts in a worker of their own, the same as the direct queries', async () => {
    const client = await CacheClient.open(file);
    try {
      expect(await client.contactFacets({})).toEqual(contactFacets(db, {}));
      expect(await client.contactFacets({ search: 'a', verified: ['yes'] })).toEqual(contactFacets(db, { search: 'a', verified: ['yes'] }));
      expect(await client.orderFacets({ delivered: ['some'] })).toEqual(orderFacets(db, { delivered: ['some'] }));
    } finally {
      await client.close();
    }
    await expect(client.contactFacets({})).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('closes the facets worker when no count has been asked for a while, and starts it again for the next', async () => {
    const client = await CacheClient.open(file, { scanIdleMs: 300 });
    try {
      expect(await client.scansOpen()).toBe(false);
      expect(await client.contactFacets({ search: 'a' })).toEqual(contactFacets(db, { search: 'a' }));
      expect(await client.scansOpen()).toBe(true);
      // A count asked before the idle time is over keeps it open.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await client.orderFacets({})).toEqual(orderFacets(db, {}));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await client.scansOpen()).toBe(true);
      await vi.waitFor(async () => expect(await client.scansOpen()).toBe(false), { timeout: 3000, interval: 50 });
      expect(await client.contactFacets({ verified: ['yes'] })).toEqual(contactFacets(db, { verified: ['yes'] }));
      expect(await client.scansOpen()).toBe(true);
    } finally {
      await client.close();
    }
    expect(await client.scansOpen()).toBe(false);
  });

  it('close() lets both workers end by themselves once their connections are closed, without stopping them', async () => {
    // The real worker, noting how each thread ended: one that ends by itself runs its 'exit'
    // handlers (code 0); one that is terminated runs none.
    const ended = join(dir, 'workers-ended.txt');
    const noting = new URL(
      `data:text/javascript,${encodeURIComponent(`import { appendFileSync } from 'node:fs';
        import { workerData } from 'node:worker_threads';
        process.on('exit', (code) => appendFileSync(${JSON.stringify(ended)}, (workerData.scans ? 'scans' : 'queries') + ' ' + code + '\\n'));
        await import(${JSON.stringify(defaultWorkerUrl().href)});`)}`,
    );
    const client = await CacheClient.open(file, { workerUrl: noting });
    expect(await client.contactFacets({})).toEqual(contactFacets(db, {}));
    await client.close();
    await vi.waitFor(() => expect(readFileSync(ended, 'utf8').trim().split('\n').sort()).toEqual(['queries 0', 'scans 0']), { timeout: 5000, interval: 50 });
  });

  it('a query asked while facets are counted is answered at once; a waiting count is replaced by a newer one', async () => {
    // The real worker, except as the scans' worker, which answers each call after 600 ms with what it was asked.
    const slowScans = new URL(
      `data:text/javascript,${encodeURIComponent(`import { parentPort, workerData } from 'node:worker_threads';
        if (workerData.scans) {
          parentPort.postMessage({ id: 0, type: 'ready' });
          parentPort.on('message', (m) => {
            if (m.type === 'close') { parentPort.postMessage({ id: m.id, type: 'result', ok: true, value: null }); parentPort.close(); return; }
            setTimeout(() => parentPort.postMessage({ id: m.id, type: 'result', ok: true, value: { scanned: m.args[0] } }), 600);
          });
        } else await import(${JSON.stringify(defaultWorkerUrl().href)});`)}`,
    );
    const client = await CacheClient.open(file, { workerUrl: slowScans, startupReader: false });
    try {
      const settled: string[] = [];
      const track = <T>(name: string, p: Promise<T>) => p.then((v) => (settled.push(name), v), (e: unknown) => (settled.push(`${name} failed`), Promise.reject(e)));
      const first = track('first', client.contactFacets({ search: 'a' }));
      const replaced = track('replaced', client.contactFacets({ search: 'ab' }));
      const replacedWith = replaced.then(() => 'answered', (e: { code?: string }) => e.code);
      const latest = track('latest', client.contactFacets({ search: 'abc' }));
      const orders = track('orders', client.orderFacets({}));
      const page = await track('query', client.queryContacts({ search: 'a' }, { offset: 0, limit: 50 }));
      expect(page.rows.map((r) => r.id)).toEqual(ids({ search: 'a' }, 50));
      expect(await replacedWith).toBe('CANCELLED');
      expect(await first).toEqual({ scanned: { search: 'a' } });
      expect(await latest).toEqual({ scanned: { search: 'abc' } });
      expect(await orders).toEqual({ scanned: {} });
      // The query did not wait for any count; the counts ran one at a time, in the order asked.
      expect(settled).toEqual(['replaced failed', 'query', 'first', 'latest', 'orders']);
    } finally {
      await client.close();
    }
  });

  it('answers facet counts in its own worker when the second one cannot start', async () => {
    // The real worker, except as the scans' worker, which exits at once.
    const noScans = new URL(
      `data:text/javascript,${encodeURIComponent(`import { workerData } from 'node:worker_threads'; if (workerData.scans) process.exit(5); else await import(${JSON.stringify(defaultWorkerUrl().href)});`)}`,
    );
    const client = await CacheClient.open(file, { workerUrl: noScans, startupReader: false });
    try {
      expect(await client.contactFacets({ search: 'a' })).toEqual(contactFacets(db, { search: 'a' }));
      expect((await client.queryContacts({}, { offset: 0, limit: 5 })).rows).toHaveLength(5);
    } finally {
      await client.close();
    }
  });

  /** A database worker whose open takes 1.5 s (it then only answers `close`), or fails late. */
  const stalledWorker = new URL(
    `data:text/javascript,${encodeURIComponent(
      "import { parentPort } from 'node:worker_threads'; setTimeout(() => parentPort.postMessage({ id: 0, type: 'ready' }), 1500); parentPort.on('message', (m) => { if (m.type === 'close') { parentPort.postMessage({ id: m.id, type: 'result', ok: true, value: null }); parentPort.close(); } });",
    )}`,
  );
  const lateFailingWorker = new URL(
    `data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; setTimeout(() => parentPort.postMessage({ id: 0, type: 'result', ok: false, error: { code: 'DISK_FULL', message: 'The disk is full.' } }), 150); parentPort.on('message', () => {});")}`,
  );
  const settlesWithin = <T>(promise: Promise<T>, ms: number): Promise<boolean> =>
    Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
  /** A copy of the synced cache as a cleanly closed file (no session marker). */
  const cleanCopy = (name: string): string => {
    const copy = join(dir, name);
    db.exec(`VACUUM INTO '${copy}'`);
    return copy;
  };

  it('answers page reads of a cleanly closed, current cache on the calling thread while the worker starts; scans wait for the worker', async () => {
    const copy = cleanCopy('startup.sqlite');
    const client = await CacheClient.open(copy, { workerUrl: stalledWorker });
    try {
      const query: ContactQuery = { search: 'zo', sort: { column: 'city', direction: 'desc' } };
      expect(await client.queryContacts(query, { offset: 0, limit: 100 })).toEqual(queryContacts(db, query, { offset: 0, limit: 100 }));
      expect((await client.resourceStates()).contacts.rows).toBe(3000);
      expect((await client.getContact(special.phone))?.contact.phoneNo).toBe('(614) 555-0199');
      expect(await settlesWithin(client.countContacts({}), 300), 'an exact count is not a page read: it waits for the worker').toBe(false);
    } finally {
      await client.close();
    }
  });

  it('waits for the worker when the file needs more than reads: unclean shutdown (session marker), older schema, missing file', async () => {
    const marked = cleanCopy('marked.sqlite');
    writeFileSync(sessionMarkerPath(marked), '999999999');
    const older = cleanCopy('older.sqlite');
    openCache(older).exec('PRAGMA user_version = 1');
    for (const target of [marked, older, join(dir, 'missing.sqlite')]) {
      const opening = CacheClient.open(target, { workerUrl: stalledWorker });
      expect(await settlesWithin(opening, 300), target).toBe(false);
      void opening.then((c) => c.close());
    }
  });

  it('when the worker fails its open after the startup reader answered, every later call gets that error', async () => {
    const copy = cleanCopy('late.sqlite');
    const failures: Error[] = [];
    const client = await CacheClient.open(copy, { workerUrl: lateFailingWorker, onLateFailure: (e) => failures.push(e) });
    try {
      expect((await client.queryContacts({}, { offset: 0, limit: 10 })).rows).toHaveLength(10);
      const counting = client.countContacts({});
      await expect(counting).rejects.toMatchObject({ code: 'DISK_FULL' });
      expect(client.failed).toBe(true);
      expect(failures.map((e) => (e as { code?: string }).code)).toEqual(['DISK_FULL']);
      await expect(client.queryContacts({}, { offset: 0, limit: 10 })).rejects.toMatchObject({ code: 'DISK_FULL' });
    } finally {
      await client.close();
    }
  });
});

describe('search pages and counts from one pass over the search index', () => {
  // More contacts than COUNT_CAP, so that counts are capped and windows reach past the cap.
  let big: Database.Database;
  let bigApi: SampleApi;
  beforeAll(async () => {
    bigApi = await startSampleApi({ contacts: COUNT_CAP + 600, orders: 50, seed: 11 });
    big = openCache(join(dir, 'big.sqlite'));
    await runSync(big, createHttpPageSource({ baseUrl: bigApi.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), { resources: ['contacts'], pageSize: 1000 });
  });
  afterAll(async () => {
    big?.close();
    await bigApi?.close();
  });

  /** The same window and total computed the plain way: rows of the joined view, count capped at the cap or the window's end. */
  const reference = (conn: Database.Database, query: ContactQuery, offset: number, limit: number) => {
    const v = contactViewSql(query);
    const rows = (conn.prepare(`SELECT c.id FROM ${v.from} WHERE ${v.where} ORDER BY ${v.orderBy} LIMIT ${limit} OFFSET ${offset}`).pluck().all(v.params) as string[]);
    const cap = Math.max(COUNT_CAP, offset + limit);
    const n = conn.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${v.from} WHERE ${v.where} LIMIT ${cap + 1})`).pluck().get(v.params) as number;
    const exactWindow = rows.length < limit && (rows.length > 0 || offset === 0);
    return { ids: rows, total: exactWindow ? { count: offset + rows.length, exact: true } : n > cap ? { count: cap, exact: false } : { count: n, exact: true } };
  };

  it('equal to the plain page + capped count for searches with and without filters, at windows before, at and past the cap', () => {
    const searches: ContactQuery[] = [{ search: 'com' }, { search: 'a' }, { search: 'ma' }, { search: 'gmail' }, { search: 'zzzz' }, { search: 'a', verified: ['yes'] }, { search: 'e', states: ['TX', 'CA'] }];
    const windows = [[0, 100], [0, 1], [250, 100], [COUNT_CAP - 100, 100], [COUNT_CAP - 50, 100], [COUNT_CAP + 400, 100], [COUNT_CAP + 5000, 100]] as const;
    let capped = 0;
    for (const query of searches) {
      for (const [offset, limit] of windows) {
        const page = queryContacts(big, query, { offset, limit });
        const want = reference(big, query, offset, limit);
        expect({ ids: page.rows.map((r) => r.id), total: page.total }, `${JSON.stringify(query)} @ ${offset}+${limit}`).toEqual(want);
        if (!page.total.exact) capped += 1;
      }
    }
    expect(capped, 'some of these counts were capped').toBeGreaterThan(0);
  });
});

describe('CacheClient when the worker exits before it opened the file', () => {
  it('rejects the open (no startup reader) or every later call (startup reader), and close() returns', async () => {
    const exitingWorker = new URL(`data:text/javascript,${encodeURIComponent('process.exit(3);')}`);
    await expect(CacheClient.open(join(dir, 'never.sqlite'), { workerUrl: exitingWorker })).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('exit code 3') });
    const copy = join(dir, 'exit.sqlite');
    db.exec(`VACUUM INTO '${copy}'`);
    const failures: Error[] = [];
    const client = await CacheClient.open(copy, { workerUrl: exitingWorker, onLateFailure: (e) => failures.push(e) });
    await client.started;
    expect(client.failed).toBe(true);
    expect(failures).toHaveLength(1);
    await expect(client.queryContacts({}, { offset: 0, limit: 10 })).rejects.toMatchObject({ code: 'INTERNAL' });
    await client.close();
  });
});

describe('cache file on disk', () => {
  it('after a transaction larger than 64 MiB is checkpointed, the WAL file is cut back to 64 MiB instead of keeping its peak', () => {
    const big = join(dir, 'wal-limit.sqlite');
    const conn = openCache(big);
    try {
      conn.exec('CREATE TABLE filler (b BLOB)');
      const insert = conn.prepare('INSERT INTO filler (b) VALUES (zeroblob(1048576))');
      conn.transaction(() => {
        for (let i = 0; i < 96; i++) insert.run();
      })();
      const peak = statSync(`${big}-wal`).size;
      expect(peak, 'the transaction went through the WAL').toBeGreaterThan(96 * 1024 * 1024);
      // The commit checkpointed (WAL over wal_autocheckpoint); the next write restarts the WAL.
      conn.exec('DELETE FROM filler WHERE rowid = 1');
      expect(statSync(`${big}-wal`).size).toBeLessThanOrEqual(64 * 1024 * 1024);
    } finally {
      conn.close();
    }
  });
});

describe('bulk build settings', () => {
  it('the sync connection sorts with the spare cores; the published search indexes are left at FTS5\'s merge and buffer defaults', () => {
    const conn = openCache(join(dir, 'bulk-settings.sqlite'));
    try {
      useBulkWriteSettings(conn);
      expect(conn.pragma('threads', { simple: true })).toBe(SORTER_THREADS);
      expect(conn.pragma('mmap_size', { simple: true })).toBe(0);
      // Bounded page caches: the file's, and the temporary tables' (SQLite's default is larger).
      expect(conn.pragma('cache_size', { simple: true })).toBe(-4096);
      expect(conn.pragma('temp.cache_size', { simple: true })).toBe(-4096);
    } finally {
      conn.close();
    }
    // The cache synced above: the bulk build changed automerge and hashsize, and put both back.
    for (const fts of ['contacts_fts', 'orders_fts']) {
      const config = Object.fromEntries((db.prepare(`SELECT k, v FROM ${fts}_config`).all() as { k: string; v: unknown }[]).map((r) => [r.k, r.v]));
      expect(config.automerge, fts).toBe(4);
      expect(config.hashsize, fts).toBe(1024 * 1024);
    }
  });
});
