/**
 * The Overview in Chromium with the real handlers and the in-thread sample API: two syncs with the
 * sample API's clock advanced between them. The map's counts equal the sample API's contacts per
 * state, the deliveries chart counts the letters the advance delivered, the status bars name the
 * learned statuses; a bar, a state and a day open their rows; a chart saves as PNG and SVG; the
 * same offline after the sample API stops. Screenshots in both themes at 1360×860 and 1024×700,
 * and at 150 % zoom.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { localDay } from '../../shared/keptFilters.ts';
import { uspsStateCode } from '../../shared/usStates.ts';
import { expect, test } from './harness.ts';
import { allowClipboard, clipboardText, expectAccessible, grid, matchCount, stopSampleApi, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 400, sampleOrders: 200 });

/** A chart's card, by its test id. */
const card = (page: Page, id: string) => page.getByTestId(`chart-${id}`);

/** The rows of a chart's table view as text cells (the header row left out). */
async function tableOf(page: Page, id: string): Promise<string[][]> {
  await card(page, id).getByRole('button', { name: 'Table', exact: true }).click();
  const rows = await card(page, id).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').trim())));
  await card(page, id).getByRole('button', { name: 'Chart', exact: true }).click();
  return rows;
}

const count = (text: string | undefined): number => Number((text ?? '').replace(/[^\d]/g, ''));

