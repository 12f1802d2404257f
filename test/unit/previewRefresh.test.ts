/**
 * The sync's last step, `refreshPreviews` (electron/main/previews/refresh.ts), on real cache files
 * against the real sample API and loopback image hosts: each thumbnail downloaded once, failures
 * kept and retried at the next refresh without failing anything, previews read back by key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { countPreviews, recordPreviewFailure, storePreview } from '../../electron/main/cache/build/previews.ts';
import { readPreview } from '../../electron/main/cache/read/previews.ts';
import { previewResponse } from '../../electron/main/previews/serve.ts';
import { refreshPreviews } from '../../electron/main/previews/refresh.ts';
import { SAMPLE_ACCESS_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { previewKey } from '../../shared/previewKey.ts';
import { PNG, startImageHost, SVG, type ImageHost } from './fixtures/imageHost.ts';

/** The options of a profile on this computer, as the sample API's is: loopback previews allowed. */
const LOCAL = { profileBaseUrl: 'http://127.0.0.1:4100/api/v1' } as const;

const dir = mkdtempSync(join(tmpdir(), 'ld-previews-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A cache file whose visible orders use these thumbnail addresses (one order each, plus repeats). */
function cacheWith(thumbnails: (string | null)[]): Database.Database {
  const db = openCache(join(dir, `cache-${++files}.sqlite`));
  const insert = db.prepare('INSERT INTO orders (id, template_thumbnail_url, raw) VALUES (?, ?, ?)');
  db.transaction(() => thumbnails.forEach((url, i) => insert.run(String(i + 1), url, '{}')))();
  return db;
}

const rows = (db: Database.Database) =>
  db.prepare('SELECT url, key, content_type AS type, length(bytes) AS size, attempts, error FROM template_previews ORDER BY url').all() as {
    url: string;
    key: string;
    type: string | null;
    size: number | null;
    attempts: number;
    error: string | null;
  }[];

describe('refreshPreviews with the sample API', () => {
  let api: SampleApi;
  let thumbnails: string[];
  beforeAll(async () => {
    api = await startSampleApi({ contacts: 20, orders: 300, seed: 5 });
    const res = await fetch(`${api.baseUrl}/orders/?page=0&pageSize=300`, { headers: { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}` } });
    thumbnails = ((await res.json()) as { data: { rows: { template: { thumbnailUrl: string } }[] } }).data.rows.map((o) => o.template.thumbnailUrl);
  });
  afterAll(() => api.close());

  it('downloads each distinct thumbnail once into the cache, where the scheme reads it back by key', async () => {
    const db = cacheWith(thumbnails);
    const distinct = new Set(thumbnails);
    const result = await refreshPreviews(db, LOCAL);
    expect(result).toMatchObject({ attempted: distinct.size, stored: distinct.size, failed: 0, removed: 0, cancelled: false, problem: null });
    expect(result.counts).toEqual({ stored: distinct.size, failed: 0 });
    expect(api.stats().previews).toBe(distinct.size);

    const url = thumbnails[0] as string;
    const image = readPreview(db, previewKey(url));
    expect(image?.type).toBe('image/png');
    const served = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(Buffer.from(image?.bytes ?? []).equals(served)).toBe(true);
    const answer = await previewResponse((key) => readPreview(db, key), previewKey(url));
    expect(answer.status).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/png');

    // The next sync downloads nothing: every address is stored.
    const requestsBefore = api.stats().previews;
    expect(await refreshPreviews(db, LOCAL)).toMatchObject({ attempted: 0, stored: 0, failed: 0 });
    expect(api.stats().previews).toBe(requestsBefore);
    db.close();
  });

  it('keeps its previews when the image host is gone (offline), and drops the ones no order uses', async () => {
    const db = cacheWith(thumbnails.slice(0, 50));
    await refreshPreviews(db, LOCAL);
    const stored = countPreviews(db).stored;
    expect(stored).toBeGreaterThan(5);
    const offline = await startSampleApi({ contacts: 1, orders: 1 });
    await offline.close();
    const orphan = thumbnails[0] as string;
    db.prepare('DELETE FROM orders WHERE template_thumbnail_url = ?').run(orphan);
    db.prepare('INSERT INTO orders (id, template_thumbnail_url, raw) VALUES (?, ?, ?)').run('new', `${new URL(offline.baseUrl).origin}/templates/6001/thumb.png`, '{}');
    const result = await refreshPreviews(db, LOCAL);
    expect(result).toMatchObject({ attempted: 1, stored: 0, failed: 1, removed: 1, problem: null });
    expect(readPreview(db, previewKey(orphan))).toBeNull();
    expect(countPreviews(db)).toEqual({ stored: stored - 1, failed: 1 });
    for (const url of new Set(thumbnails.slice(1, 50))) if (url !== orphan) expect(readPreview(db, previewKey(url)), url).not.toBeNull();
    db.close();
  });
});

describe('refreshPreviews with a hostile or failing image host', () => {
  let host: ImageHost;
  beforeAll(async () => {
    host = await startImageHost();
  });
  afterAll(() => host.close());

  it('records each refusal without failing, and retries only the failures next time', async () => {
    const u = (path: string) => `${host.origin}${path}`;
    host.route('/good.png', { body: PNG });
    host.route('/flaky.png', { status: 503 });
    host.route('/image.svg', { headers: { 'content-type': 'image/svg+xml' }, body: SVG });
    host.route('/huge.png', { body: Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]) });
    host.route('/redirect.png', { status: 302, headers: { location: '/good.png' } });
    host.route('/text.png', { body: 'not an image' });
    const thumbs = [u('/good.png'), u('/good.png'), u('/flaky.png'), u('/image.svg'), u('/huge.png'), u('/redirect.png'), u('/text.png'), 'http://images.example.com/remote.png', '', null];
    const db = cacheWith(thumbs);

    const first = await refreshPreviews(db, { ...LOCAL, now: () => new Date('2026-01-01T10:00:00Z') });
    expect(first).toMatchObject({ attempted: 7, stored: 1, failed: 6, problem: null, counts: { stored: 1, failed: 6 } });
    const errors = Object.fromEntries(rows(db).map((r) => [r.url.replace(host.origin, ''), r.error]));
    expect(errors).toEqual({
      '/good.png': null,
      '/flaky.png': 'The image host answered 503.',
      '/image.svg': 'The answer is not a PNG, JPEG, WebP or GIF image.',
      '/huge.png': expect.stringMatching(/larger than 2 MiB/),
      '/redirect.png': 'The image host answered 302 and pointed to /good.png; redirects are not followed.',
      '/text.png': 'The answer is not a PNG, JPEG, WebP or GIF image.',
      'http://images.example.com/remote.png': expect.stringMatching(/must be an https address/),
    });
    expect(host.hits('/good.png')).toBe(1);
    for (const path of ['/flaky.png', '/image.svg', '/huge.png', '/redirect.png']) expect((await previewResponse((k) => readPreview(db, k), previewKey(u(path)))).status, path).toBe(404);

    // The next sync: the failed addresses are tried again (least recently tried first), the stored
    // one is not, and a host that recovered gives its image.
    host.route('/flaky.png', { body: PNG });
    const good = readPreview(db, previewKey(u('/good.png')));
    const second = await refreshPreviews(db, { ...LOCAL, now: () => new Date('2026-01-02T10:00:00Z') });
    expect(second).toMatchObject({ attempted: 6, stored: 1, failed: 5, counts: { stored: 2, failed: 5 } });
    expect(host.hits('/good.png')).toBe(1);
    expect(host.hits('/flaky.png')).toBe(2);
    expect(readPreview(db, previewKey(u('/good.png')))).toEqual(good);
    expect(readPreview(db, previewKey(u('/flaky.png')))?.type).toBe('image/png');
    const flaky = rows(db).find((r) => r.url === u('/flaky.png'));
    expect(flaky).toMatchObject({ attempts: 2, error: null, type: 'image/png' });
    expect(rows(db).find((r) => r.url === u('/image.svg'))).toMatchObject({ attempts: 2, type: null, size: null });
    db.close();
  });

  it('leaves a stored image in place when a later attempt for it fails', () => {
    const db = cacheWith([`${host.origin}/kept.png`]);
    const url = `${host.origin}/kept.png`;
    storePreview(db, url, { type: 'image/png', bytes: PNG }, new Date());
    recordPreviewFailure(db, url, 'The image host answered 500.', new Date());
    expect(Buffer.from(readPreview(db, previewKey(url))?.bytes ?? []).equals(PNG)).toBe(true);
    expect(rows(db)[0]).toMatchObject({ attempts: 2, error: 'The image host answered 500.', type: 'image/png' });
    db.close();
  });

  it('downloads a few at a time, at most maxUrls per refresh, the rest at the next one', async () => {
    const urls = Array.from({ length: 9 }, (_, i) => {
      host.route(`/n${i}.png`, { delayMs: 40, body: PNG });
      return `${host.origin}/n${i}.png`;
    });
    const db = cacheWith(urls);
    const first = await refreshPreviews(db, { ...LOCAL, maxUrls: 5, concurrency: 2 });
    expect(first).toMatchObject({ attempted: 5, stored: 5 });
    expect((await refreshPreviews(db, { ...LOCAL, maxUrls: 5 })).attempted).toBe(4);
    expect(countPreviews(db)).toEqual({ stored: 9, failed: 0 });
    db.close();
  });

  it('with previews off deletes every stored preview and asks the image host nothing', async () => {
    host.route('/off.png', { body: PNG });
    const db = cacheWith([`${host.origin}/off.png`, `${host.origin}/off-missing.png`]);
    await refreshPreviews(db, LOCAL);
    const before = host.requests.length;
    const result = await refreshPreviews(db, { ...LOCAL, enabled: false });
    expect(result).toMatchObject({ attempted: 0, removed: 2, counts: { stored: 0, failed: 0 }, problem: null });
    expect(host.requests.length).toBe(before);
    db.close();
  });

  it('stops when cancelled and leaves the addresses not finished to the next refresh', async () => {
    const urls = Array.from({ length: 4 }, (_, i) => {
      host.route(`/c${i}.png`, { delayMs: 300, body: PNG });
      return `${host.origin}/c${i}.png`;
    });
    const db = cacheWith(urls);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const result = await refreshPreviews(db, { ...LOCAL, signal: abort.signal, concurrency: 2 });
    expect(result).toMatchObject({ attempted: 4, stored: 0, failed: 0, cancelled: true, problem: null });
    expect(rows(db)).toEqual([]);
    expect((await refreshPreviews(db, LOCAL)).stored).toBe(4);
    db.close();
  });

  it('stops at its time budget: an image host that never answers does not hold the sync back', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => {
      host.route(`/hang${i}.png`, () => {}); // accepts the request and never answers
      return `${host.origin}/hang${i}.png`;
    });
    const db = cacheWith(urls);
    const started = Date.now();
    const result = await refreshPreviews(db, { ...LOCAL, budgetMs: 300, timeoutMs: 10_000, concurrency: 2 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ attempted: 6, stored: 0, failed: 0, cancelled: true, problem: null });
    expect(rows(db)).toEqual([]);
    db.close();
  });

  it('never rejects: a cache that cannot be written is reported as a problem', async () => {
    host.route('/ro.png', { body: PNG });
    const file = join(dir, 'readonly.sqlite');
    const writable = openCache(file);
    writable.prepare('INSERT INTO orders (id, template_thumbnail_url, raw) VALUES (?, ?, ?)').run('1', `${host.origin}/ro.png`, '{}');
    writable.close();
    const readonly = openCache(file, { readonly: true });
    const result = await refreshPreviews(readonly, LOCAL);
    expect(result.problem).toMatch(/^The template previews could not be updated in the cache: .*readonly/i);
    expect(result.counts).toEqual({ stored: 0, failed: 0 });
    readonly.close();
  });
});

describe('refreshPreviews for a profile whose service is elsewhere', () => {
  const REMOTE = { profileBaseUrl: 'https://api.example.test/api/v1' } as const;
  let admin: ImageHost;
  beforeAll(async () => {
    admin = await startImageHost();
    admin.route('/admin/delete-everything', { body: 'deleted' });
    admin.route('/ok.png', { body: PNG });
  });
  afterAll(() => admin.close());

  it('sends nothing to a loopback server its service names, and records why', async () => {
    const port = new URL(admin.origin).port;
    const forged = [`http://127.0.0.1:${port}/admin/delete-everything?confirm=1`, `https://127.0.0.1:${port}/admin/delete-everything?confirm=2`, `http://127.9.9.9:${port}/ok.png`];
    const db = cacheWith(forged);
    const result = await refreshPreviews(db, REMOTE);
    expect(admin.requests).toEqual([]);
    expect(result).toMatchObject({ attempted: 3, stored: 0, failed: 3, problem: null });
    for (const row of rows(db)) expect(row.error).toBe('Not downloaded: a preview of a service elsewhere must be an https address outside this computer and private networks.');
    db.close();
  });

  it('the same loopback server still serves a profile on this computer', async () => {
    const db = cacheWith([`${admin.origin}/ok.png`]);
    expect(await refreshPreviews(db, LOCAL)).toMatchObject({ attempted: 1, stored: 1, failed: 0 });
    expect(admin.hits('/ok.png')).toBe(1);
    db.close();
  });
});
