/**
 * The production CSP, enforced by Chromium on the built page served through the app scheme's
 * answers (rendererServer.ts): injected inline scripts and handlers do not run; images come only
 * from the app itself (template previews from the cache, at `preview/<key>`), never from the
 * network; and the normal journey through every screen raises no violation (Svelte sets styles
 * through the CSSOM, which `style-src 'self'` without 'unsafe-inline' allows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as baseExpect, test as base, type Page } from '@playwright/test';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { readPreview } from '../../electron/main/cache/read/previews.ts';
import { refreshPreviews } from '../../electron/main/previews/refresh.ts';
import { SAMPLE_ACCESS_TOKEN, startSampleApi } from '../../electron/main/sampleApi/server.ts';
import { previewPath } from '../../shared/previewKey.ts';
import { expect, test } from './harness.ts';
import { serveRenderer } from './rendererServer.ts';

interface Violation {
  directive: string;
  blocked: string;
}

/** Records every `securitypolicyviolation` of the page (from its first script on) in `window.__csp`. */
async function recordViolations(page: Page): Promise<() => Promise<Violation[]>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: { directive: string; blocked: string }[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
  });
  return () => page.evaluate(() => (window as unknown as { __csp: Violation[] }).__csp);
}

/** Loads `src` in an `img` of the page; resolves with its natural width (0 when it did not load). */
const loadImage = (page: Page, src: string) =>
  page.evaluate(
    (url) =>
      new Promise<number>((done) => {
        const img = document.createElement('img');
        img.onload = () => done(img.naturalWidth);
        img.onerror = () => done(0);
        img.src = url;
        document.body.appendChild(img);
        setTimeout(() => done(-1), 5000);
      }),
    src,
  );

base('the production CSP blocks injected inline scripts', async ({ page }) => {
  const server = await serveRenderer();
  try {
    await page.goto(server.url);
    const outcome = await page.evaluate(async () => {
      const violations: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      const w = window as unknown as { __pwned?: number };
      const script = document.createElement('script');
      script.textContent = 'window.__pwned = 1';
      document.head.appendChild(script);
      const holder = document.createElement('div');
      holder.innerHTML = '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onload="window.__pwned = 2">';
      document.body.appendChild(holder);
      const remote = document.createElement('script');
      remote.src = 'https://evil.example/x.js';
      document.head.appendChild(remote);
      // Until the image has loaded (its inline handler would have run by then) and the policy has
      // reported both the inline script and the remote one.
      const image = holder.querySelector('img')!;
      const reported = (): boolean => violations.some((v) => v.endsWith('inline')) && violations.some((v) => v.includes('evil.example'));
      await new Promise<void>((done) => {
        const check = () => (image.complete && reported() ? done() : requestAnimationFrame(check));
        check();
      });
      return { pwned: w.__pwned ?? null, violations };
    });
    baseExpect(outcome.pwned).toBeNull();
    baseExpect(outcome.violations.some((v) => v.startsWith('script-src') && v.endsWith('inline'))).toBe(true);
    baseExpect(outcome.violations.some((v) => v.includes('evil.example'))).toBe(true);
  } finally {
    await server.close();
  }
});

