/**
 * A build's search index filled in a worker thread (cache/build/searchIndexBuild.ts) is the same index
 * as filled in the sync connection: the same tokens at the same places, the same matches, under
 * the same rowids as the rows, with every sort position a permutation, the thread's positions
 * equal to the connection's — for contacts and for orders, real cache files, a real thread, read
 * by the build's connection and by a reader after the publish. So is the index a thread fills
 * while the pages are staged, in any order, when the service lists in the default order; when it
 * does not, or a record was staged twice, or a label has two titles, the thread fills it again at
 * the build. When the thread cannot do its work, the build does it itself and loses nothing; no
 * file of the thread is left behind.
 */
import { HISTORY_SCHEMA } from '../../electron/main/cache/store/history.ts';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { StageWriter, type StagedRecord } from '../../electron/main/cache/build/ingest.ts';
import { MirrorStaging } from '../../electron/main/cache/build/staging.ts';
import { CONTACT_POSITIONS, ORDER_POSITIONS } from '../../electron/main/cache/store/positions.ts';
import { buildNext, publishNext } from '../../electron/main/cache/build/publish.ts';
import { buildFileOf, scratchFileOf, startSearchIndex } from '../../electron/main/cache/build/searchIndexBuild.ts';
import { withoutJournal } from '../../electron/main/cache/build/searchIndex.thread.ts';
import { BUILD_SOURCES } from '../../electron/main/cache/build/sortPositions.ts';
import { generateContact, generateOrder } from '../../electron/main/sampleApi/generate.ts';

const CONTACTS = 4000;
const ORDERS = 1500;
let dir: string;

/**
 * Contacts of the sample generator, with text that needs the locale order and empty values; oldest
 * first, or with `served` newest first, as the sample API lists them (the default order).
 */
function contactRecords(served = false): StagedRecord[] {
  const out: StagedRecord[] = [];
  for (let i = 0; i < CONTACTS; i++) {
    const c = generateContact(7, served ? CONTACTS - 1 - i : i, CONTACTS) as unknown as Record<string, unknown>;
    if (i % 97 === 0) Object.assign(c, { fullName: 'Łukasz Zieliński', city: 'Łódź', companyName: '' });
    if (i % 89 === 0) Object.assign(c, { fullName: 'émile Zola', city: null, email: null });
    out.push({ ok: true, record: c });
  }
  return out;
}

function orderRecords(served = false): StagedRecord[] {
  return Array.from({ length: ORDERS }, (_, i) => ({ ok: true, record: generateOrder(7, served ? ORDERS - 1 - i : i, ORDERS, CONTACTS) }));
}

/** Pages 0 … n-1 in the order four requests in flight might stage them. */
function arrivalOrder(n: number): number[] {
  const pages = Array.from({ length: n }, (_, i) => i);
  for (let i = 1; i + 2 < n; i += 3) [pages[i], pages[i + 2]] = [pages[i + 2] as number, pages[i] as number];
  return pages;
}

/**
 * A cache into which a first read stages `records` through the mirror's staging, 500 a page in
 * `pageOrder`, with a thread indexing the pages meanwhile, then built. With `writer`, the pages are
 * written by the staging writer thread as well, all handed to it at once, as four requests in
 * flight would.
 */
async function builtWhileStaging(name: string, resource: Resource, records: StagedRecord[], pageOrder = arrivalOrder(Math.ceil(records.length / 500)), writer = false): Promise<{ db: Database.Database; file: string; builtIn: string; byThread: number }> {
  const file = join(dir, `${name}.sqlite`);
  const db = openCache(file);
  const staging = new MirrorStaging(db, resource, undefined, { indexMinRows: 0, threadMinRows: writer ? 0 : Number.POSITIVE_INFINITY });
  staging.saveState({ runId: 'r', pageSize: 500, serverCount: records.length, pass: 1, accountId: null });
  const write = (page: number) => staging.writePage(1, page, records.length, records.slice(page * 500, page * 500 + 500));
  if (writer) await Promise.all(pageOrder.map(write));
  else for (const page of pageOrder) await write(page);
  await staging.endWrites();
  const byThread = staging.pagesByThread();
  let builtIn = '';
  buildNext(db, resource, 'g', { staged: staging.takeSearchIndex(), onSearchIndex: (where) => (builtIn = where) });
  return { db, file, builtIn, byThread };
}

/**
 * A cache with `records` staged in pages of 500, built with the search index filled where
 * `workerMinRows` says (a worker fills it `fillChunkRows` rows a statement).
 */
