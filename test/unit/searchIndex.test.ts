/**
 * What the contacts' search index holds for a name (cache/store/searchIndex.ts): the full name, and the
 * first and last names only when the full name is not exactly those two. A real cache file built
 * from staged records and published as a sync does, searched through the queries the app uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { StageWriter, type StagedRecord } from '../../electron/main/cache/build/ingest.ts';
import { buildNext, publishNext } from '../../electron/main/cache/build/publish.ts';
import { queryContacts } from '../../electron/main/cache/read/queries.ts';
import { CONTACT_FTS_COLUMNS, contactFilterTokensSql, contactFtsValuesSql } from '../../electron/main/cache/store/searchIndex.ts';
import { generateContact } from '../../electron/main/sampleApi/generate.ts';

const GENERATED = 3000;
let dir: string;
let db: Database.Database;

/** Names as a service may send them: the usual "first last", and full names that say more or other. */
const NAMED: Record<string, unknown>[] = [
  { id: 'n1', firstName: 'Ann', lastName: 'Lee', fullName: 'Ann Lee' },
  { id: 'n2', firstName: 'Robert', lastName: 'Smithers', fullName: 'Bob Smith' },
  { id: 'n3', firstName: 'Carla', lastName: 'Díaz', fullName: null },
  { id: 'n4', firstName: 'Dee', lastName: 'Dee', fullName: 'Dee Dee' },
  { id: 'n5', firstName: 'Ólafur', lastName: null, fullName: 'Ólafur' },
  { id: 'n6', firstName: 'Mary', lastName: 'Ng', fullName: 'Dr. Mary Ng' },
  { id: 'n7', firstName: 'Hanne', lastName: 'Berg', fullName: 'Hanne  Berg' },
  { id: 'n8', firstName: 'Maria', lastName: 'Okafor', fullName: 'Maria O.' },
];

function ids(search: string): string[] {
  return queryContacts(db, { search }, { offset: 0, limit: 10_000 }).rows.map((r) => r.id).sort();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-search-index-'));
  db = openCache(join(dir, 'cache.sqlite'));
  const records: StagedRecord[] = Array.from({ length: GENERATED }, (_, i) => ({ ok: true, record: generateContact(3, i, GENERATED) }));
  for (const named of NAMED) records.push({ ok: true, record: { ...(generateContact(3, 0, GENERATED) as object), ...named } });
  const writer = new StageWriter(db);
  for (let page = 0; page * 500 < records.length; page++) writer.writePage('contacts', 1, page, records.length, records.slice(page * 500, page * 500 + 500));
  buildNext(db, 'contacts', 'g');
  publishNext(db, 'contacts', () => {});
});

afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the contacts search index', () => {
  it('finds a contact by its full, first and last names, also when the full name is not those two', () => {
    expect(ids('ann lee')).toContain('n1');
    for (const word of ['bob', 'smith', 'robert', 'smithers']) expect(ids(word), word).toContain('n2');
    expect(ids('robert smithers')).toEqual(['n2']);
    for (const word of ['carla', 'diaz', 'díaz']) expect(ids(word), word).toContain('n3');
    expect(ids('dee')).toContain('n4');
    expect(ids('olafur')).toContain('n5');
    for (const word of ['dr', 'mary', 'ng']) expect(ids(word), word).toContain('n6');
    for (const word of ['hanne', 'berg']) expect(ids(word), word).toContain('n7');
    expect(ids('maria okafor')).toEqual(['n8']);
  });

  it('matches exactly what an index of the full, first and last names together matches, for every 1-, 2- and 3-letter prefix', () => {
    // The same rows indexed with all three names always, beside the cache's index.
    const full = contactFtsValuesSql('c', contactFilterTokensSql('c', 'contact_labels', 'labels'))
      .replace(/^CASE WHEN [\s\S]*? END,/, "concat_ws(' ', c.full_name, c.first_name, c.last_name),");
    expect(full).not.toEqual(contactFtsValuesSql('c', contactFilterTokensSql('c', 'contact_labels', 'labels')));
    db.exec(`CREATE VIRTUAL TABLE temp.all_names USING fts5(${CONTACT_FTS_COLUMNS}, content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')`);
    db.exec(`INSERT INTO temp.all_names (rowid, ${CONTACT_FTS_COLUMNS}) SELECT c.rowid, ${full} FROM contacts c`);
    const words = db.prepare('SELECT full_name, first_name, last_name FROM contacts').raw().all().flat().filter((v): v is string => typeof v === 'string');
    const prefixes = new Set<string>();
    for (const word of words) for (const part of word.toLowerCase().split(/[^\p{L}\p{N}]+/u)) for (const n of [1, 2, 3]) if (part.length >= n) prefixes.add(part.slice(0, n));
    expect(prefixes.size).toBeGreaterThan(300);
    const cache = db.prepare('SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ? ORDER BY rowid').pluck();
    const reference = db.prepare('SELECT rowid FROM temp.all_names WHERE all_names MATCH ? ORDER BY rowid').pluck();
    for (const prefix of prefixes) {
      const match = `name : "${prefix.replace(/"/g, '""')}"*`;
      expect(cache.all(match), prefix).toEqual(reference.all(match));
    }
  });
});