base('images from the network are refused; previews from the cache load, also with the image host gone', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'letterdesk-csp-'));
  const api = await startSampleApi({ contacts: 10, orders: 120 });
  const db = openCache(join(dir, 'cache.sqlite'));
  let server: Awaited<ReturnType<typeof serveRenderer>> | null = null;
  try {
    // A cache whose orders name the sample templates' thumbnails, refreshed as the sync does.
    const res = await fetch(`${api.baseUrl}/orders/?page=0&pageSize=120`, { headers: { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}` } });
    const thumbnails = [...new Set(((await res.json()) as { data: { rows: { template: { thumbnailUrl: string } }[] } }).data.rows.map((o) => o.template.thumbnailUrl))];
    const insert = db.prepare('INSERT INTO orders (id, template_thumbnail_url, raw) VALUES (?, ?, ?)');
    thumbnails.forEach((url, i) => insert.run(String(i + 1), url, '{}'));
    baseExpect((await refreshPreviews(db, { profileBaseUrl: 'http://127.0.0.1:4100/api/v1' })).stored).toBe(thumbnails.length);

    server = await serveRenderer({ readPreview: (key) => readPreview(db, key) });
    const origin = server.origin;
    // Requests that reached a server, and the ones the browser refused to send.
    const sent: string[] = [];
    const refused: string[] = [];
    page.on('requestfinished', (r) => sent.push(r.url()));
    page.on('requestfailed', (r) => refused.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
    const violations = await recordViolations(page);
    await page.goto(server.url);

    // Remote images: refused by the policy before any request (the sample API is not asked).
    const asked = api.stats().previews;
    baseExpect(await loadImage(page, thumbnails[0] as string)).toBe(0);
    baseExpect(await loadImage(page, 'https://images.example.com/t/1.png')).toBe(0);
    baseExpect(api.stats().previews).toBe(asked);
    const blocked = (await violations()).filter((v) => v.directive === 'img-src').map((v) => v.blocked);
    baseExpect(blocked).toEqual(expect.arrayContaining([thumbnails[0], 'https://images.example.com/t/1.png']));

    // Previews from the cache, through the app's own origin: shown, and shown offline.
    baseExpect(await loadImage(page, previewPath(thumbnails[0] as string))).toBe(120);
    await api.close();
    baseExpect(await loadImage(page, previewPath(thumbnails[1] as string))).toBe(120);
    baseExpect(await loadImage(page, previewPath('https://images.example.com/never-downloaded.png'))).toBe(0);
    baseExpect(api.stats().previews).toBe(asked);
    baseExpect((await violations()).filter((v) => v.blocked.startsWith(origin))).toEqual([]);
    baseExpect(sent.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    baseExpect(refused.filter((r) => !r.startsWith(`${origin}/`)).sort()).toEqual([`${thumbnails[0]} csp`, 'https://images.example.com/t/1.png csp']);
  } finally {
    await server?.close();
    await api.close().catch(() => {});
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every screen of the normal journey renders under the policy without a violation', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  const violations = await recordViolations(page);
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) consoleErrors.push(m.text());
  });
  const rows = (grid: string) => page.locator(`#${grid} [role="row"][aria-rowindex]:not([aria-rowindex="1"])`).filter({ hasNot: page.locator('.skeleton') });

  await app.open();
  await expect(page.getByRole('heading', { name: 'Welcome to Letterdesk' })).toBeVisible();
  await app.exploreSampleData(90_000);

  // Contacts: the virtual table places rows and sizes columns with style: directives.
  await page.keyboard.press('Control+2');
  await expect(rows('contacts-grid').first()).toBeVisible();
  const firstRow = await rows('contacts-grid').nth(1).boundingBox();
  baseExpect(firstRow?.height ?? 0).toBeGreaterThan(10);
  await rows('contacts-grid').first().click();
  await expect(page.getByTestId('detail-panel')).toBeVisible();
  await page.keyboard.press('Escape');

  // Orders and an order detail: its template preview comes from the cache (downloaded by the sync),
  // at the app's own preview/<key>, and opening it asks the image host nothing.
  await page.keyboard.press('Control+3');
  await expect(rows('orders-grid').first()).toBeVisible();
  const previewsServed = app.core.sampleApi.server?.stats().previews ?? -1;
  baseExpect(previewsServed).toBeGreaterThan(0);
  await rows('orders-grid').first().click();
  await expect(page.getByTestId('detail-panel').getByRole('heading', { name: 'Template', level: 3 })).toBeVisible();
  const preview = page.getByTestId('detail-panel').locator('img.thumb');
  await expect(preview).toHaveAttribute('src', /^preview\/[0-9a-f]{32}$/);
  await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  baseExpect(app.core.sampleApi.server?.stats().previews).toBe(previewsServed);
  // The Raw JSON tab: a collapsible tree of details elements and a Copy button, no script or style of its own.
  const detailPanel = page.getByTestId('detail-panel');
  await detailPanel.getByRole('tab', { name: 'Raw JSON' }).click();
  await expect(detailPanel.getByTestId('raw-json')).toContainText('"campaign"');
  await detailPanel.getByTestId('raw-json').locator('details details summary').first().click();
  await detailPanel.getByRole('button', { name: 'Copy' }).click();
  await detailPanel.getByRole('tab', { name: 'Details' }).click();
  await page.keyboard.press('Escape');

  // Templates (the gallery's previews come from the cache too) and Campaigns (bars sized by style:).
  await page.keyboard.press('Control+4');
  const gallery = page.getByRole('list', { name: 'Templates' });
  await expect.poll(() => gallery.locator('img.preview').evaluateAll((all) => all.length > 0 && all.every((i) => (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
  await gallery.locator('button.tcard').first().click();
  await expect(page.getByTestId('template-detail')).toBeVisible();
  await page.keyboard.press('Control+5');
  await expect(page.getByRole('table', { name: 'Campaigns' }).locator('tbody tr').first()).toBeVisible();
  baseExpect(app.core.sampleApi.server?.stats().previews).toBe(previewsServed);

  // Sync, the export dialog with its progress bar, profiles.
  await page.keyboard.press('Control+6');
  await expect(page.getByRole('heading', { name: 'Sync', level: 1 })).toBeVisible();
  await page.keyboard.press('Control+2');
  await page.keyboard.press('Control+e');
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(/Exported [\d,.\s]+ rows/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await page.keyboard.press('Control+7');
  await expect(page.getByRole('heading', { name: 'Profiles', level: 1 })).toBeVisible();
  await page.getByRole('option', { name: /New profile/ }).click();
  await expect(page.getByLabel('Access token')).toBeVisible();

  // Nothing was refused: no style, script, font, connection or image (previews come from the app).
  baseExpect(await violations()).toEqual([]);
  baseExpect(consoleErrors).toEqual([]);
});