function built(name: string, resource: Resource, records: StagedRecord[], workerMinRows: number, fillChunkRows?: number): { db: Database.Database; file: string; builtIn: string } {
  const file = join(dir, `${name}.sqlite`);
  const db = openCache(file);
  const writer = new StageWriter(db);
  for (let page = 0; page * 500 < records.length; page++) writer.writePage(resource, 1, page, records.length, records.slice(page * 500, page * 500 + 500));
  let builtIn = '';
  buildNext(db, resource, 'g', { workerMinRows, fillChunkRows, onSearchIndex: (where) => (builtIn = where) });
  return { db, file, builtIn };
}

/** The queries a snapshot is compared by, each matching some rows. */
function queriesOf(resource: Resource): string[] {
  return resource === 'contacts' ? ['łukasz', 'łódź', 'zola', 'emile', 'a*', 'ma*', String((generateContact(7, 123, CONTACTS) as { lastName: string }).lastName).toLowerCase()] : ['a*', 'ca*', '1*', 'letter'];
}

/**
 * The rows with their positions, the labels or recipients, every query's matches, and what the
 * search index holds: every token of every row with its column and offset (FTS5's `fts5vocab`
 * instance table), each row's column sizes, and the totals that ranking reads. How FTS5 split it
 * into segments is left out: a thread that fills the index in several statements makes other
 * segments, which 'optimize' merges into one.
 */
