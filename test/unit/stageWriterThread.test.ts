/**
 * A large read's pages written by a thread of their own (cache/build/stageWriter.ts, through
 * staging.ts `MirrorStaging`) give the same staging as pages written in the sync's connection:
 * the same rows, recipients, invalid rows and page records, for contacts and orders, with pages
 * written concurrently. SQLite's errors in the thread reach the read with their code and commit
 * nothing; a thread that cannot start leaves the pages to the connection and loses none; one that
 * stops once running fails the page it had and leaves the next ones to the connection; the
 * staging refuses to be read while a page is in the thread's hands. By default reads of orders get
 * the thread from 20,000 rows, reads of contacts never. Real cache files, a real thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { StageWriter, type StagedRecord } from '../../electron/main/cache/build/ingest.ts';
import { MirrorStaging } from '../../electron/main/cache/build/staging.ts';
import { StageWriterStopped } from '../../electron/main/cache/build/stageWriter.ts';
import { generateContact, generateOrder } from '../../electron/main/sampleApi/generate.ts';

const PAGE = 200;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'letterdesk-stage-writer-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Nested `depth` levels deep: too deep for JSON.stringify, so the record is reduced to be stored. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { inner: value };
  return value;
}

/** Records of `resource` as the API client hands them over, with the cases the writer treats apart. */
function recordsOf(resource: Resource, n: number): StagedRecord[] {
  const out: StagedRecord[] = [];
  for (let i = 0; i < n; i++) {
    const record = resource === 'contacts' ? generateContact(3, i, n) : generateOrder(3, i, n, 500);
    out.push({ ok: true, record });
  }
  // Invalid, with and without an id of its own; one reduced to be stored; one listed twice on a
  // page with different content (the later one is kept, with its own recipients).
  out[5] = { ok: false, id: 'bad-5', raw: { ...(out[5] as { record: object }).record, id: 'bad-5' }, reason: 'missing field' };
  out[6] = { ok: false, raw: { id: null, note: 'no id' }, reason: 'no id' };
  out[7] = { ok: true, record: { ...(out[7] as { record: object }).record, meta: nested(100_000) } };
  const twice = out[20] as { record: { id: string } };
  out[30] = { ok: true, record: resource === 'contacts' ? { ...twice.record, firstName: 'Later' } : { ...generateOrder(3, 31, n, 500), id: twice.record.id } };
  return out;
}

/** Everything a page write leaves in the staging, in a stable order. */
function stagingOf(db: Database.Database, resource: Resource): unknown {
  const rows = db.prepare(`SELECT * FROM stage_${resource} ORDER BY id`).all();
  const recipients = resource === 'orders' ? db.prepare('SELECT * FROM stage_order_recipients ORDER BY order_id, id').all() : [];
  const pages = db.prepare('SELECT resource, pass, page, rows, server_count FROM sync_pages WHERE resource = ? ORDER BY pass, page').all(resource);
  return { rows, recipients, pages };
}

function connectionStaging(name: string, resource: Resource, records: readonly StagedRecord[]): unknown {
  const db = openCache(join(dir, `${name}.sqlite`));
  const writer = new StageWriter(db);
  for (let page = 0; page * PAGE < records.length; page++) writer.writePage(resource, 1, page, records.length, records.slice(page * PAGE, (page + 1) * PAGE));
  const staging = stagingOf(db, resource);
  db.close();
  return staging;
}

