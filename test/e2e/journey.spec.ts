/**
 * The whole user journey in Chromium, with the real handlers and the real sample API:
 * first run → sample data → sync with visible progress → search → label filter → contact detail →
 * one of its orders → orders filtered by status → order detail with recipients → the service goes
 * away → offline banner, and the cache keeps answering → the service comes back → sync clears it.
 * Screenshots of every screen in light and dark mode land in test-results/screenshots/.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test, type AppHarness } from './harness.ts';

/**
 * Takes the embedded sample API down and keeps it down: the server is stopped, and requests still go
 * to its old address (refused connections), as they would to a real service that went away.
 * (`core.startSync` otherwise restarts a stopped sample API through `sampleApi.ensure()`.)
 * Returns the function that brings it back.
 */
async function takeSampleApiDown(core: AppHarness['core']): Promise<() => Promise<void>> {
  const api = core.sampleApi as { ensure: () => Promise<string>; stop: () => Promise<void> };
  const ensure = api.ensure.bind(api);
  const baseUrl = await ensure();
  await api.stop();
  api.ensure = async () => baseUrl;
  return async () => {
    api.ensure = ensure;
    await ensure();
  };
}

/** Runs axe on the current screen in light and dark mode; fails on serious or critical violations. */
async function expectAccessible(page: Page, screen: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const result = await new AxeBuilder({ page }).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    const summary = bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
    expect(summary, `axe violations on ${screen} (${colorScheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Rows of a grid that have data (not loading placeholders). */
function dataRows(page: Page, grid: string) {
  return page.locator(`#${grid} [role="row"][aria-rowindex]:not([aria-rowindex="1"])`).filter({ hasNot: page.locator('.skeleton') });
}

async function countText(page: Page): Promise<string> {
  return (await page.getByTestId('match-count').textContent())?.trim() ?? '';
}

function parseCount(text: string): number {
  return Number(text.replace(/[^\d]/g, ''));
}

test('first run, sync, search, filter, details, offline and back', async ({ app }) => {
  test.setTimeout(600_000);
  const { page } = app;
  const started = Date.now();
  const step = (name: string) => console.log(`[journey] ${((Date.now() - started) / 1000).toFixed(1)}s ${name}`);

  // --- First run -------------------------------------------------------------------------------
  await app.open();
  await expect(page.getByRole('heading', { name: 'Welcome to Letterdesk' })).toBeVisible();
  await expectAccessible(page, 'welcome');
  await app.screenshot('01-welcome');
  step('welcome');

  // Slow the sample API down a little so the progress is visible to a person (and to the test); the
  // orders, read after the contacts, slower still, so the window in which contacts are done and
  // orders still downloading stays open for the screenshots however busy the machine is.
  await app.core.sampleApi.ensure();
  app.core.sampleApi.server?.setFaults({ latencyMs: 350, latencyMsByEndpoint: { orders: 2_000 } });
  await page.evaluate(() => {
    const w = window as unknown as { __sawProgress?: boolean };
    w.__sawProgress = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="status-sync"], [role="progressbar"]')) w.__sawProgress = true;
    }).observe(document.body, { subtree: true, childList: true });
  });
  await page.getByRole('button', { name: /Explore with sample data/ }).click();

  // --- Sync with visible progress ----------------------------------------------------------------
  await expect(page.getByTestId('status-sync')).toBeVisible();
  // Orders are synced after contacts: their card says so instead of showing activity.
  await expect(page.getByTestId('sync-progress-orders')).toContainText('Starts after contacts');
  await app.screenshot('02-first-sync-progress');
  // On the orders view, once contacts are in, their card says so while the orders download.
  await page.keyboard.press('Control+3');
  await expect.poll(() => page.getByTestId('sync-progress-contacts').textContent(), { intervals: [25], timeout: 60_000 }).toContain('Done');
  // The contacts are published: counted and browsable while the orders are still being read.
  await expect(page.getByTestId('sync-progress-orders')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Contacts/ })).toContainText(/[1-9]/);
  await app.screenshot('02b-first-sync-contacts-done');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sync', level: 1 })).toBeVisible();
  if (await page.getByTestId('status-sync').isVisible()) await app.screenshot('03-sync-view-running');
  // The kept filters are read after the records, each value through the slowed answers.
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 150_000 });
  expect(await page.evaluate(() => (window as unknown as { __sawProgress?: boolean }).__sawProgress)).toBe(true);
  app.core.sampleApi.server?.setFaults({});
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/);
  await expect(page.getByTestId('resource-contacts')).toContainText(/Last successful sync/);
  await expectAccessible(page, 'sync');
  await app.screenshot('04-sync-view');
  step('synced');

  // --- Contacts ----------------------------------------------------------------------------------
  await page.keyboard.press('Control+2');
  await expect(page.getByRole('grid', { name: 'Contacts' })).toBeVisible();
  await expect(dataRows(page, 'contacts-grid').first()).toBeVisible();
  const allCount = parseCount(await countText(page));
  expect(allCount).toBeGreaterThan(100);
  await expectAccessible(page, 'contacts');
  await app.screenshot('05-contacts');

  // Sort by name and widen the Name column (both remembered per profile, checked after a reload).
  const nameHeader = page.locator('#contacts-grid [role="columnheader"]').first();
  await nameHeader.getByRole('button').click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
  const widthBefore = (await nameHeader.boundingBox())?.width ?? 0;
  const handle = (await nameHeader.locator('.resize').boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 };
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + 80, handle.y + handle.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => (await nameHeader.boundingBox())?.width ?? 0).toBeGreaterThan(widthBefore + 50);
  const widthAfter = (await nameHeader.boundingBox())?.width ?? 0;

  // Search by a name prefix (taken from a row on screen, so the test follows the generated data).
  const firstName = ((await dataRows(page, 'contacts-grid').first().locator('[role="gridcell"]').first().textContent()) ?? '').trim().split(/\s+/)[0] ?? '';
  const prefix = firstName.slice(0, 3);
  expect(prefix.length).toBe(3);
  await page.keyboard.press('Control+f');
  await expect(page.getByRole('searchbox', { name: 'Search contacts' })).toBeFocused();
  await page.keyboard.type(prefix, { delay: 40 });
  await expect.poll(async () => parseCount(await countText(page))).toBeLessThan(allCount);
  const searchCount = parseCount(await countText(page));
  expect(searchCount).toBeGreaterThan(0);
  const names = await dataRows(page, 'contacts-grid').locator('[role="gridcell"]:first-child').allTextContents();
  expect(names.length).toBeGreaterThan(0);
  expect(names.some((n) => n.toLowerCase().includes(prefix.toLowerCase()))).toBe(true);
  await app.screenshot('06-contacts-search');
  step(`search "${prefix}" → ${searchCount}`);

  // Filter by a label (the first offered, with its count).
  const labels = page.getByRole('group', { name: 'Labels' });
  const labelOption = labels.locator('label').first();
  await expect(labelOption).toBeVisible();
  const labelCount = parseCount((await labelOption.locator('.count').textContent()) ?? '0');
  await labelOption.locator('input').check();
  await expect.poll(async () => parseCount(await countText(page))).toBe(labelCount);
  await expect(page.getByRole('button', { name: /Filters/ })).toContainText('1');
  await app.screenshot('07-contacts-label-filter');
  step(`label filter → ${labelCount}`);

  // Keyboard: arrows move the selection, Enter opens the detail, Escape closes it.
  await page.getByRole('grid', { name: 'Contacts' }).focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('#contacts-grid [role="row"][aria-selected="true"]')).toHaveAttribute('aria-rowindex', '3');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('detail-panel')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('detail-panel')).toBeHidden();

  // Clear the label filter, find a contact with orders and open its detail.
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect.poll(async () => parseCount(await countText(page))).toBe(allCount);
  let opened = false;
  for (let i = 0; i < 25 && !opened; i++) {
    await dataRows(page, 'contacts-grid').nth(i).click();
    await expect(page.getByTestId('detail-panel').getByRole('heading', { name: 'Orders', level: 3 })).toBeVisible();
    opened = (await page.getByRole('list', { name: 'Orders of this contact' }).count()) > 0;
  }
  expect(opened, 'one of the first contacts has orders').toBe(true);
  await expect(page.getByTestId('detail-panel')).toContainText('Organisation');
  await expectAccessible(page, 'contact detail');
  await app.screenshot('08-contact-detail');
  step('contact detail');

  // Follow to one of its orders.
  const orderButton = page.getByRole('list', { name: 'Orders of this contact' }).getByRole('button').first();
  const orderId = (await orderButton.getAttribute('data-order-id')) ?? '';
  expect(orderId).not.toBe('');
  await orderButton.click();
  await expect(page.getByRole('grid', { name: 'Orders' })).toBeVisible();
  await expect(page.getByTestId('detail-panel')).toContainText(`#${orderId}`);
  await expect(page.getByRole('grid', { name: 'Recipients of this order' })).toBeVisible();
  await app.screenshot('09-order-detail-from-contact');
  step(`order ${orderId}`);

  // --- Orders filtered by status ------------------------------------------------------------------
  await page.keyboard.press('Escape');
  const allOrders = parseCount(await countText(page));
  const statusOption = page.getByRole('group', { name: 'Status (record code)', exact: true }).locator('label').first();
  const statusCode = ((await statusOption.locator('.opt-label').textContent()) ?? '').trim();
  const statusCount = parseCount((await statusOption.locator('.count').textContent()) ?? '0');
  await statusOption.locator('input').check();
  await expect.poll(async () => parseCount(await countText(page))).toBe(statusCount);
  expect(statusCount).toBeLessThanOrEqual(allOrders);
  const statusCells = await dataRows(page, 'orders-grid').locator('[role="gridcell"][aria-colindex="5"]').allTextContents();
  expect(statusCells.length).toBeGreaterThan(0);
  expect(new Set(statusCells.map((s) => s.trim()))).toEqual(new Set([statusCode]));
  await dataRows(page, 'orders-grid').first().click();
  const recipients = page.getByRole('grid', { name: 'Recipients of this order' });
  await expect(recipients).toBeVisible();
  await expect(recipients.getByRole('columnheader', { name: 'Tracking code' })).toBeVisible();
  await expect(recipients.locator('[role="row"][aria-rowindex="2"] [data-col="tracking"]')).not.toBeEmpty();
  await expect(page.getByTestId('detail-panel')).toContainText(/Campaign/);
  await expect(page.getByTestId('detail-panel')).toContainText(/Postage/);
  await expectAccessible(page, 'orders');
  await app.screenshot('10-orders-status-filter-detail');
  step(`status ${statusCode} → ${statusCount}`);

  // --- Export dialog (opened with Ctrl+E; the file itself is the export module's business) --------
  await page.keyboard.press('Control+e');
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('checkbox', { name: 'Neutralise formulas' })).toBeChecked();
  await expectAccessible(page, 'export dialog');
  await app.screenshot('11-export-dialog');
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(/Exported [\d,.\s]+ rows/)).toBeVisible();
  await app.screenshot('12-export-done');
  await dialog.getByRole('button', { name: 'Show in folder' }).click();
  await expect.poll(() => app.platformLog.shownInFolder.length).toBe(1);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();

  // --- Profiles ----------------------------------------------------------------------------------
  await page.keyboard.press('Control+7');
  await expect(page.getByRole('heading', { name: 'Profiles', level: 1 })).toBeVisible();
  await expectAccessible(page, 'profiles');
  await app.screenshot('13-profiles');
  await page.getByRole('option', { name: /New profile/ }).click();
  await expect(page.getByLabel('Access token')).toHaveAttribute('type', 'password');
  await app.screenshot('14-profile-new');

  // --- The service goes away ------------------------------------------------------------------------
  await page.keyboard.press('Control+2');
  const bringBack = await takeSampleApiDown(app.core);
  await page.keyboard.press('Control+r');
  const banner = page.getByTestId('offline-banner');
  await expect(banner).toBeVisible({ timeout: 60_000 });
  await expect(banner).toContainText(/Offline — showing data from/);
  await expect(page.getByTestId('connectivity')).toContainText(/Offline — showing data from/);
  step('offline');

  // Search, filters and details keep working from the cache.
  const search = page.getByRole('searchbox', { name: 'Search contacts' });
  await search.fill('');
  await expect.poll(async () => parseCount(await countText(page))).toBe(allCount);
  await search.fill(prefix);
  await expect.poll(async () => parseCount(await countText(page))).toBe(searchCount);
  await page.getByRole('group', { name: 'Labels' }).locator('label:has(input[type="checkbox"])').first().locator('input').check();
  await expect.poll(async () => parseCount(await countText(page))).toBeLessThanOrEqual(searchCount);
  await dataRows(page, 'contacts-grid').first().click();
  await expect(page.getByTestId('detail-panel').getByRole('heading', { name: 'Address', level: 3 })).toBeVisible();
  await expectAccessible(page, 'offline');
  await app.screenshot('15-offline-contacts');
  await page.keyboard.press('Control+3');
  await expect(dataRows(page, 'orders-grid').first()).toBeVisible();
  await dataRows(page, 'orders-grid').first().click();
  await expect(page.getByRole('grid', { name: 'Recipients of this order' })).toBeVisible();
  await app.screenshot('16-offline-orders');

  // Export works from the cache too.
  await page.keyboard.press('Control+e');
  const offlineExport = page.getByRole('dialog', { name: 'Export', exact: true });
  await offlineExport.getByRole('button', { name: /Export…/ }).click();
  await expect(offlineExport.getByText(/Exported [\d,.\s]+ rows/)).toBeVisible();
  await offlineExport.getByRole('button', { name: 'Done' }).click();
  await expect(offlineExport).toBeHidden();
  step('offline browsing and export');

  // A search with no match shows the empty state, not an error.
  await page.keyboard.press('Control+f');
  await page.keyboard.type('zzqxv-no-such-order');
  await expect(page.getByText(/No orders match/)).toBeVisible();
  await app.screenshot('17-orders-no-match');
  await page.getByRole('button', { name: 'Clear search and filters' }).click();

  // --- The service comes back ---------------------------------------------------------------------
  await bringBack();
  await banner.getByRole('button', { name: 'Try again' }).click();
  await expect(banner).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/);
  await page.keyboard.press('Control+6');
  // The sync that "Try again" started has ended only when its orders run (after the contacts') is
  // at the top of the history; a sync asked for before that would join it instead of starting.
  await expect(page.locator('.history tbody tr').first()).toContainText(/orders.*Succeeded/i, { timeout: 60_000 });
  await expect(page.locator('.history tbody tr').nth(1)).toContainText(/contacts.*Succeeded/i);
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
  await app.screenshot('18-sync-history-after-offline');
  step('back online');

  // --- One part of a sync fails, the other goes on ------------------------------------------------
  // Every answer for contacts is a server error: after the client's retries their run fails, and it
  // is shown at once (the contacts' card with the error, and a toast) while the orders are still
  // read (each answer takes 1.5 s, so the page can be looked at meanwhile).
  app.core.sampleApi.server?.setFaults({ serverErrorRate: 1, endpoints: ['contacts'], latencyMs: 1_500 });
  await page.keyboard.press('Control+r');
  await expect(page.getByTestId('sync-progress-contacts')).toBeVisible();
  await expect(page.getByTestId('resource-contacts').locator('.c-err')).toContainText(/HTTP 50\d/, { timeout: 60_000 });
  await expect(page.getByTestId('status-sync')).toBeVisible();
  await expect(page.getByTestId('sync-progress-orders')).toBeVisible();
  await expect(page.getByText(/Contacts not updated; the previous copy is kept\. GET \/contacts failed/)).toBeVisible();
  await app.screenshot('18b-sync-contacts-failed-orders-running');
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
  // The contacts keep the copy they had; the orders are new; the next sync clears the error.
  expect(parseCount((await page.getByTestId('resource-contacts').locator('.c-rows').textContent()) ?? '')).toBe(allCount);
  await expect(page.locator('.history tbody tr').first()).toContainText(/orders.*Succeeded/i);
  app.core.sampleApi.server?.setFaults({});
  await page.keyboard.press('Control+r');
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('connectivity')).toContainText(/Online · synced/, { timeout: 60_000 });
  await expect(page.getByTestId('resource-contacts').locator('.c-err')).toHaveCount(0);
  step('contacts failed, orders synced');

  // Clear cache and resync, behind a confirmation.
  expect(await page.locator('.history tbody tr').count()).toBeGreaterThan(2);
  await page.getByRole('button', { name: 'Clear cache and resync…' }).click();
  const confirm = page.getByRole('dialog', { name: 'Clear cache and resync?' });
  await expect(confirm).toBeVisible();
  await expectAccessible(page, 'clear cache confirmation');
  await app.screenshot('19-clear-cache-confirm');
  await confirm.getByRole('button', { name: 'Clear and resync' }).click();
  await expect(confirm).toBeHidden();
  // The history lives in the cache: a fresh cache holds just the two new runs.
  await expect.poll(() => page.locator('.history tbody tr').count(), { timeout: 60_000 }).toBe(2);
  await expect(page.locator('.history tbody tr').filter({ hasText: 'Succeeded' })).toHaveCount(2, { timeout: 60_000 });
  await expect
    .poll(async () => parseCount((await page.getByTestId('resource-contacts').locator('.c-rows').textContent().catch(() => '')) ?? ''), { timeout: 60_000 })
    .toBe(allCount);
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
  step('cleared and resynced');

  // A reload (the app restarting) brings back the last view, the sort and the column width.
  await app.reload();
  await expect(page.getByRole('heading', { name: 'Sync', level: 1 })).toBeVisible();
  await page.keyboard.press('Control+2');
  await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
  expect(Math.abs(((await nameHeader.boundingBox())?.width ?? 0) - widthAfter)).toBeLessThan(2);
  step('settings remembered');
});