function snapshotOf(db: Database.Database, resource: Resource, suffix = '_next'): { rows: unknown[]; inputs: unknown[][]; matches: Record<string, number[]>; index: Record<string, unknown[]> } {
  const table = `${resource}${suffix}`;
  const positions = Object.keys(resource === 'contacts' ? CONTACT_POSITIONS : ORDER_POSITIONS);
  const rows = db.prepare(`SELECT rowid, id, ${positions.join(', ')} FROM ${table} ORDER BY rowid`).raw().all();
  const inputs = (resource === 'contacts' ? ['labels', 'contact_labels'] : ['order_recipients']).map((t) => db.prepare(`SELECT * FROM ${t}${suffix} ORDER BY 1, 2`).raw().all());
  const fts = `${resource}_fts${suffix}`;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${fts}_tokens USING fts5vocab(main, ${fts}, instance)`);
  const index: Record<string, unknown[]> = {
    tokens: db.prepare(`SELECT term, doc, col, offset FROM temp.${fts}_tokens ORDER BY 1, 2, 3, 4`).raw().all(),
    sizes: db.prepare(`SELECT * FROM ${fts}_docsize ORDER BY 1`).raw().all(),
    totals: db.prepare(`SELECT block FROM ${fts}_data WHERE id = 1`).raw().all(),
    config: db.prepare(`SELECT * FROM ${fts}_config ORDER BY 1`).raw().all(),
  };
  db.exec(`DROP TABLE temp.${fts}_tokens`);
  const matches: Record<string, number[]> = {};
  for (const q of queriesOf(resource)) matches[q] = db.prepare(`SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rowid`).pluck().all(q) as number[];
  return { rows, inputs, matches, index };
}

/** The databases attached to a connection besides its own and its observed history (attached at open). */
function attachedTo(db: Database.Database): string[] {
  return db.prepare('PRAGMA database_list').all().map((d) => (d as { name: string }).name).filter((n) => n !== 'main' && n !== 'temp' && n !== HISTORY_SCHEMA);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-search-build-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('search index filled in a worker thread', () => {
  for (const resource of ['contacts', 'orders'] as const) {
    it(`build the same ${resource} snapshot as in the sync connection`, () => {
      const records = resource === 'contacts' ? contactRecords() : orderRecords();
      const inThread = built(`${resource}-connection`, resource, records, Number.POSITIVE_INFINITY);
      // The worker fills its index in several statements, as at scale.
      const inWorker = built(`${resource}-worker`, resource, records, 0, Math.ceil(records.length / 5));
      expect(inThread.builtIn).toBe('connection');
      expect(inWorker.builtIn).toBe('worker');
      const a = snapshotOf(inThread.db, resource);
      const b = snapshotOf(inWorker.db, resource);
      expect(b.rows).toHaveLength(records.length);
      expect(b.rows).toEqual(a.rows);
      expect(b.inputs).toEqual(a.inputs);
      for (const table of b.inputs) expect(table.length).toBeGreaterThan(0);
      expect(b.index).toEqual(a.index);
      expect(b.index.tokens?.length).toBeGreaterThan(records.length);
      expect(b.matches).toEqual(a.matches);
      // The index is whole (FTS5's own check), and its rowids are the rows': a match is the row
      // whose text has the word.
      const fts = `${resource}_fts_next`;
      inWorker.db.prepare(`INSERT INTO ${fts} (${fts}, rank) VALUES ('integrity-check', 0)`).run();
      const [column, value] = resource === 'contacts' ? ['email', 'email'] : ['id', 'id'];
      const probe = inWorker.db.prepare(`SELECT ${value} FROM ${resource}_next WHERE rowid = 100`).pluck().get() as string;
      expect(inWorker.db.prepare(`SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?`).pluck().all(`${column}:"${probe}"`)).toContain(100);
      for (const hits of Object.values(b.matches)) expect(hits.length).toBeGreaterThan(0);
      // Every position column is a permutation of 0 … n-1.
      const positions = Object.keys(resource === 'contacts' ? CONTACT_POSITIONS : ORDER_POSITIONS);
      for (const [i] of positions.entries()) {
        const values = (b.rows as unknown[][]).map((r) => r[2 + i] as number).sort((x, y) => x - y);
        expect(values).toEqual(Array.from({ length: records.length }, (_, k) => k));
      }
      expect(existsSync(scratchFileOf(inWorker.file, resource))).toBe(false);
      expect(existsSync(buildFileOf(inWorker.file, resource))).toBe(false);
      expect(attachedTo(inWorker.db)).toEqual([]);
      // Published, the copied index answers a reader of its own the same.
      publishNext(inWorker.db, resource, () => {});
      const reader = new Database(inWorker.file, { readonly: true });
      expect(snapshotOf(reader, resource, '').matches).toEqual(a.matches);
      reader.close();
      inThread.db.close();
      inWorker.db.close();
    });
  }

  for (const [resource, writer] of [['contacts', false], ['orders', false], ['contacts', true]] as const) {
    it(`${resource}: the index filled while the pages are staged, out of order${writer ? ' by the writer thread' : ''}, is the build's`, async () => {
      const records = resource === 'contacts' ? contactRecords(true) : orderRecords(true);
      const reference = built(`${resource}-staged-reference`, resource, records, Number.POSITIVE_INFINITY);
      const staged = await builtWhileStaging(`${resource}-staged${writer ? '-writer' : ''}`, resource, records, undefined, writer);
      expect(staged.builtIn).toBe('staging');
      expect(staged.byThread).toBe(writer ? Math.ceil(records.length / 500) : 0);
      const a = snapshotOf(reference.db, resource);
      const b = snapshotOf(staged.db, resource);
      expect(b.rows).toHaveLength(records.length);
      expect(b).toEqual(a);
      expect(b.index.tokens?.length).toBeGreaterThan(records.length);
      for (const hits of Object.values(b.matches)) expect(hits.length).toBeGreaterThan(0);
      const fts = `${resource}_fts_next`;
      staged.db.prepare(`INSERT INTO ${fts} (${fts}, rank) VALUES ('integrity-check', 0)`).run();
      expect(existsSync(scratchFileOf(staged.file, resource))).toBe(false);
      expect(existsSync(buildFileOf(staged.file, resource))).toBe(false);
      expect(attachedTo(staged.db)).toEqual([]);
      reference.db.close();
      staged.db.close();
    });
  }

  /** Served records that the index filled while staging cannot serve, and why. */
  const unusable: [string, Resource, () => StagedRecord[]][] = [
    ['the service lists in another order than the default', 'contacts', () => contactRecords(false)],
    ['the service lists in another order than the default', 'orders', () => orderRecords(false)],
    ['a record is listed on two pages', 'contacts', () => {
      const records = contactRecords(true);
      records[1700] = records[20] as StagedRecord;
      return records;
    }],
    ['a label has two titles', 'contacts', () => {
      const records = contactRecords(true);
      const labelled = records.map((r) => (r.ok ? (r.record as { ContactLabels: { id: string; title: string }[] }) : null)).filter((c) => c && c.ContactLabels.length > 0);
      const [first, second] = labelled;
      const label = first?.ContactLabels[0] as { id: string; title: string };
      second?.ContactLabels.push({ id: label.id, title: `${label.title} (renamed)` });
      return records;
    }],
    ['a contact lists a label twice', 'contacts', () => {
      const records = contactRecords(true);
      const labelled = records.map((r) => (r.ok ? (r.record as { ContactLabels: { id: string; title: string }[] }) : null)).find((c) => c && c.ContactLabels.length > 0);
      labelled?.ContactLabels.push({ ...(labelled.ContactLabels[0] as { id: string; title: string }) });
      return records;
    }],
  ];
  for (const [why, resource, recordsOf] of unusable) {
    it(`${resource}: when ${why}, the thread fills the index again at the build`, async () => {
      const records = recordsOf();
      const name = `${resource}-unusable-${why.replaceAll(' ', '-')}`;
      const reference = built(`${name}-reference`, resource, records, Number.POSITIVE_INFINITY);
      const staged = await builtWhileStaging(name, resource, records);
      expect(staged.builtIn).toBe('worker');
      expect(snapshotOf(staged.db, resource)).toEqual(snapshotOf(reference.db, resource));
      reference.db.close();
      staged.db.close();
    });
  }

  it('when the thread that indexes the staged pages cannot open its file, the build does its work itself', async () => {
    const records = contactRecords(true);
    const reference = built('staged-broken-reference', 'contacts', records, Number.POSITIVE_INFINITY);
    // A folder where the thread's file would go: the thread fails to open it.
    mkdirSync(scratchFileOf(join(dir, 'staged-broken.sqlite'), 'contacts'));
    const broken = await builtWhileStaging('staged-broken', 'contacts', records);
    expect(broken.builtIn).toBe('connection');
    expect(snapshotOf(broken.db, 'contacts')).toEqual(snapshotOf(reference.db, 'contacts'));
    reference.db.close();
    broken.db.close();
  });

  it('a read that stops before its build stops the thread and leaves none of its files', async () => {
    const records = contactRecords(true);
    const file = join(dir, 'stopped-read.sqlite');
    const db = openCache(file);
    const staging = new MirrorStaging(db, 'contacts', undefined, { indexMinRows: 0 });
    staging.saveState({ runId: 'r', pageSize: 500, serverCount: records.length, pass: 1, accountId: null });
    await staging.writePage(1, 0, records.length, records.slice(0, 500));
    // The thread has started: its file is there.
    await vi.waitFor(() => expect(existsSync(scratchFileOf(file, 'contacts'))).toBe(true), { timeout: 10_000 });
    // A second pass (drift) stops it, and starts none: only a first read is indexed meanwhile.
    staging.saveState({ runId: 'r', pageSize: 500, serverCount: records.length, pass: 2, accountId: null });
    expect(staging.takeSearchIndex()).toBeNull();
    expect(existsSync(scratchFileOf(file, 'contacts'))).toBe(false);
    expect(existsSync(buildFileOf(file, 'contacts'))).toBe(false);
    // A staging continued after its process ended is not indexed meanwhile either.
    staging.saveState({ runId: 'r', pageSize: 500, serverCount: records.length, pass: 1, accountId: null });
    expect(staging.takeSearchIndex()).toBeNull();
    staging.clear();
    staging.saveState({ runId: 'r', pageSize: 500, serverCount: records.length, pass: 1, accountId: null });
    staging.stopIndexing();
    expect(existsSync(scratchFileOf(file, 'contacts'))).toBe(false);
    db.close();
  });

  it('while the pages are staged, the thread checkpoints the WAL: it starts over instead of growing', async () => {
    const records = contactRecords(true);
    const file = join(dir, 'staged-checkpoints.sqlite');
    const db = openCache(file);
    // Only the thread checkpoints: without it the WAL would hold every page.
    db.pragma('wal_autocheckpoint = 0');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const staging = new MirrorStaging(db, 'contacts', undefined, { indexMinRows: 0, threadMinRows: Number.POSITIVE_INFINITY });
    staging.saveState({ runId: 'r', pageSize: 500, serverCount: records.length, pass: 1, accountId: null });
    const walSizes: number[] = [];
    for (let page = 0; page * 500 < records.length; page++) {
      await staging.writePage(1, page, records.length, records.slice(page * 500, page * 500 + 500));
      walSizes.push(statSync(`${file}-wal`).size);
      // Once the thread has checkpointed the page, the file holds the whole database.
      const pages = db.pragma('page_count', { simple: true }) as number;
      await vi.waitFor(() => expect(statSync(file).size).toBeGreaterThanOrEqual(pages * pageSize), { timeout: 10_000 });
    }
    await staging.endWrites();
    // Each page's write started the WAL over: it never held more than about one page.
    expect(walSizes.length).toBe(8);
    expect(Math.max(...walSizes)).toBeLessThan(2 * (walSizes[0] as number));
    staging.stopIndexing();
    db.close();
  });

  for (const [what, fileOf] of [['its index', scratchFileOf], ['its labels and positions', buildFileOf]] as const) {
    it(`when the thread cannot write ${what}, the build does the thread's work itself`, () => {
      const records = contactRecords();
      const name = `fallback-${fileOf === scratchFileOf ? 'index' : 'build'}`;
      const reference = built(`${name}-reference`, 'contacts', records, Number.POSITIVE_INFINITY);
      // A folder where the thread's file would go: the thread fails to open it.
      const file = join(dir, `${name}.sqlite`);
      mkdirSync(fileOf(file, 'contacts'));
      const fallback = built(name, 'contacts', records, 0);
      expect(fallback.builtIn).toBe('connection');
      expect(snapshotOf(fallback.db, 'contacts')).toEqual(snapshotOf(reference.db, 'contacts'));
      expect(readdirSync(dir).filter((n) => n.startsWith(`${name}.sqlite.contacts-`) && !n.endsWith(fileOf === scratchFileOf ? '-search' : '-build'))).toEqual([]);
      reference.db.close();
      fallback.db.close();
    });
  }

  it('a build that ends while its thread fills the index leaves no thread file or attachment', () => {
    const records = contactRecords();
    const file = join(dir, 'cancelled.sqlite');
    const db = openCache(file);
    const writer = new StageWriter(db);
    for (let page = 0; page * 500 < records.length; page++) writer.writePage('contacts', 1, page, records.length, records.slice(page * 500, page * 500 + 500));
    const search = startSearchIndex(db, 'contacts', 0);
    expect(search.threadPositions).toEqual(BUILD_SOURCES.contacts.threadPositions);
    // The thread's build file: a row for every staged row, each position column a permutation,
    // and the labels the connection would have written.
    const thread = search.threadFile();
    expect(thread).toBe('search_build');
    // The thread's files hold personal data: private to the user, like the cache's own.
    if (process.platform !== 'win32') for (const f of [scratchFileOf(file, 'contacts'), buildFileOf(file, 'contacts')]) expect(statSync(f).mode & 0o777).toBe(0o600);
    for (const column of search.threadPositions) {
      const values = db.prepare(`SELECT ${column} FROM ${thread}.thread_positions ORDER BY 1`).pluck().all();
      expect(values).toEqual(Array.from({ length: records.length }, (_, k) => k));
    }
    const reference = built('cancelled-reference', 'contacts', records, Number.POSITIVE_INFINITY);
    for (const table of ['labels', 'contact_labels']) {
      const rows = db.prepare(`SELECT * FROM ${thread}.${table} ORDER BY 1, 2`).raw().all();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows).toEqual(reference.db.prepare(`SELECT * FROM ${table}_next ORDER BY 1, 2`).raw().all());
    }
    reference.db.close();
    // The build ends here (as if it had failed), while the thread may still fill the index.
    search.dispose();
    expect(attachedTo(db)).toEqual([]);
    expect(existsSync(scratchFileOf(file, 'contacts'))).toBe(false);
    expect(existsSync(buildFileOf(file, 'contacts'))).toBe(false);
    // The connection builds again as if nothing had happened, and gets its sorter helpers back
    // (the build runs its sorts without them while its thread keeps a core busy).
    db.pragma('threads = 3');
    expect(buildNext(db, 'contacts', 'g2', { workerMinRows: 0 })).toBe(records.length);
    expect(db.pragma('threads', { simple: true })).toBe(3);
    db.close();
  });

  it("the thread's files keep no rollback journal", () => {
    const file = join(dir, 'journal.sqlite');
    const other = join(dir, 'journal-other.sqlite');
    const db = new Database(file);
    db.prepare('ATTACH DATABASE ? AS build').run(other);
    // Defensive mode, on by default, ignores the pragma on its own.
    expect(db.pragma('journal_mode = OFF', { simple: true })).toBe('delete');
    withoutJournal(db, ['main', 'build']);
    expect(db.pragma('main.journal_mode', { simple: true })).toBe('off');
    expect(db.pragma('build.journal_mode', { simple: true })).toBe('off');
    expect(db.pragma('build.synchronous', { simple: true })).toBe(0);
    db.exec('CREATE TABLE main.t (v); CREATE TABLE build.t (v)');
    const journals: boolean[] = [];
    db.transaction(() => {
      for (const schema of ['main', 'build']) db.prepare(`INSERT INTO ${schema}.t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) SELECT randomblob(1000) FROM n`).run();
      // Rewriting pages that are already in the file is what a journal would save first.
      for (const schema of ['main', 'build']) db.prepare(`UPDATE ${schema}.t SET v = randomblob(1000)`).run();
      journals.push(existsSync(`${file}-journal`), existsSync(`${other}-journal`));
    })();
    expect(journals).toEqual([false, false]);
    db.close();
  });
});
