/**
 * A build's sort positions computed in a worker thread (cache/sortPositions.ts) give the same
 * snapshot as computed in the sync connection: the same rows under the same rowids, the same
 * positions in every sort, the same search index — for contacts and for orders, real cache files,
 * a real thread. When the thread cannot do its work, the build computes them itself and loses
 * nothing; no file of the thread is left behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/db.ts';
import { StageWriter, type StagedRecord } from '../../electron/main/cache/ingest.ts';
import { CONTACT_POSITIONS, ORDER_POSITIONS } from '../../electron/main/cache/positions.ts';
import { buildNext } from '../../electron/main/cache/publish.ts';
import { scratchFileOf } from '../../electron/main/cache/sortPositions.ts';
import { generateContact, generateOrder } from '../../electron/main/sampleApi/generate.ts';

const CONTACTS = 4000;
const ORDERS = 1500;
let dir: string;

/** Contacts of the sample generator, with text that needs the locale order and empty values. */
function contactRecords(): StagedRecord[] {
  const out: StagedRecord[] = [];
  for (let i = 0; i < CONTACTS; i++) {
    const c = generateContact(7, i, CONTACTS) as unknown as Record<string, unknown>;
    if (i % 97 === 0) Object.assign(c, { fullName: 'Łukasz Zieliński', city: 'Łódź', companyName: '' });
    if (i % 89 === 0) Object.assign(c, { fullName: 'émile Zola', city: null, email: null });
    out.push({ ok: true, record: c });
  }
  return out;
}

function orderRecords(): StagedRecord[] {
  return Array.from({ length: ORDERS }, (_, i) => ({ ok: true, record: generateOrder(7, i, ORDERS, CONTACTS) }));
}

/** A cache with `records` staged in pages of 500, built with positions computed where `workerMinRows` says. */
function built(name: string, resource: Resource, records: StagedRecord[], workerMinRows: number): { db: Database.Database; file: string; computedIn: string } {
  const file = join(dir, `${name}.sqlite`);
  const db = openCache(file);
  const writer = new StageWriter(db);
  for (let page = 0; page * 500 < records.length; page++) writer.writePage(resource, 1, page, records.length, records.slice(page * 500, page * 500 + 500));
  let computedIn = '';
  buildNext(db, resource, 'g', { workerMinRows, onPositions: (where) => (computedIn = where) });
  return { db, file, computedIn };
}

function snapshotOf(db: Database.Database, resource: Resource): { rows: unknown[]; matches: Record<string, number[]> } {
  const table = resource === 'contacts' ? 'contacts_next' : 'orders_next';
  const positions = Object.keys(resource === 'contacts' ? CONTACT_POSITIONS : ORDER_POSITIONS);
  const rows = db.prepare(`SELECT rowid, id, ${positions.join(', ')} FROM ${table} ORDER BY rowid`).raw().all();
  const fts = resource === 'contacts' ? 'contacts_fts_next' : 'orders_fts_next';
  const matches: Record<string, number[]> = {};
  for (const q of resource === 'contacts' ? ['łukasz', 'łódź', 'zola', 'emile', 'a*', 'ma*', String((generateContact(7, 123, CONTACTS) as { lastName: string }).lastName).toLowerCase()] : ['a*', 'ca*', '1*', 'letter']) {
    matches[q] = db.prepare(`SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rowid`).pluck().all(q) as number[];
  }
  return { rows, matches };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-positions-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('sort positions computed in a worker thread', () => {
  for (const resource of ['contacts', 'orders'] as const) {
    it(`build the same ${resource} snapshot as in the sync connection`, () => {
      const records = resource === 'contacts' ? contactRecords() : orderRecords();
      const inThread = built(`${resource}-connection`, resource, records, Number.POSITIVE_INFINITY);
      const inWorker = built(`${resource}-worker`, resource, records, 0);
      expect(inThread.computedIn).toBe('connection');
      expect(inWorker.computedIn).toBe('worker');
      const a = snapshotOf(inThread.db, resource);
      const b = snapshotOf(inWorker.db, resource);
      expect(b.rows).toHaveLength(records.length);
      expect(b.rows).toEqual(a.rows);
      expect(b.matches).toEqual(a.matches);
      for (const hits of Object.values(b.matches)) expect(hits.length).toBeGreaterThan(0);
      // Every position column is a permutation of 0 … n-1.
      const positions = Object.keys(resource === 'contacts' ? CONTACT_POSITIONS : ORDER_POSITIONS);
      for (const [i] of positions.entries()) {
        const values = (b.rows as unknown[][]).map((r) => r[2 + i] as number).sort((x, y) => x - y);
        expect(values).toEqual(Array.from({ length: records.length }, (_, k) => k));
      }
      expect(existsSync(scratchFileOf(inWorker.file, resource))).toBe(false);
      expect(inWorker.db.prepare('PRAGMA database_list').all().map((d) => (d as { name: string }).name)).not.toContain('build_scratch');
      inThread.db.close();
      inWorker.db.close();
    });
  }

  it('when the thread cannot write its file, the build computes the positions itself', () => {
    const records = contactRecords();
    const reference = built('fallback-reference', 'contacts', records, Number.POSITIVE_INFINITY);
    // A folder where the thread's file would go: the thread fails to open it.
    const file = join(dir, 'fallback.sqlite');
    mkdirSync(scratchFileOf(file, 'contacts'));
    const fallback = built('fallback', 'contacts', records, 0);
    expect(fallback.computedIn).toBe('connection');
    expect(snapshotOf(fallback.db, 'contacts')).toEqual(snapshotOf(reference.db, 'contacts'));
    expect(readdirSync(dir).filter((n) => n.startsWith('fallback.sqlite.contacts-positions-'))).toEqual([]);
    reference.db.close();
    fallback.db.close();
  });
});
