/**
 * The app scheme's request → response decision (electron/main/app/appScheme.ts), on a real folder:
 * only files really inside the renderer folder (symlinks resolved), typed by extension, the CSP on
 * every answer, previews by key.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_PAGE_URL, appSchemeResponse, type AppSchemeSources } from '../../electron/main/app/appScheme.ts';
import { CONTENT_SECURITY_POLICY } from '../../electron/main/app/security.ts';
import type { PreviewImage } from '../../electron/main/previews/serve.ts';
import { previewKey, previewPath } from '../../shared/previewKey.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-scheme-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const rendererDir = join(root, 'out', 'renderer');
const files: Record<string, string> = {
  'index.html': '<!doctype html><title>app</title>',
  'assets/index-abc.js': 'export {}',
  'assets/index-abc.css': 'body{}',
  'assets/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'assets/font.woff2': 'wOF2',
  'assets/notes.md': '# not served',
  'assets/a b.js': 'export const spaced = 1',
};
for (const [name, text] of Object.entries(files)) {
  mkdirSync(dirname(join(rendererDir, name)), { recursive: true });
  writeFileSync(join(rendererDir, name), text);
}
// Next to the renderer folder: what a path that escapes it would reach.
writeFileSync(join(root, 'out', 'secret.txt'), 'secret');
writeFileSync(join(root, 'out', 'secret.js'), 'secret');
mkdirSync(join(root, 'out', 'renderer-other'), { recursive: true });
writeFileSync(join(root, 'out', 'renderer-other', 'x.js'), 'secret');
// Symlinks inside the served folder: to a file and a folder outside it, and to a file inside it.
symlinkSync(join(root, 'out', 'secret.js'), join(rendererDir, 'assets', 'linked-out.js'));
symlinkSync(join(root, 'out', 'renderer-other'), join(rendererDir, 'linked-dir'));
symlinkSync(join(rendererDir, 'assets', 'index-abc.js'), join(rendererDir, 'linked-in.js'));

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const thumb = 'https://images.example.com/t/1.png';
const stored = new Map<string, PreviewImage>([[previewKey(thumb), { type: 'image/png', bytes: PNG }]]);
const sources: AppSchemeSources = { rendererDir, readPreview: (key) => stored.get(key) ?? null };
const get = (url: string, method?: string) => appSchemeResponse(url, sources, method);
const text = (body: Uint8Array | null) => (body === null ? null : new TextDecoder().decode(body));

describe('app scheme: the page and its files', () => {
  it('serves the page with the CSP header at / and /index.html', async () => {
    for (const url of ['letterdesk://app/', 'letterdesk://app', APP_PAGE_URL, `${APP_PAGE_URL}?x=1#orders`]) {
      const r = await get(url);
      expect(r.status, url).toBe(200);
      expect(r.headers['Content-Type']).toBe('text/html; charset=utf-8');
      expect(r.headers['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(r.headers['X-Content-Type-Options']).toBe('nosniff');
      expect(text(r.body)).toBe(files['index.html']);
    }
  });
  it('types files by extension: module scripts as JavaScript, stylesheets as CSS', async () => {
    const expected: [string, string][] = [
      ['assets/index-abc.js', 'text/javascript; charset=utf-8'],
      ['assets/index-abc.css', 'text/css; charset=utf-8'],
      ['assets/icon.svg', 'image/svg+xml'],
      ['assets/font.woff2', 'font/woff2'],
      ['assets/a%20b.js', 'text/javascript; charset=utf-8'],
    ];
    for (const [path, type] of expected) {
      const r = await get(`letterdesk://app/${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers['Content-Type']).toBe(type);
      expect(r.headers['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
    }
    expect(text((await get('letterdesk://app/assets/a%20b.js')).body)).toBe(files['assets/a b.js']);
  });
  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get(APP_PAGE_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const post = await get(APP_PAGE_URL, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
  });
  it('is 404 for a missing file, a folder, or an extension it does not serve', async () => {
    for (const path of ['nothing.js', 'assets', 'assets/', 'assets/notes.md', 'index.html/x']) {
      expect((await get(`letterdesk://app/${path}`)).status, path).toBe(404);
    }
  });
});

describe('app scheme: nothing outside the renderer folder', () => {
  const escapes = [
    'letterdesk://app/../secret.txt',
    'letterdesk://app/assets/../../secret.js',
    'letterdesk://app/%2e%2e/secret.js',
    'letterdesk://app/%2E%2E/secret.js',
    'letterdesk://app/.%2e/secret.js',
    'letterdesk://app/%2e%2e%2fsecret.js',
    'letterdesk://app/assets%2f..%2f..%2fsecret.js',
    'letterdesk://app/..%5csecret.js',
    'letterdesk://app/assets%5c..%5c..%5csecret.js',
    'letterdesk://app/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    'letterdesk://app//etc/passwd',
    'letterdesk://app/%2fetc%2fpasswd',
    'letterdesk://app/C:%5cWindows%5cwin.ini',
    'letterdesk://app/index.html%00.js',
    'letterdesk://app/%ff.js',
    'letterdesk://app/../renderer-other/x.js',
    'letterdesk://app/%2e%2e/renderer-other/x.js',
  ];
  it.each(escapes)('%s is 404', async (url) => {
    const r = await get(url);
    expect(r.status).toBe(404);
    expect(text(r.body)).not.toContain('secret');
  });
  it('does not follow a symlink inside the folder out of it, and serves one that stays inside', async () => {
    for (const url of ['letterdesk://app/assets/linked-out.js', 'letterdesk://app/linked-dir/x.js']) {
      const r = await get(url);
      expect(r.status, url).toBe(404);
      expect(text(r.body), url).not.toContain('secret');
    }
    const inside = await get('letterdesk://app/linked-in.js');
    expect(inside.status).toBe(200);
    expect(text(inside.body)).toBe(files['assets/index-abc.js']);
  });
  it('answers only its own scheme and host', async () => {
    for (const url of [
      'letterdesk://evil/index.html',
      'letterdesk://app.evil/index.html',
      'letterdesk://app:8080/index.html',
      'letterdesk://user@app/index.html',
      'letterdesk://user:pw@app/index.html',
      'letterdesk:///index.html',
      'letterdesk:index.html',
      'file:///index.html',
      'https://app/index.html',
      'other://app/index.html',
      'not a url',
    ]) {
      expect((await get(url)).status, url).toBe(404);
    }
  });
});

describe('app scheme: the policy on every answer', () => {
  it('puts the CSP header on scripts, stylesheets, images, previews, 404 and 405 alike', async () => {
    const answers = [
      ['letterdesk://app/assets/index-abc.js', 'GET', 200],
      ['letterdesk://app/assets/index-abc.css', 'GET', 200],
      ['letterdesk://app/assets/icon.svg', 'GET', 200],
      [`letterdesk://app/${previewPath(thumb)}`, 'GET', 200],
      ['letterdesk://app/assets/missing.js', 'GET', 404],
      ['letterdesk://app/../secret.js', 'GET', 404],
      ['letterdesk://evil/index.html', 'GET', 404],
      ['letterdesk://app/preview/not-a-key', 'GET', 404],
      ['letterdesk://app/assets/index-abc.js', 'HEAD', 200],
      [APP_PAGE_URL, 'POST', 405],
    ] as const;
    for (const [url, method, status] of answers) {
      const r = await get(url, method);
      expect(r.status, `${method} ${url}`).toBe(status);
      expect(r.headers['Content-Security-Policy'], `${method} ${url}`).toBe(CONTENT_SECURITY_POLICY);
    }
  });
});

describe('app scheme: previews from the cache', () => {
  it('serves a stored preview at preview/<key>, typed by its bytes', async () => {
    const r = await get(`letterdesk://app/${previewPath(thumb)}`);
    expect(r.status).toBe(200);
    expect(r.headers['Content-Type']).toBe('image/png');
    expect(r.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(r.body).toEqual(PNG);
  });
  it('is 404 for an unknown or malformed key, extra segments, or no reader', async () => {
    expect((await get(`letterdesk://app/${previewPath('https://images.example.com/other.png')}`)).status).toBe(404);
    for (const key of ['', 'abc', previewKey(thumb).toUpperCase(), `${previewKey(thumb)}0`, 'g'.repeat(32), `${previewKey(thumb)}%00`]) {
      expect((await get(`letterdesk://app/preview/${key}`)).status, key).toBe(404);
    }
    expect((await get(`letterdesk://app/${previewPath(thumb)}/x`)).status).toBe(404);
    expect((await appSchemeResponse(`letterdesk://app/${previewPath(thumb)}`, { rendererDir })).status).toBe(404);
  });
  it('refuses stored bytes that are not a PNG, JPEG, WebP or GIF, and a reader that fails', async () => {
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const hostile: AppSchemeSources = { rendererDir, readPreview: () => ({ type: 'image/png', bytes: svg }) };
    expect((await appSchemeResponse(`letterdesk://app/${previewPath(thumb)}`, hostile)).status).toBe(404);
    const failing: AppSchemeSources = {
      rendererDir,
      readPreview: () => {
        throw new Error('cache closed');
      },
    };
    expect((await appSchemeResponse(`letterdesk://app/${previewPath(thumb)}`, failing)).status).toBe(404);
    const asynchronous: AppSchemeSources = { rendererDir, readPreview: async (key) => stored.get(key) ?? null };
    expect((await appSchemeResponse(`letterdesk://app/${previewPath(thumb)}`, asynchronous)).status).toBe(200);
  });
});
