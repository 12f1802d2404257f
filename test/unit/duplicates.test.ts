/**
 * Duplicate contacts: synced from the sample API over loopback HTTP into a real cache file, the
 * groups found after the publish are compared with the duplicates the sample API planted (its own
 * list, not the cache's), at each level; the near misses it planted are in no group with their
 * host; the page's window, the export (one row per member with its group) and the CLI's
 * `duplicates --json` and `export duplicates`, offline.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateKeys, DUPLICATE_LEVELS } from '../../shared/addressKey.ts';
import type { DuplicateGroupIds } from '../../shared/duplicates.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { duplicateGroupIds, duplicateGroups } from '../../electron/main/cache/read/duplicates.ts';
import { clearDuplicates, findDuplicates } from '../../electron/main/cache/build/duplicates.ts';
import { openExportRows } from '../../electron/main/cache/read/exportRows.ts';
import { contactFacets, countContacts, getContact, queryContacts } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-duplicates-'));
  api = await startSampleApi({ contacts: 1200, orders: 20, seed: 23 });
  db = openCache(join(dir, 'cache.sqlite'));
  const source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, backoffMs: 5 });
  const runs = await runSync(db, source, { resources: ['contacts'], pageSize: 250 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded']);
}, 120_000);

afterAll(async () => {
  db?.close();
  await api?.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const planted = () => api.dataset.plantedDuplicates();

describe('the groups found after a sync', () => {
  it('hold every group the sample API planted, at each level', () => {
    const { groups } = planted();
    expect(groups.length).toBeGreaterThan(0);
    for (const level of DUPLICATE_LEVELS) {
      const found = duplicateGroupIds(db, level).map((g) => g.contactIds.join(' '));
      const want = groups.filter((g) => g.level === level);
      expect(want.length).toBe(groups.length / 3);
      for (const g of want) expect(found, `${level} ${g.contactIds.join(' ')}`).toContain(g.contactIds.join(' '));
    }
  });

  it('never put a planted near miss in a group with its host', () => {
    for (const level of DUPLICATE_LEVELS) {
      const groupOf = new Map(duplicateGroupIds(db, level).flatMap((g) => g.contactIds.map((id) => [id, g.key] as const)));
      for (const [host, ...misses] of planted().nearMisses) {
        for (const miss of misses) {
          if (groupOf.has(miss)) expect(groupOf.get(miss), `${level} ${miss}`).not.toBe(groupOf.get(host ?? ''));
        }
      }
    }
  });

  it('group contacts whose keys are equal at their level, under that key, and no others', () => {
    const contacts = [...api.dataset.contacts()];
    for (const level of DUPLICATE_LEVELS) {
      const byKey = new Map<string, string[]>();
      for (const c of contacts) {
        const key = duplicateKeys(c)?.[level];
        if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), c.id]);
      }
      const want: DuplicateGroupIds[] = [...byKey].filter(([, ids]) => ids.length > 1).map(([key, ids]) => ({ key, level, contactIds: ids.sort() }));
      expect(duplicateGroupIds(db, level)).toEqual(want.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
    }
  });

  it('are each level narrower than the one before', () => {
    const counts = DUPLICATE_LEVELS.map((level) => duplicateGroupIds(db, level).reduce((n, g) => n + g.contactIds.length, 0));
    expect(counts[0]).toBeGreaterThan(counts[1] as number);
    expect(counts[1]).toBeGreaterThan(counts[2] as number);
  });

  it('are cleared when a find fails, and found the same again from the mirror', () => {
    const before = DUPLICATE_LEVELS.map((level) => duplicateGroupIds(db, level));
    clearDuplicates(db);
    const cleared = duplicateGroups(db, { level: 'household', offset: 0, limit: 10 });
    expect([cleared.computedAt, cleared.groups, cleared.items]).toEqual([null, 0, []]);
    expect(contactFacets(db, {}).duplicates).toEqual([]);
    const found = findDuplicates(db);
    expect(found.contacts).toBe([...api.dataset.contacts()].length);
    expect(DUPLICATE_LEVELS.map((level) => duplicateGroupIds(db, level))).toEqual(before);
  });
});

describe('the Duplicates page’s window', () => {
  it('lists the groups largest first with their members side by side, and the totals', () => {
    const all = duplicateGroupIds(db, 'household');
    const page = duplicateGroups(db, { level: 'household', offset: 0, limit: 5 });
    expect(page.computedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(page.groups).toBe(all.length);
    expect(page.contacts).toBe(all.reduce((n, g) => n + g.contactIds.length, 0));
    expect(page.items).toHaveLength(5);
    const sizes = page.items.map((g) => g.size);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    for (const g of page.items) {
      expect(g.members.map((m) => m.id)).toEqual(all.find((x) => x.key === g.key)?.contactIds);
      for (const m of g.members) expect(m.address1).toBe(api.dataset.contactById(m.id)?.address1);
    }
    const next = duplicateGroups(db, { level: 'household', offset: 5, limit: 200 });
    expect(next.items.length).toBe(all.length - 5);
    expect(next.items.map((g) => g.key)).not.toContain(page.items[0]?.key);
  });
});

/** The sample API's contacts grouped by their key at `level` (its own data, not the cache's): groups of two or more. */
function expectedGroups(level: (typeof DUPLICATE_LEVELS)[number]): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const c of api.dataset.contacts()) {
    const key = duplicateKeys(c)?.[level];
    if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), c.id]);
  }
  return new Map([...byKey].filter(([, ids]) => ids.length > 1));
}

