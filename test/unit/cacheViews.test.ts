/**
 * Saved views in the cache (cache/savedViews/savedViews.ts): created, renamed, changed, duplicated and deleted
 * on a real SQLite file; names unique per resource without regard to case; settings and service
 * queries kept as the JSON they were given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { createView, deleteView, duplicateView, getView, listViews, renameView, updateView, viewNewerIds, viewsNamed } from '../../electron/main/cache/savedViews/savedViews.ts';
import type { ViewLocalSettings } from '../../shared/views.ts';

let dir: string;
let db: Database.Database;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-views-'));
  db = openCache(join(dir, 'cache.sqlite'));
});
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const settings: ViewLocalSettings = {
  search: 'smith', filters: { states: ['Ohio', ''], verified: ['yes'] }, sort: { column: 'name', direction: 'desc' },
  columns: [{ key: 'name', width: 212.5 }, { key: 'city', width: 90, hidden: true }], note: 'Zürich — "quoted" \u2028 line', nothing: null,
};

describe('saved views in the cache', () => {
  it('creates a view with its query and settings and gives them back exactly, surviving a reopen', () => {
    const view = createView(db, { resource: 'contacts', name: '  Failed addresses ', serviceQuery: { addressStatus: ['Failed'], 'meta.account_id': 'a 1' }, settings });
    expect(view).toMatchObject({
      resource: 'contacts', name: 'Failed addresses', serviceQuery: { addressStatus: ['Failed'], 'meta.account_id': 'a 1' }, settings,
      refreshAfterSync: true, membership: null, lastError: null,
    });
    expect(view.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(view.createdAt).toBe(view.updatedAt);
    db.close();
    db = openCache(join(dir, 'cache.sqlite'));
    expect(getView(db, view.id)).toEqual(view);
    const local = createView(db, { resource: 'orders', name: 'Big orders', settings: { sort: { column: 'recipients', direction: 'desc' } }, refreshAfterSync: false });
    expect(local).toMatchObject({ serviceQuery: null, refreshAfterSync: false, membership: null });
    expect(listViews(db).map((v) => [v.resource, v.name])).toEqual([['contacts', 'Failed addresses'], ['orders', 'Big orders']]);
    expect(listViews(db, 'orders').map((v) => v.name)).toEqual(['Big orders']);
  });

  it('keeps names unique per resource without regard to case, but not across resources', () => {
    expect(() => createView(db, { resource: 'contacts', name: 'FAILED ADDRESSES' })).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/exists already/) }));
    expect(() => createView(db, { resource: 'contacts', name: 'failed addresses' })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    const orders = createView(db, { resource: 'orders', name: 'Failed Addresses' });
    expect(viewsNamed(db, 'failed ADDRESSES').map((v) => v.resource)).toEqual(['contacts', 'orders']);
    // Case is folded beyond ASCII too.
    createView(db, { resource: 'contacts', name: 'Straße ÄÖÜ' });
    expect(() => createView(db, { resource: 'contacts', name: 'straße äöü' })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    deleteView(db, orders.id);
  });

  it('refuses names, resources, settings and queries it cannot keep, saying what is wrong', () => {
    for (const name of ['', '   ', 'x'.repeat(101), 'tab\there']) {
      expect(() => createView(db, { resource: 'contacts', name }), JSON.stringify(name)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/view name/) }));
    }
    expect(() => createView(db, { resource: 'people' as 'contacts', name: 'P' })).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/contacts or orders/) }));
    expect(() => createView(db, { resource: 'contacts', name: 'S', settings: [] as unknown as ViewLocalSettings })).toThrow(expect.objectContaining({ message: expect.stringMatching(/settings must be a JSON object/) }));
    expect(() => createView(db, { resource: 'contacts', name: 'Q', serviceQuery: { search: 'x'.repeat(70_000) } })).toThrow(expect.objectContaining({ message: expect.stringMatching(/at most 65536/) }));
    expect(() => renameView(db, 'no such id!', 'x')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    expect(() => renameView(db, '00000000-0000-0000-0000-000000000000', 'x')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(listViews(db).map((v) => v.name)).not.toContain('P');
  });

  it('renames (a change of case too), changes settings and refresh-after-sync, and refuses a taken name', () => {
    const [view] = viewsNamed(db, 'Failed addresses');
    const renamed = renameView(db, view!.id, 'failed ADDRESSES');
    expect(renamed.name).toBe('failed ADDRESSES');
    expect(() => renameView(db, view!.id, 'straße ÄÖÜ')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    const changed = updateView(db, view!.id, { settings: { search: '' }, refreshAfterSync: false });
    expect(changed).toMatchObject({ settings: { search: '' }, refreshAfterSync: false, serviceQuery: { addressStatus: ['Failed'], 'meta.account_id': 'a 1' } });
    expect(changed.updatedAt >= view!.updatedAt).toBe(true);
    expect(updateView(db, view!.id, { serviceQuery: null }).serviceQuery).toBeNull();
    expect(updateView(db, view!.id, { serviceQuery: { addressStatus: ['Failed'] } }).serviceQuery).toEqual({ addressStatus: ['Failed'] });
  });

  it('duplicates a view with its query, settings and membership, naming the copy', () => {
    const [view] = viewsNamed(db, 'failed addresses');
    // A membership as a refresh publishes it (rows of the tables the refresh writes).
    db.prepare("INSERT INTO view_memberships (view_id, member_key, request, read_at, server_count, in_mirror, newer) VALUES (?, 99, '/contacts?x=1', '2024-05-01T00:00:00.000Z', 7, 5, 2)").run(view!.id);
    const copy = duplicateView(db, view!.id);
    expect(copy).toMatchObject({ name: 'failed ADDRESSES (copy)', serviceQuery: view!.serviceQuery, settings: { search: '' }, refreshAfterSync: false });
    expect(copy.membership).toEqual({ refreshedAt: '2024-05-01T00:00:00.000Z', request: '/contacts?x=1', serverCount: 7, members: 7, newerThanMirror: 2 });
    expect(duplicateView(db, view!.id).name).toBe('failed ADDRESSES (copy 2)');
    expect(duplicateView(db, view!.id, 'Mine').name).toBe('Mine');
    expect(() => duplicateView(db, view!.id, 'MINE')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    // A changed query lets go of the membership; the copy keeps its own.
    expect(updateView(db, view!.id, { serviceQuery: { addressStatus: ['Verified'] } }).membership).toBeNull();
    expect(getView(db, copy.id)?.membership?.members).toBe(7);
    expect(viewNewerIds(db, copy.id)).toEqual([]);
  });

  it('deletes a view and its membership, and says so when it is gone already', () => {
    const [copy] = viewsNamed(db, 'failed ADDRESSES (copy)');
    deleteView(db, copy!.id);
    expect(getView(db, copy!.id)).toBeNull();
    expect(db.prepare('SELECT count(*) FROM view_memberships WHERE view_id = ?').pluck().get(copy!.id)).toBe(0);
    expect(() => deleteView(db, copy!.id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => viewNewerIds(db, copy!.id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});
