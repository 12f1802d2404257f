/**
 * The Templates and Campaigns views in Chromium with the real handlers and the in-thread sample
 * API: the gallery with the previews the sync stored, its search, its detail and the orders it
 * opens, the campaigns table and the orders a campaign opens, both exported as CSV and checked
 * against the sample API's own orders; then the sample API is taken down and the same previews
 * show from the cache. Throughout, the page asks nothing of any host but the app's own origin.
 */
import { readFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import type { AppHarness } from './harness.ts';
import { expect, test } from './harness.ts';
import { expectAccessible, grid, numberIn, parseTsv, syncSample } from './tableSpecs.ts';

/**
 * Takes the sample API down and keeps it down: requests go to its old address and are refused, as
 * they would be by a service that went away (`ensure` would otherwise start it again).
 */
async function takeSampleApiDown(app: AppHarness): Promise<void> {
  const api = app.core.sampleApi as { ensure: () => Promise<string>; stop: () => Promise<void> };
  const baseUrl = await api.ensure();
  await api.stop();
  api.ensure = async () => baseUrl;
}

/** Records every request the page makes: its URL. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  return urls;
}

/** The requests that left the app's own origin (anything but it and `data:`). */
function foreign(urls: string[], page: Page): string[] {
  const own = new URL(page.url()).origin;
  return urls.filter((u) => !u.startsWith('data:') && new URL(u).origin !== own);
}

/** The number the view's header says it lists. */
async function summaryCount(page: Page): Promise<number> {
  return numberIn(await page.getByTestId('summary-count').textContent());
}

/** Whether every preview image in `scope` has loaded with real pixels; returns how many there are. */
async function loadedPreviews(scope: Locator): Promise<number> {
  const imgs = scope.locator('img.preview');
  await expect.poll(() => imgs.evaluateAll((all) => all.length > 0 && all.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0))).toBe(true);
  return imgs.count();
}

/** The sample dataset's orders grouped by template id and by campaign id (the service's own data). */
function groups(app: AppHarness): { templates: Map<string, number>; campaigns: Map<string, { orders: number; recipients: number; delivered: number }> } {
  const server = app.core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');
  const templates = new Map<string, number>();
  const campaigns = new Map<string, { orders: number; recipients: number; delivered: number }>();
  const ds = server.dataset;
  for (const order of ds.orders()) {
    const t = String(order.template.id);
    templates.set(t, (templates.get(t) ?? 0) + 1);
    const c = String(order.campaign.id);
    const g = campaigns.get(c) ?? { orders: 0, recipients: 0, delivered: 0 };
    g.orders += 1;
    g.recipients += order.contacts.length;
    g.delivered += order.contacts.filter((r) => r.isDelivered).length;
    campaigns.set(c, g);
  }
  return { templates, campaigns };
}