describe('staged pages written by a thread of their own', () => {
  for (const resource of ['contacts', 'orders'] as const) {
    it(`${resource}: pages written concurrently by the thread give the connection's staging`, async () => {
      const records = recordsOf(resource, 1000);
      const db = openCache(join(dir, `${resource}-thread.sqlite`));
      const staging = new MirrorStaging(db, resource, undefined, { threadMinRows: 0, indexMinRows: Number.POSITIVE_INFINITY });
      staging.saveState({ runId: 'r', pageSize: PAGE, serverCount: records.length, pass: 1, accountId: null });
      const pages = Array.from({ length: records.length / PAGE }, (_, page) => page);
      const written = await Promise.all(pages.map((page) => staging.writePage(1, page, records.length, records.slice(page * PAGE, (page + 1) * PAGE))));
      expect(staging.pagesByThread()).toBe(pages.length);
      await staging.endWrites();
      // The counts a page reports are those of the records: two invalid, one reduced to be stored.
      expect(written.map((w) => w.rows)).toEqual(pages.map(() => PAGE));
      expect(written[0]?.invalid).toBe(3);
      expect(written[0]?.ids[6]).toBe('no-id-p0-r6');
      expect(stagingOf(db, resource)).toEqual(connectionStaging(`${resource}-connection`, resource, records));
      expect(staging.pagesWritten(1, 0).pages.size).toBe(pages.length);
      db.close();
    });
  }

  it('an error in the thread reaches the read with its code, and the page is not recorded', async () => {
    const records = recordsOf('contacts', PAGE * 2);
    const db = openCache(join(dir, 'thread-error.sqlite'));
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON stage_contacts WHEN NEW.first_name = 'Later' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    const staging = new MirrorStaging(db, 'contacts', undefined, { threadMinRows: 0, indexMinRows: Number.POSITIVE_INFINITY });
    staging.saveState({ runId: 'r', pageSize: PAGE, serverCount: records.length, pass: 1, accountId: null });
    await expect(staging.writePage(1, 0, records.length, records.slice(0, PAGE))).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_TRIGGER', message: 'refused by the test' });
    await staging.writePage(1, 1, records.length, records.slice(PAGE));
    expect(staging.pagesByThread()).toBe(1);
    await staging.endWrites();
    expect(staging.pagesWritten(1, 0).pages).toEqual(new Set([1]));
    expect(db.prepare('SELECT count(*) FROM stage_contacts').pluck().get()).toBe(PAGE);
    db.close();
  });

  it('a thread that cannot start leaves the pages to the connection, and loses none', async () => {
    const records = recordsOf('orders', 600);
    const db = openCache(join(dir, 'thread-missing.sqlite'));
    const staging = new MirrorStaging(db, 'orders', undefined, { threadMinRows: 0, indexMinRows: Number.POSITIVE_INFINITY, threadUrl: new URL('file:///nonexistent/stageWriterWorker.js') });
    staging.saveState({ runId: 'r', pageSize: PAGE, serverCount: records.length, pass: 1, accountId: null });
    await Promise.all([0, 1, 2].map((page) => staging.writePage(1, page, records.length, records.slice(page * PAGE, (page + 1) * PAGE))));
    expect(staging.pagesByThread()).toBe(0);
    await staging.endWrites();
    expect(stagingOf(db, 'orders')).toEqual(connectionStaging('thread-missing-connection', 'orders', records));
    db.close();
  });

  it('a thread that stops once running fails the page it had, and the next pages are written in the connection', async () => {
    const records = recordsOf('contacts', PAGE * 3);
    const db = openCache(join(dir, 'thread-stops.sqlite'));
    const threadUrl = new URL('../fixtures/stageWriterThatStops.ts', import.meta.url);
    const staging = new MirrorStaging(db, 'contacts', undefined, { threadMinRows: 0, indexMinRows: Number.POSITIVE_INFINITY, threadUrl });
    staging.saveState({ runId: 'r', pageSize: PAGE, serverCount: records.length, pass: 1, accountId: null });
    const page = (n: number) => staging.writePage(1, n, records.length, records.slice(n * PAGE, (n + 1) * PAGE));
    // Handed over while the thread starts: answered by it (this fixture writes nothing).
    await page(0);
    expect(staging.pagesByThread()).toBe(1);
    // Handed over to the running thread, which then ends: the read fails with this page.
    await expect(page(1)).rejects.toBeInstanceOf(StageWriterStopped);
    await page(2);
    await staging.endWrites();
    expect(staging.pagesByThread()).toBe(1);
    expect(staging.pagesWritten(1, 0).pages).toEqual(new Set([2]));
    expect(db.prepare('SELECT count(*) FROM stage_contacts').pluck().get()).toBe(PAGE);
    db.close();
  });

  it('the staging is not read or changed while a page is in the thread', async () => {
    const records = recordsOf('contacts', PAGE);
    const db = openCache(join(dir, 'thread-busy.sqlite'));
    const staging = new MirrorStaging(db, 'contacts', undefined, { threadMinRows: 0, indexMinRows: Number.POSITIVE_INFINITY });
    staging.saveState({ runId: 'r', pageSize: PAGE, serverCount: records.length, pass: 1, accountId: null });
    const writing = staging.writePage(1, 0, records.length, records);
    expect(() => staging.idsStaged(1)).toThrow(/while 1 page\(s\) were being written/);
    await writing;
    expect(staging.idsStaged(1)).toBe(PAGE - 1); // one id is listed twice
    await staging.endWrites();
    // A read that starts again starts another thread.
    staging.saveState({ runId: 'r2', pageSize: PAGE, serverCount: records.length, pass: 2, accountId: null });
    await staging.writePage(2, 0, records.length, records);
    expect(staging.pagesByThread()).toBe(2);
    await staging.endWrites();
    expect(staging.rowsLastSeenIn(2)).toBe(PAGE - 1);
    db.close();
  });

  // The defaults: which reads get the writer thread, by resource and by the count the service
  // reported (one page written; the rest of such a read is not needed to see where it went).
  const defaults: [Resource, number, boolean][] = [
    ['contacts', 20_000, false], ['contacts', 1_000_000, false],
    ['orders', 19_999, false], ['orders', 20_000, true], ['orders', 1_000_000, true],
  ];
  for (const [resource, serverCount, byThread] of defaults) {
    it(`by default, a read of ${serverCount} ${resource} is ${byThread ? '' : 'not '}written by the thread`, async () => {
      const records = recordsOf(resource, PAGE);
      const db = openCache(join(dir, `defaults-${resource}-${serverCount}.sqlite`));
      const staging = new MirrorStaging(db, resource);
      staging.saveState({ runId: 'r', pageSize: PAGE, serverCount, pass: 1, accountId: null });
      await staging.writePage(1, 0, serverCount, records);
      await staging.endWrites();
      staging.stopIndexing();
      expect(staging.pagesByThread()).toBe(byThread ? 1 : 0);
      expect(staging.pagesWritten(1, 0).pages).toEqual(new Set([0]));
      db.close();
    });
  }
});
