/**
 * The service's filters in the filter pane, in Chromium with the real handlers and the sample
 * API: after "Explore with sample data" the sync reads the kept filters; the sample API then
 * stops, and each weekly question is one click — failed addresses, mailed in the last 30 days,
 * unpaid orders, orders on hold — with as many rows as the sample API returned for the same query
 * while it answered. The pane says the answers are the service's, as of its read, and the status
 * codes read as the statuses the service returned their orders under. Screenshots of
 * the pane in both themes at 1360×860 and 1024×700.
 */
import type { Page } from '@playwright/test';
import { localDay, presetRange } from '../../shared/keptFilters.ts';
import { expect, test } from './harness.ts';
import { expectAccessible, grid, matchCount, serviceCount, stopSampleApi, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 900, sampleOrders: 300 });

/** The checkbox of `option` in the pane's group `group`. */
function option(page: Page, group: string, option: string) {
  return page.getByRole('group', { name: group, exact: true }).getByRole('checkbox', { name: new RegExp(`^${option} [\\d,]+$`) });
}

test('failed addresses, mailed in the last 30 days, unpaid and on-hold orders: one click each, offline', async ({ app }) => {
  test.setTimeout(240_000);
  const { page } = app;
  await syncSample(app);
  const baseUrl = await app.core.sampleApi.ensure();
  const today = localDay(new Date());
  const expected = {
    failed: await serviceCount(baseUrl, 'contacts', { addressStatus: ['Failed'] }),
    recent: await serviceCount(baseUrl, 'contacts', { lastMailedDate: presetRange('30d', today) }),
    failedRecent: await serviceCount(baseUrl, 'contacts', { addressStatus: ['Failed'], lastMailedDate: presetRange('30d', today) }),
    paymentFailed: await serviceCount(baseUrl, 'orders', { paymentStatus: ['PAYMENT_FAILED'] }),
    onHold: await serviceCount(baseUrl, 'orders', { orderStatus: ['ON_HOLD'] }),
  };
  for (const [question, n] of Object.entries(expected)) expect(n, question).toBeGreaterThan(0);
  await stopSampleApi(app.core);

  // --- Contacts: failed addresses, mailed lately -----------------------------------------------
  const filters = page.getByRole('complementary', { name: 'Contact filters' });
  await expect(filters.getByRole('group', { name: 'Address status', exact: true })).toBeVisible();
  await expect(filters.getByText(/^From the service, as of /).first()).toBeVisible();
  await expect(filters.getByRole('group', { name: 'Verified (record flag)', exact: true })).toBeVisible();
  const all = await matchCount(page);
  await option(page, 'Address status', 'Failed').check();
  await expect.poll(() => matchCount(page)).toBe(expected.failed);
  await expect(grid(page, 'Contacts').locator('[role="row"][aria-rowindex="2"] .skeleton')).toHaveCount(0);
  await option(page, 'Last mailed date', 'Last 30 days').check();
  await expect.poll(() => matchCount(page)).toBe(expected.failedRecent);
  await expect(filters.getByText(/days counted to /)).toBeVisible();
  await app.screenshot('kept-01-contacts-failed-recent');
  await expectAccessible(page, 'kept filters (contacts)');
  await option(page, 'Address status', 'Failed').uncheck();
  await expect.poll(() => matchCount(page)).toBe(expected.recent);
  await option(page, 'Last mailed date', 'Last 30 days').uncheck();
  await expect.poll(() => matchCount(page)).toBe(all);

  // --- Orders: unpaid, on hold -------------------------------------------------------------------
  await page.keyboard.press('Control+3');
  await expect(page.getByRole('group', { name: 'Payment', exact: true })).toBeVisible();
  await option(page, 'Payment', 'Payment failed').check();
  await expect.poll(() => matchCount(page)).toBe(expected.paymentFailed);
  await option(page, 'Payment', 'Payment failed').uncheck();
  await option(page, 'Order status', 'On hold').check();
  await expect.poll(() => matchCount(page)).toBe(expected.onHold);
  // The code of these orders is named by the status the service returned them under.
  const codes = page.getByRole('group', { name: 'Status (record code)', exact: true });
  await expect(codes.getByRole('checkbox')).toHaveCount(1);
  await expect(codes.getByRole('checkbox', { name: /^On hold [\d,]+$/ })).toBeVisible();
  await expect(grid(page, 'Orders').locator('[role="row"][aria-rowindex="2"]')).toContainText('On hold');
  await app.screenshot('kept-02-orders-on-hold');

  // --- 1024×700: the pane is a drawer over the table ------------------------------------------------
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.keyboard.press('Control+2');
  await expect(grid(page, 'Contacts')).toBeVisible();
  const filtersButton = page.getByRole('button', { name: /^Filters/ });
  if ((await filtersButton.getAttribute('aria-pressed')) !== 'true') await filtersButton.click();
  await expect(filters).toBeVisible();
  await option(page, 'Address status', 'Failed').check();
  await expect.poll(() => matchCount(page)).toBe(expected.failed);
  await app.screenshot('kept-03-narrow-pane');
});
