import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from '../../electron/main/cache/store/migrations/index.ts';
import { CacheClient } from '../../electron/main/cache/worker/client.ts';
import { contactViewSql } from '../../electron/main/cache/read/list.ts';
import type { ContactQuery } from '../../shared/query.ts';

const dir = mkdtempSync(join(tmpdir(), 'ld-mig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cache migrations', () => {
  it('numbers migrations 1..N without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('001_initial creates the snapshot, staging and bookkeeping tables and records user_version 1', () => {
    const db = new Database(join(dir, 'm1.sqlite'));
    expect(migrate(db, 1)).toEqual({ from: 0, to: 1 });
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table') ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    for (const t of ['contacts', 'labels', 'contact_labels', 'contacts_fts', 'orders', 'order_recipients', 'orders_fts', 'stage_contacts', 'stage_orders', 'sync_runs', 'sync_state', 'sync_pages', 'resource_state']) {
      expect(names).toContain(t);
    }
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    // Re-running is a no-op.
    expect(migrate(db, 1)).toEqual({ from: 1, to: 1 });
    db.close();
  });

  /** A cache at version 1 with three contacts, one label, and a search index without filter tokens. */
  const version1 = (name: string): Database.Database => {
    const db = new Database(join(dir, name));
    migrate(db, 1);
    const insert = db.prepare('INSERT INTO contacts (rowid, id, full_name, state, is_verified, is_live_mode, labels, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(1, 'c1', 'Ada Lovelace', 'TX', 1, 1, '["VIP"]', '{}');
    insert.run(2, 'c2', 'Ada Byron', 'NY', 0, 0, '[]', '{}');
    insert.run(3, 'c3', 'Adam Smith', null, null, 1, '[]', '{}');
    db.exec("INSERT INTO labels (id, title) VALUES ('7', 'VIP'); INSERT INTO contact_labels (contact_id, label_id, position) VALUES ('c1', '7', 0)");
    db.exec('INSERT INTO contacts_fts (rowid, name, state) SELECT rowid, full_name, state FROM contacts');
    return db;
  };
  const rawMatch = (db: Database.Database, q: string) => db.prepare('SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ? ORDER BY rowid').pluck().all(q);

  it('002_contact_filter_tokens rebuilds the contacts search index with z-prefixed filter tokens from the cached rows', () => {
    const db = version1('m2.sqlite');
    expect(migrate(db, 2)).toEqual({ from: 1, to: 2 });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(rawMatch(db, '- {f} : ("ada"*)')).toEqual([1, 2, 3]);
    expect(rawMatch(db, '{f} : ("zs5458")')).toEqual([1]); // hex('TX')
    expect(rawMatch(db, '{f} : ("zv0" OR "zvn")')).toEqual([2, 3]);
    expect(rawMatch(db, '{f} : ("zl0")')).toEqual([2]);
    expect(rawMatch(db, '{f} : ("zb37" AND "zt564950")')).toEqual([1]); // hex('7'), hex('VIP')
    db.close();
  });

  it('003_filter_token_mark rebuilds the index with filter tokens that begin with U+E000, which the views use, and no typed prefix reaches', () => {
    const db = version1('m3.sqlite');
    migrate(db, 2);
    expect(migrate(db, 3)).toEqual({ from: 2, to: 3 });
    const match = (q: ContactQuery) => {
      const view = contactViewSql(q);
      return db.prepare(`SELECT c.id FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy}`).pluck().all(view.params);
    };
    expect(match({ search: 'ada' })).toEqual(['c1', 'c2', 'c3']);
    expect(match({ search: 'ada', states: ['TX'] })).toEqual(['c1']);
    expect(match({ search: 'ada', verified: ['no', 'unknown'] })).toEqual(['c2', 'c3']);
    expect(match({ search: 'ada', liveMode: ['test'] })).toEqual(['c2']);
    expect(match({ search: 'ada', labels: ['VIP'] })).toEqual(['c1']);
    expect(match({ search: 'ada', labels: ['7'], states: ['NY'] })).toEqual([]);
    // The old tokens are gone, and the 1-letter prefix "z" (in any column) finds nothing here.
    expect(rawMatch(db, '{f} : ("zs5458")')).toEqual([]);
    expect(rawMatch(db, '"z"*')).toEqual([]);
    db.close();
  });

  it('004_template_previews adds the previews table, keeps the cached rows, and accepts only image types with their bytes', () => {
    const db = version1('m4.sqlite');
    db.exec("INSERT INTO orders (id, template_thumbnail_url, raw) VALUES ('o1', 'https://img.example/1.png', '{}')");
    migrate(db, 3);
    expect(migrate(db, 4)).toEqual({ from: 3, to: 4 });
    expect(db.pragma('user_version', { simple: true })).toBe(4);
    const columns = (db.prepare('PRAGMA table_info(template_previews)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(['url', 'key', 'content_type', 'bytes', 'downloaded_at', 'attempted_at', 'attempts', 'error']);
    expect(db.prepare('SELECT count(*) FROM contacts').pluck().get()).toBe(3);
    expect(db.prepare('SELECT template_thumbnail_url FROM orders').pluck().get()).toBe('https://img.example/1.png');
    const insert = db.prepare('INSERT INTO template_previews (url, key, content_type, bytes, attempted_at) VALUES (?, ?, ?, ?, ?)');
    const at = new Date().toISOString();
    insert.run('https://img.example/1.png', 'k1', 'image/png', Buffer.from([0x89, 0x50]), at);
    insert.run('https://img.example/2.png', 'k2', null, null, at);
    expect(() => insert.run('https://img.example/3.svg', 'k3', 'image/svg+xml', Buffer.from('<svg/>'), at)).toThrow(/CHECK/);
    expect(() => insert.run('https://img.example/4.png', 'k4', 'image/png', null, at)).toThrow(/CHECK/);
    expect(() => insert.run('https://img.example/5.png', 'k5', null, Buffer.from([1]), at)).toThrow(/CHECK/);
    expect(() => insert.run('https://img.example/6.png', 'k1', null, null, at)).toThrow(/UNIQUE/);
    db.close();
  });

  it('005_saved_views adds the views, their memberships and their staging, keeps the cached rows, and keeps names unique per resource', () => {
    const db = version1('m5.sqlite');
    db.exec("INSERT INTO orders (id, raw) VALUES ('o1', '{}')");
    migrate(db, 4);
    db.exec("INSERT INTO template_previews (url, key, attempted_at) VALUES ('https://img.example/1.png', 'k1', '2024-01-01T00:00:00.000Z')");
    expect(migrate(db, 5)).toEqual({ from: 4, to: 5 });
    expect(db.pragma('user_version', { simple: true })).toBe(5);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    for (const t of ['saved_views', 'view_sequence', 'view_memberships', 'view_members', 'view_contact_rows', 'view_order_rows', 'view_contacts_fts', 'view_orders_fts',
      'view_newer_contacts', 'view_newer_contacts_fts', 'view_newer_orders', 'view_newer_order_recipients', 'view_newer_orders_fts', 'view_refresh_state', 'view_stage', 'view_stage_pages']) {
      expect(tables).toContain(t);
    }
    // The data cached before is all there, and searchable as before.
    expect(db.prepare('SELECT id FROM contacts ORDER BY rowid').pluck().all()).toEqual(['c1', 'c2', 'c3']);
    expect(rawMatch(db, '"ada"*')).toEqual([1, 2, 3]);
    expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(1);
    expect(db.prepare('SELECT key FROM template_previews').pluck().get()).toBe('k1');
    expect(db.prepare('SELECT next_key FROM view_sequence').pluck().get()).toBe(1);
    const insert = db.prepare("INSERT INTO saved_views (id, resource, name, name_key, service_query, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 't', 't')");
    insert.run('a', 'contacts', 'Failed', 'failed', '{"addressStatus":["Failed"]}', '{}');
    insert.run('b', 'orders', 'Failed', 'failed', null, '{"sort":{"column":"id"}}');
    expect(() => insert.run('c', 'contacts', 'FAILED', 'failed', null, '{}')).toThrow(/UNIQUE/);
    expect(() => insert.run('d', 'people', 'x', 'x', null, '{}')).toThrow(/CHECK/);
    expect(() => insert.run('e', 'contacts', 'y', 'y', '[1]', '{}')).toThrow(/CHECK/);
    expect(() => insert.run('f', 'contacts', 'z', 'z', null, '"s"')).toThrow(/CHECK/);
    expect(db.prepare('SELECT refresh_after_sync FROM saved_views WHERE id = ?').pluck().get('a')).toBe(1);
    // The members' search index takes deletes by rowid (contentless_delete).
    db.exec("INSERT INTO view_contacts_fts (rowid, name) VALUES (4294967297, 'Ada')");
    db.exec('DELETE FROM view_contacts_fts WHERE rowid = 4294967297');
    expect(db.prepare("SELECT count(*) FROM view_contacts_fts WHERE view_contacts_fts MATCH 'ada'").pluck().get()).toBe(0);
    db.close();
  });

  it('006_changes_and_summaries adds the change tables and the summaries, fills the templates and campaigns from the cached orders, and keeps the rows', () => {
    const db = version1('m6.sqlite');
    const order = db.prepare(`INSERT INTO orders (rowid, id, status, campaign_id, campaign_name, campaign_type, campaign_schedule_type, campaign_delivery_date,
      template_id, template_title, template_type, template_thumbnail_url, template_creator_name, recipients, delivered, raw, invalid_reason) VALUES (?, ?, 1, ?, ?, 'single', 'immediate', ?, ?, ?, 'json', ?, 'Ann', ?, ?, '{}', ?)`);
    order.run(1, '30', 'c1', 'Spring 2025', '2025-04-01', 't1', 'Postcard v2', 'https://img.example/1.png', 3, 1, null);
    order.run(2, '20', 'c1', 'Spring 2024', null, 't1', 'Postcard v1', 'https://img.example/1.png', 2, 2, null);
    order.run(3, '10', 'c2', 'Fall', '2024-10-01', null, null, null, 1, 0, 'template: required');
    db.exec("UPDATE contacts SET invalid_reason = 'isVerified: expected boolean' WHERE id = 'c2'");
    db.exec("INSERT INTO sync_runs (run_id, resource, started_at, ended_at, outcome, rows) VALUES ('r1', 'contacts', 't', 't', 'succeeded', 3)");
    migrate(db, 5);
    expect(migrate(db, 6)).toEqual({ from: 5, to: 6 });
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    for (const t of ['contact_changes', 'order_changes', 'removed_contacts', 'removed_contacts_fts', 'removed_orders', 'removed_order_recipients', 'removed_orders_fts',
      'order_templates', 'order_templates_fts', 'order_campaigns', 'order_campaigns_fts']) {
      expect(tables).toContain(t);
    }
    // The cached rows are all there; the runs recorded before have no change counts.
    expect(db.prepare('SELECT id FROM contacts ORDER BY rowid').pluck().all()).toEqual(['c1', 'c2', 'c3']);
    expect(db.prepare('SELECT added, changed, removed FROM sync_runs').get()).toEqual({ added: null, changed: null, removed: null });
    // The templates and campaigns of the cached orders, each described by its newest order (the lowest rowid).
    expect(db.prepare('SELECT template_id, title, orders, recipients, delivered, last_order_id, last_delivery_date FROM order_templates ORDER BY template_id').all()).toEqual([
      { template_id: '', title: null, orders: 1, recipients: 1, delivered: 0, last_order_id: '10', last_delivery_date: '2024-10-01' },
      { template_id: 't1', title: 'Postcard v2', orders: 2, recipients: 5, delivered: 3, last_order_id: '30', last_delivery_date: '2025-04-01' },
    ]);
    expect(db.prepare('SELECT campaign_id, name, orders FROM order_campaigns ORDER BY campaign_id').all()).toEqual([
      { campaign_id: 'c1', name: 'Spring 2025', orders: 2 },
      { campaign_id: 'c2', name: 'Fall', orders: 1 },
    ]);
    expect(db.prepare("SELECT rowid FROM order_templates_fts WHERE order_templates_fts MATCH 'postc*'").pluck().all()).toHaveLength(1);
    // The records kept as invalid are counted from their partial index, without reading the rows.
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan('SELECT count(*) FROM contacts WHERE invalid_reason IS NOT NULL')).toMatch(/contacts_invalid/);
    expect(db.prepare('SELECT count(*) FROM contacts WHERE invalid_reason IS NOT NULL').pluck().get()).toBe(1);
    expect(plan('SELECT count(*) FROM orders WHERE invalid_reason IS NOT NULL')).toMatch(/orders_invalid/);
    expect(plan("SELECT id FROM orders WHERE template_id = 't1'")).toMatch(/orders_template/);
    expect(plan("SELECT id FROM orders WHERE campaign_id = 'c1'")).toMatch(/orders_campaign/);
    expect(() => db.exec("INSERT INTO contact_changes (id, change) VALUES ('x', 'moved')")).toThrow(/CHECK/);
    db.close();
  });

  it('007_data_source adds where each published copy came from, unknown (NULL) for the copies before', () => {
    const db = version1('m7.sqlite');
    migrate(db, 6);
    const before = db.prepare('SELECT resource, rows, last_synced_at FROM resource_state ORDER BY resource').all();
    expect(migrate(db, 7)).toEqual({ from: 6, to: 7 });
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.prepare('SELECT resource, rows, last_synced_at FROM resource_state ORDER BY resource').all()).toEqual(before);
    expect(db.prepare('SELECT DISTINCT source_origin, source_account_id FROM resource_state').all()).toEqual([{ source_origin: null, source_account_id: null }]);
    db.close();
  });

  it('008_kept_filters keeps the default service filters, none read yet, and refuses a value kept twice', () => {
    const db = version1('m8.sqlite');
    migrate(db, 7);
    expect(migrate(db, 8)).toEqual({ from: 7, to: 8 });
    expect(db.prepare("SELECT resource || ' ' || param || ' ' || value FROM kept_filters ORDER BY fid").pluck().all()).toEqual([
      'contacts addressStatus Failed', 'contacts addressStatus Verified', 'contacts addressStatus Corrected', 'contacts lastMailedDate 30d',
      'orders orderStatus ON_HOLD', 'orders orderStatus SCHEDULED', 'orders orderStatus PROCESSING', 'orders orderStatus MAILED', 'orders orderStatus CANCELED',
      'orders paymentStatus PENDING', 'orders paymentStatus PAID', 'orders paymentStatus PAYMENT_FAILED', 'orders paymentStatus NOT_CHARGED',
    ]);
    expect(db.prepare('SELECT count(*) FROM kept_filters WHERE read_at IS NOT NULL OR members IS NOT NULL').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM kept_members').pluck().get()).toBe(0);
    expect(() => db.exec("INSERT INTO kept_filters (resource, param, value) VALUES ('contacts', 'addressStatus', 'Failed')")).toThrow(/UNIQUE/);
    expect(() => db.exec("INSERT INTO kept_filters (resource, param, value) VALUES ('labels', 'x', 'y')")).toThrow(/CHECK/);
    db.close();
  });

  it('009_contact_mailing dates the cached orders to the last sync of orders and counts each contact’s mailings from them', () => {
    const db = version1('m9.sqlite');
    migrate(db, 8);
    db.exec("UPDATE resource_state SET last_synced_at = '2026-11-30T08:00:00.000Z' WHERE resource = 'orders'");
    const order = db.prepare("INSERT INTO orders (id, status, recipients, delivered, raw) VALUES (?, 1, 0, 0, '{}')");
    const recipient = db.prepare("INSERT INTO order_recipients (order_id, id, position, contact_id, is_delivered) VALUES (?, ?, ?, ?, ?)");
    for (const id of ['10', '20', '30']) order.run(id);
    // c1 twice on order 10 (one order), once on 20, delivered on 20 only; c2 on 30; one entry names no contact.
    recipient.run('10', 'r1', 0, 'c1', 0);
    recipient.run('10', 'r2', 1, 'c1', 0);
    recipient.run('20', 'r3', 0, 'c1', 1);
    recipient.run('30', 'r4', 0, 'c2', 0);
    recipient.run('30', 'r5', 1, null, 1);
    expect(migrate(db, 9)).toEqual({ from: 8, to: 9 });
    expect(db.prepare('SELECT DISTINCT first_seen_at FROM order_first_seen').pluck().all()).toEqual(['2026-11-30T08:00:00.000Z']);
    expect(db.prepare('SELECT count(*) FROM order_first_seen').pluck().get()).toBe(3);
    expect(db.prepare('SELECT * FROM contact_mailing ORDER BY contact_id').all()).toEqual([
      { contact_id: 'c1', times_mailed: 2, delivered: 1, last_order_seen_at: '2026-11-30T08:00:00.000Z' },
      { contact_id: 'c2', times_mailed: 1, delivered: 0, last_order_seen_at: '2026-11-30T08:00:00.000Z' },
    ]);
    db.close();
  });

  it('010_overview computes the numbers of a resource synced before, and stores none for one never synced', () => {
    const db = version1('m10.sqlite');
    migrate(db, 9);
    db.exec("UPDATE resource_state SET last_synced_at = '2026-11-30T08:00:00.000Z' WHERE resource = 'contacts'");
    db.exec("UPDATE contacts SET invalid_reason = 'no zip' WHERE id = 'c2'");
    const before = db.prepare('SELECT state, count(*) AS n FROM contacts GROUP BY state ORDER BY state').all() as { state: string | null; n: number }[];
    expect(migrate(db, 10)).toEqual({ from: 9, to: 10 });
    const row = db.prepare('SELECT part, computed_at FROM contact_overview').get() as { part: string; computed_at: string };
    const part = JSON.parse(row.part) as { total: number; invalid: number; states: [string, number][] };
    expect(part.total).toBe(before.reduce((n, r) => n + r.n, 0));
    expect(part.invalid).toBe(1);
    expect(part.states.sort()).toEqual(before.map((r) => [r.state ?? '', r.n]).sort());
    expect(row.computed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The orders were never synced: no numbers, so the overview says none were computed.
    expect(db.prepare('SELECT count(*) FROM order_overview').pluck().get()).toBe(0);
    db.close();
  });

  it('011_contact_duplicates adds empty duplicate tables beside the cached contacts, which it keeps', () => {
    const db = version1('m11.sqlite');
    migrate(db, 10);
    const contacts = db.prepare('SELECT * FROM contacts ORDER BY id').all();
    expect(migrate(db, 11)).toEqual({ from: 10, to: 11 });
    expect(db.prepare('SELECT * FROM contacts ORDER BY id').all()).toEqual(contacts);
    expect(db.prepare('SELECT count(*) FROM contact_duplicates').pluck().get()).toBe(0);
    // No state row: the groups have not been found yet.
    expect(db.prepare('SELECT count(*) FROM contact_duplicates_state').pluck().get()).toBe(0);
    db.prepare("INSERT INTO contact_duplicates (level, group_key, contact_id) VALUES ('household', 'K', 'c1')").run();
    expect(() => db.prepare("INSERT INTO contact_duplicates (level, group_key, contact_id) VALUES ('household', 'K', 'c1')").run()).toThrow(/UNIQUE/);
    db.close();
  });

  it('sets WAL and synchronous=NORMAL on open', () => {
    const db = openCache(join(dir, 'pragmas.sqlite'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
  });

  it('refuses a cache written by a newer app and leaves the file untouched', async () => {
    const file = join(dir, 'newer.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE future (x)');
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    const before = readFileSync(file);
    expect(() => openCache(file)).toThrow(expect.objectContaining({ code: 'CACHE_TOO_NEW' }));
    await expect(CacheClient.open(file)).rejects.toMatchObject({ code: 'CACHE_TOO_NEW' });
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('moves a damaged file aside (never deletes it) and says so', () => {
    const sub = mkdtempSync(join(dir, 'dmg-'));
    const file = join(sub, 'cache.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    expect(() => openCache(file)).toThrow(expect.objectContaining({ code: 'CACHE_DAMAGED' }));
    const files = readdirSync(sub);
    expect(files).not.toContain('cache.sqlite');
    const aside = files.find((f) => f.startsWith('cache.sqlite.damaged-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(sub, aside as string)).length).toBe(8192);
  });
});