test('templates and campaigns: gallery with previews, details, orders, CSV, offline, no remote request', async ({ app }) => {
  test.setTimeout(240_000);
  const { page } = app;
  const requests = recordRequests(page);
  await syncSample(app);
  const truth = groups(app);
  const previewsServed = app.core.sampleApi.server?.stats().previews ?? -1;
  expect(previewsServed).toBeGreaterThan(0);

  // --- Templates: Ctrl+4, as the sidebar says -------------------------------------------------
  const sidebar = page.getByRole('navigation', { name: 'Main' });
  await expect(sidebar.getByRole('button', { name: 'Templates' })).toHaveAttribute('title', 'Templates (Ctrl+4)');
  await expect(sidebar.getByRole('button', { name: 'Campaigns' })).toHaveAttribute('title', 'Campaigns (Ctrl+5)');
  // The shortcuts sheet says the same.
  await page.keyboard.press('Control+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  const keyOf = async (what: string) => (await sheet.locator('dd', { hasText: new RegExp(`^${what}$`) }).locator('xpath=preceding-sibling::dt[1]').textContent())?.trim();
  expect([await keyOf('Templates'), await keyOf('Campaigns')]).toEqual(['Ctrl+4', 'Ctrl+5']);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+4');
  await expect(page.getByRole('heading', { name: 'Templates', level: 1 })).toBeVisible();
  const gallery = page.getByRole('list', { name: 'Templates' });
  await expect(gallery.getByRole('listitem').first()).toBeVisible();
  const cards = gallery.locator('button.tcard');
  expect(await summaryCount(page)).toBe(truth.templates.size);
  await expect(cards).toHaveCount(truth.templates.size);
  // Every template of the sample data has a stored preview, and each shows from the app's origin.
  expect(await loadedPreviews(gallery)).toBe(truth.templates.size);
  for (const src of await gallery.locator('img.preview').evaluateAll((all) => all.map((i) => i.getAttribute('src')))) expect(src).toMatch(/^preview\/[0-9a-f]{32}$/);
  await expectAccessible(page, 'templates');
  await app.screenshot('50-templates');

  // The card's counts are the service's: the orders of that template.
  const firstTitle = (await cards.first().locator('.t-title').textContent())?.trim() ?? '';
  const firstOrders = numberIn(await cards.first().locator('.t-counts span').first().textContent());
  expect(firstOrders).toBeGreaterThan(0);

  // Arrow keys move between the cards: right to the next, down a row of the grid, Home back.
  await cards.first().focus();
  await page.keyboard.press('ArrowRight');
  await expect(cards.nth(1)).toBeFocused();
  const perRow = await cards.evaluateAll((all) => all.filter((c) => c.getBoundingClientRect().top === all[0]?.getBoundingClientRect().top).length);
  await page.keyboard.press('ArrowDown');
  await expect(cards.nth(1 + perRow)).toBeFocused();
  await page.keyboard.press('Home');
  await expect(cards.first()).toBeFocused();

  // Search: the typed words narrow the gallery; Arrow down goes to the first card.
  await page.keyboard.press('Control+f');
  await expect(page.getByRole('searchbox', { name: 'Search templates' })).toBeFocused();
  await page.keyboard.type(firstTitle);
  await expect.poll(() => summaryCount(page)).toBeLessThan(truth.templates.size);
  await expect(cards.first().locator('.t-title')).toHaveText(firstTitle);
  await page.keyboard.press('ArrowDown');
  await expect(cards.first()).toBeFocused();

  // Arrow keys move between the cards (here the one match, so they stay on it).
  await page.keyboard.press('ArrowRight');
  await expect(cards.first()).toBeFocused();

  // Enter opens the detail: the preview, the facts and the template's orders.
  await page.keyboard.press('Enter');
  const detail = page.getByTestId('template-detail');
  await expect(detail.getByRole('heading', { name: firstTitle, level: 2 })).toBeVisible();
  await expect.poll(() => detail.locator('img.d-preview').evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  const orderButtons = detail.getByRole('list', { name: `Orders of ${firstTitle}` }).getByRole('button');
  await expect(orderButtons).toHaveCount(Math.min(firstOrders, 200));
  await expectAccessible(page, 'a template’s detail');
  await app.screenshot('51-template-detail');
  // Escape closes it and the focus goes back to the card.
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
  await expect(cards.first()).toBeFocused();

  // An order of the template opens in Orders, its detail open; Back returns to the gallery.
  await page.keyboard.press('Enter');
  const orderId = ((await orderButtons.first().locator('.o-id').textContent()) ?? '').replace('#', '').trim();
  expect(orderId).toMatch(/^\d+$/);
  await orderButtons.first().click();
  await expect(page.getByRole('heading', { name: 'Orders', level: 1 })).toBeVisible();
  await expect(page.getByTestId('detail-panel')).toContainText(orderId);
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByRole('heading', { name: 'Templates', level: 1 })).toBeVisible();

  // "Show all in Orders": the orders view limited to the template, named in its strip.
  await cards.first().click();
  await detail.getByRole('button', { name: /^Show all .* in Orders$/ }).click();
  await expect(page.getByTestId('summary-scope')).toContainText(firstTitle);
  await expect.poll(async () => numberIn(await page.getByTestId('match-count').textContent())).toBe(firstOrders);
  await page.getByTestId('summary-scope').getByRole('button', { name: 'Show all orders' }).click();
  await expect(page.getByTestId('summary-scope')).toBeHidden();

  // Export: the templates view's rows (its search applied) as CSV, one row per template.
  await page.keyboard.press('Control+4');
  await page.getByRole('searchbox', { name: 'Search templates' }).fill('');
  await expect.poll(() => summaryCount(page)).toBe(truth.templates.size);
  await page.keyboard.press('Control+e');
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog.getByRole('radio', { name: 'Templates', exact: true })).toBeChecked();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(`Exported ${truth.templates.size} rows`)).toBeVisible();
  const [header, ...rows] = parseTsv(readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8'), ',');
  expect(header?.slice(0, 2)).toEqual(['Template ID', 'Template']);
  const ordersAt = header?.indexOf('Orders') ?? -1;
  expect(new Map(rows.map((r) => [r[0], Number(r[ordersAt])]))).toEqual(truth.templates);
  await dialog.getByRole('button', { name: 'Done' }).click();

  // --- Campaigns: Ctrl+5 ------------------------------------------------------------------------
  await page.keyboard.press('Control+5');
  await expect(page.getByRole('heading', { name: 'Campaigns', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: 'Campaigns' });
  await expect(table.locator('tbody tr').first()).toBeVisible();
  expect(await summaryCount(page)).toBe(truth.campaigns.size);
  await expectAccessible(page, 'campaigns');
  await app.screenshot('52-campaigns');
  // Sorting by a header: most orders first, as the service's data says.
  await table.getByRole('button', { name: 'Orders', exact: true }).click();
  await table.getByRole('button', { name: 'Orders', exact: true }).click();
  await expect(table.getByRole('columnheader', { name: 'Orders', exact: true })).toHaveAttribute('aria-sort', 'descending');
  const most = Math.max(...[...truth.campaigns.values()].map((g) => g.orders));
  await expect(table.locator('tbody tr').first().locator('td').nth(3)).toHaveText(String(most));
  // A campaign opens its orders.
  const campaignName = (await table.locator('tbody tr').first().locator('.c-name').textContent())?.trim() ?? '';
  await table.locator('tbody tr').first().getByRole('button').click();
  await expect(page.getByTestId('summary-scope')).toContainText(campaignName);
  await expect.poll(async () => numberIn(await page.getByTestId('match-count').textContent())).toBe(most);
  await expect(grid(page, 'Orders')).toBeVisible();

  // Export of the campaigns: counts and delivered share as the service's orders say.
  await page.keyboard.press('Control+5');
  await page.keyboard.press('Control+e');
  await expect(dialog.getByRole('radio', { name: 'Campaigns', exact: true })).toBeChecked();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(`Exported ${truth.campaigns.size} rows`)).toBeVisible();
  const [cHeader, ...cRows] = parseTsv(readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8'), ',');
  const col = (name: string) => cHeader?.indexOf(name) ?? -1;
  const exported = new Map(cRows.map((r) => [r[0], { orders: Number(r[col('Orders')]), recipients: Number(r[col('Recipients')]), delivered: Number(r[col('Delivered')]) }]));
  expect(exported).toEqual(truth.campaigns);
  await dialog.getByRole('button', { name: 'Done' }).click();

  // --- Offline: the sample API (also the previews' host) is gone; the same previews show ---------
  await takeSampleApiDown(app);
  await app.reload();
  await page.keyboard.press('Control+4');
  await expect(page.getByRole('heading', { name: 'Templates', level: 1 })).toBeVisible();
  expect(await loadedPreviews(page.getByRole('list', { name: 'Templates' }))).toBe(truth.templates.size);
  await cards.first().click();
  await expect.poll(() => detail.locator('img.d-preview').evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  await page.keyboard.press('Control+5');
  await expect(table.locator('tbody tr')).toHaveCount(truth.campaigns.size);
  // The image host was asked only by the sync, never by the page.
  expect(app.core.sampleApi.server?.stats().previews ?? previewsServed).toBe(previewsServed);

  // Not one request of the page left the app's own origin.
  expect(requests.length).toBeGreaterThan(0);
  expect(foreign(requests, page)).toEqual([]);
});

test('before the first sync the Templates and Campaigns views say where their rows come from', async ({ app }) => {
  const { page } = app;
  const acme = app.core.profiles.save({ name: 'Acme', environment: 'custom', baseUrl: 'https://acme.example.com/api/v1', accountId: null, pageSize: 100 });
  app.core.profiles.use(acme.id);
  await app.open();
  await page.keyboard.press('Control+4');
  await expect(page.getByText('No templates yet: they come with the orders. Sync to download them.')).toBeVisible();
  await expect(page.getByTestId('summary-count')).toHaveText('0 templates');
  await expectAccessible(page, 'templates, nothing synced');
  await app.screenshot('55-templates-empty');
  await page.keyboard.press('Control+5');
  await expect(page.getByText('No campaigns yet: they come with the orders. Sync to download them.')).toBeVisible();
  await expectAccessible(page, 'campaigns, nothing synced');
});