test('the overview: the map, the deliveries and the statuses match the sample API, and every mark opens its rows, also offline', async ({ app }) => {
  test.setTimeout(240_000);
  const { page } = app;
  await syncSample(app);
  const server = app.core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');
  const advance = server.dataset.advanceClock(20);
  const delivered = advance.orders.filter((c) => c.field === 'isDelivered' && c.to === true);
  expect(delivered.length).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Sync now' }).first().click();
  await expect(page.getByTestId('status-sync')).toBeVisible();
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 90_000 });

  // The sample API's own record: its contacts per state (by USPS code), after the advance.
  const byState = new Map<string, number>();
  for (const c of server.dataset.contacts()) {
    const code = uspsStateCode(c.state) ?? 'other';
    byState.set(code, (byState.get(code) ?? 0) + 1);
  }

  await page.keyboard.press('Control+1');
  const overview = page.getByTestId('overview');
  await expect(overview.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await expect(overview.getByRole('list', { name: 'Totals' })).toContainText(`Contacts${server.dataset.contactCount.toLocaleString('en-US')}`);
  await expect(overview.getByRole('list', { name: 'Totals' })).toContainText(`Orders${server.dataset.orderCount.toLocaleString('en-US')}`);

  // The map: every state's count, in its table, equals the sample API's.
  const states = await tableOf(page, 'contacts-by-state');
  expect(new Map(states.map((r) => [r[1] || 'other', count(r[2])]))).toEqual(byState);
  await expect(card(page, 'contacts-by-state').locator('path[data-state]')).toHaveCount(51);

  // The deliveries chart: today's bar counts the letters the advance delivered.
  const days = await tableOf(page, 'deliveries');
  const today = days.find((r) => r[1] === localDay(new Date()));
  expect(count(today?.[3])).toBe(delivered.length);

  // Statuses by name (learned from the kept order-status filters).
  const statuses = await tableOf(page, 'orders-by-status');
  expect(statuses.map((r) => r[0])).toContain('Mailed');
  await expectAccessible(page, 'the overview');
  await app.screenshot('overview-01');

  // --- Click-through ------------------------------------------------------------------------------
  const mailed = statuses.find((r) => r[0] === 'Mailed');
  await card(page, 'orders-by-status').getByRole('button', { name: /^Mailed: / }).click();
  await expect(grid(page, 'Orders')).toBeVisible();
  await expect.poll(() => matchCount(page)).toBe(count(mailed?.[2]));
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(overview).toBeVisible();

  const [topCode, topCount] = [...byState].filter(([code]) => code !== 'other').sort((a, b) => b[1] - a[1])[0]!;
  await card(page, 'contacts-by-state').locator(`path[data-state="${topCode}"]`).click();
  await expect(grid(page, 'Contacts')).toBeVisible();
  await expect.poll(() => matchCount(page)).toBe(topCount);
  await page.keyboard.press('Alt+ArrowLeft');

  // A kept service filter opens its members: the contacts with a failed address.
  const failed = overview.getByRole('listitem', { name: 'Address status' }).getByRole('button', { name: /^Failed/ });
  const failedCount = count((await failed.textContent()) ?? '');
  expect(failedCount).toBeGreaterThan(0);
  await failed.click();
  await expect.poll(() => matchCount(page)).toBe(failedCount);
  await page.keyboard.press('Alt+ArrowLeft');

  // A day's bar opens the orders with a letter seen delivered that day (from the table view, as the keyboard reaches it).
  await card(page, 'deliveries').getByRole('button', { name: 'Table', exact: true }).click();
  await card(page, 'deliveries').locator('tbody tr').filter({ hasText: localDay(new Date()) }).getByRole('button').click();
  await expect(page.getByTestId('overview-scope')).toContainText('with a letter a sync saw delivered');
  await expect.poll(() => matchCount(page)).toBe(new Set(delivered.map((d) => d.id)).size);
  await page.keyboard.press('Alt+ArrowLeft');
  await card(page, 'deliveries').getByRole('button', { name: 'Chart', exact: true }).click();

  // --- Save as PNG and SVG; copy as CSV ------------------------------------------------------
  await card(page, 'orders-by-status').getByRole('button', { name: 'Save Orders by status as PNG' }).click();
  await expect(page.getByText(/Saved Orders by status as PNG/)).toBeVisible();
  const png = readFileSync(app.platformLog.savedFiles.at(-1)!);
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  await card(page, 'contacts-by-state').getByRole('button', { name: 'Save Contacts by state as SVG' }).click();
  await expect(page.getByText(/Saved Contacts by state as SVG/)).toBeVisible();
  const svg = readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8');
  expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  expect(svg).toContain('<title>Contacts by state</title>');
  expect(svg).not.toContain('class=');
  await allowClipboard(page);
  await card(page, 'campaigns').getByRole('button', { name: 'Copy Campaigns by delivered letters as CSV' }).click();
  await expect(page.getByText(/Copied Campaigns by delivered letters as CSV/)).toBeVisible();
  const csv = await clipboardText(page);
  expect(csv.split('\r\n')[0]).toBe('"Campaign","Delivered","Recipients","Delivered share"');

  // --- Offline --------------------------------------------------------------------------------
  await stopSampleApi(app.core);
  await app.reload();
  await page.keyboard.press('Control+1');
  await expect(overview.getByRole('list', { name: 'Totals' })).toContainText(`Contacts${server.dataset.contactCount.toLocaleString('en-US')}`);
  expect(new Map((await tableOf(page, 'contacts-by-state')).map((r) => [r[1] || 'other', count(r[2])]))).toEqual(byState);
  await page.setViewportSize({ width: 1024, height: 700 });
  await app.screenshot('overview-02-1024');
  await overview.getByTestId('chart-deliveries').scrollIntoViewIfNeeded();
  await app.screenshot('overview-03-1024-charts');
});

test.describe('at 150 % zoom', () => {
  // A 1536×1050 window at 150 % lays the page out in 1024×700 CSS pixels.
  test.use({ viewport: { width: 1024, height: 700 }, deviceScaleFactor: 1.5 });

  test('the overview’s cards fit the window and nothing in them is cut off', async ({ app }) => {
    test.setTimeout(180_000);
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+1');
    await expect(card(page, 'contacts-by-state').locator('path[data-state]')).toHaveCount(51);
    const overflowing = await page.getByTestId('overview').evaluate((el) =>
      [...el.querySelectorAll<HTMLElement>('section[data-testid^="chart-"], section[data-testid^="chart-"] svg')]
        .filter((node) => node.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map((node) => node.closest('section')?.dataset.testid ?? node.tagName),
    );
    expect(overflowing).toEqual([]);
    await expectAccessible(page, 'the overview at 150 % zoom');
    await app.screenshot('overview-04-zoom150');
  });
});