/** Every id of a contacts query, in its order. */
function idsOf(query: Parameters<typeof queryContacts>[1]): string[] {
  return queryContacts(db, query, { offset: 0, limit: 5000 }).rows.map((r) => r.id);
}

describe('the possible-duplicate mark and filter of the contacts table', () => {
  it('mark the rows of the household groups, and only those', () => {
    const members = new Set([...expectedGroups('household').values()].flat());
    const rows = queryContacts(db, {}, { offset: 0, limit: 5000 }).rows;
    expect(rows.length).toBe([...api.dataset.contacts()].length);
    for (const r of rows) expect(r.possibleDuplicate, r.id).toBe(members.has(r.id));
  });

  it('keep the members of the groups at the chosen level, combined with the other filters, with counts', () => {
    const contacts = [...api.dataset.contacts()];
    for (const level of DUPLICATE_LEVELS) {
      const members = new Set([...expectedGroups(level).values()].flat());
      expect(new Set(idsOf({ duplicates: { level } }))).toEqual(members);
      expect(countContacts(db, { duplicates: { level } }).count).toBe(members.size);
      // With a state filter: the members in that state, and the facet counts the same rows.
      const state = contacts.find((c) => members.has(c.id))?.state ?? '';
      const inState = contacts.filter((c) => members.has(c.id) && c.state === state).map((c) => c.id);
      expect(new Set(idsOf({ duplicates: { level }, states: [state] }))).toEqual(new Set(inState));
      const facet = contactFacets(db, { states: [state] }).duplicates.find((o) => o.value === level);
      expect(facet?.count, level).toBe(inState.length);
      // Its own facet leaves the filter out: every level still counts its members.
      const own = new Map(contactFacets(db, { duplicates: { level } }).duplicates.map((o) => [o.value, o.count]));
      expect(own).toEqual(new Map(DUPLICATE_LEVELS.map((l) => [l, new Set([...expectedGroups(l).values()].flat()).size])));
    }
  });

  it('open one group by its key, and name the group and its other members in each member’s detail', () => {
    for (const level of DUPLICATE_LEVELS) {
      const [key, ids] = [...expectedGroups(level)][0] ?? ['', []];
      expect(idsOf({ duplicates: { level, key } }).sort()).toEqual([...ids].sort());
      const [first, ...others] = [...ids].sort();
      const group = getContact(db, first ?? '')?.duplicates.find((g) => g.level === level);
      expect(group?.key).toBe(key);
      expect(group?.others.map((o) => o.id)).toEqual(others);
    }
    const loner = [...api.dataset.contacts()].find((c) => !DUPLICATE_LEVELS.some((l) => [...expectedGroups(l).values()].flat().includes(c.id)));
    expect(getContact(db, loner?.id ?? '')?.duplicates).toEqual([]);
  });
});

describe('the export', () => {
  it('writes one row per member with its group, level and group size', () => {
    const rows = openExportRows(db, { kind: 'duplicates', query: { level: 'individual' }, columns: ['group', 'level', 'groupSize', 'id', 'address1'] });
    const cells = [...rows.rows];
    rows.close();
    const groups = duplicateGroupIds(db, 'individual');
    expect(rows.total).toBe(groups.reduce((n, g) => n + g.contactIds.length, 0));
    expect(cells).toEqual(groups.flatMap((g) => g.contactIds.map((id) => [g.key, 'individual', g.contactIds.length, id, api.dataset.contactById(id)?.address1])));
  });
});

describe('the command line', () => {
  it('prints the groups at each level as JSON and exports them, offline', async () => {
    const data = join(dir, 'data');
    const tokens = { LETTERDESK_ACCESS_TOKEN: SAMPLE_ACCESS_TOKEN, LETTERDESK_REFRESH_TOKEN: SAMPLE_REFRESH_TOKEN };
    const cli = (args: string[]) => runCliProcess(data, dir, args, tokens);
    expect((await cli(['profile', 'add', 'Mailer', '--base-url', api.baseUrl, '--page-size', '500'])).code).toBe(0);
    const synced = await cli(['sync', 'contacts']);
    expect(synced.code, synced.stderr).toBe(0);
    const { groups } = planted();
    for (const level of [undefined, ...DUPLICATE_LEVELS]) {
      const out = await cli(['duplicates', ...(level ? ['--level', level] : []), '--json']);
      expect(out.code, out.stderr).toBe(0);
      const printed = JSON.parse(out.stdout) as DuplicateGroupIds[];
      const wanted = level ?? 'household';
      expect(printed.every((g) => g.level === wanted && g.contactIds.length > 1)).toBe(true);
      const found = printed.map((g) => g.contactIds.join(' '));
      for (const g of groups.filter((x) => x.level === wanted)) expect(found).toContain(g.contactIds.join(' '));
    }
    const file = join(dir, 'households.csv');
    const exported = await cli(['export', 'duplicates', '--level', 'household', '--columns', 'group,id', '--out', file, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\r\n');
    const household = duplicateGroupIds(db, 'household');
    expect(lines).toHaveLength(1 + household.reduce((n, g) => n + g.contactIds.length, 0));
    expect(lines[1]).toBe(`"${household[0]?.key}","${household[0]?.contactIds[0]}"`);
  }, 120_000);
});
