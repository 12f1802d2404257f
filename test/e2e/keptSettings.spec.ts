/**
 * Choosing the kept service filters on the Profiles page, in Chromium with the real handlers and
 * the sample API: after the first sync each filter says its cost per sync in requests and minutes;
 * unticking a value lowers it, a preset never read is estimated, a typed value joins the list; the
 * save reaches the cache, the filter pane lists what is kept, and the switch turns the reads off in
 * the profile. A custom range of days is asked of the service and kept as a saved view, and
 * offline the dialog says it needs the service. Screenshots in both themes at 1360×860 and 1024×700.
 */
import type { Locator } from '@playwright/test';
import { localDay } from '../../shared/keptFilters.ts';
import { addDays } from '../../shared/serviceParams.ts';
import { expect, test } from './harness.ts';
import { expectAccessible, numberIn, serviceCount, stopSampleApi, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 600, sampleOrders: 200 });

/** The requests a cost cell says ("about 1,234 requests · under 1 min" → 1234). */
async function requestsIn(cell: Locator): Promise<number> {
  return numberIn((await cell.textContent())?.match(/([\d,]+) requests?/)?.[1] ?? null);
}

test('the kept filters and their cost per sync: change them, save, and the pane follows', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const profile = app.core.profiles.active()!;
  await page.keyboard.press('Control+7');
  const settings = page.getByTestId('kept-settings');
  await expect(settings.getByRole('heading', { name: 'Service filters kept offline' })).toBeVisible();

  // Every default was read by the sync: its cost is counted, not estimated.
  const address = settings.getByTestId('kept-addressStatus');
  const addressCost = settings.getByTestId('kept-cost-addressStatus');
  await expect(addressCost).toHaveText(/^\d[\d,]* requests? · (under 1 min|≈ \d+ min)$/);
  const before = await requestsIn(addressCost);
  expect(before).toBeGreaterThanOrEqual(3);
  await expect(settings.getByTestId('kept-cost-sources')).toHaveText('Nothing kept');

  // Unticking a value takes its requests off; a preset never read is estimated.
  await address.getByRole('checkbox', { name: 'Verified' }).uncheck();
  await expect.poll(() => requestsIn(addressCost)).toBeLessThan(before);
  const dates = settings.getByTestId('kept-lastMailedDate');
  await dates.getByRole('checkbox', { name: 'Last 90 days' }).check();
  await expect(settings.getByTestId('kept-cost-lastMailedDate')).toHaveText(/^about \d[\d,]* requests/);
  await expect(settings.getByTestId('kept-total')).toHaveText(/^Every sync: about [\d,]+ requests · .* at the last sync’s pace\.$/);

  // A typed value: one the filter cannot keep is refused beside its box, a good one joins the list.
  const lastMailed = settings.getByTestId('kept-lastMailedStatus');
  const box = lastMailed.getByRole('textbox', { name: 'Another value of Last mailed' });
  await box.fill('   ');
  await box.press('Enter');
  await expect(lastMailed.getByText('Type a value first.')).toBeVisible();
  await expect(box).toHaveAttribute('aria-invalid', 'true');
  await box.fill('Returned to sender');
  await lastMailed.getByRole('button', { name: 'Add' }).click();
  await expect(lastMailed.getByRole('checkbox', { name: 'Returned to sender' })).toBeChecked();
  await expect(box).toHaveValue('');
  await expectAccessible(page, 'the kept filters setting');
  await app.screenshot('kept-settings-01-edited');
  await page.setViewportSize({ width: 1024, height: 700 });
  await settings.scrollIntoViewIfNeeded();
  await app.screenshot('kept-settings-02-edited-1024');
  await page.setViewportSize({ width: 1360, height: 860 });

  await settings.getByRole('button', { name: 'Save kept filters' }).click();
  await expect(page.getByText(/^Kept filters saved/)).toBeVisible();
  await expect(settings.getByRole('button', { name: 'Save kept filters' })).toBeDisabled();
  const kept = await app.core.caches.keptFilters(profile);
  const valuesOf = (param: string) => kept.filter((k) => k.param === param).map((k) => k.value);
  expect(valuesOf('addressStatus')).toEqual(['Failed', 'Corrected']);
  expect(valuesOf('lastMailedDate')).toEqual(['30d', '90d']);
  expect(valuesOf('lastMailedStatus')).toEqual(['Returned to sender']);

  // The filter pane lists what is kept now; the new values wait for the next sync.
  await page.keyboard.press('Control+2');
  const pane = page.getByRole('complementary', { name: 'Contact filters' });
  const statusGroup = pane.getByRole('group', { name: 'Address status', exact: true });
  await expect(statusGroup.getByRole('checkbox', { name: /^Failed [\d,]+$/ })).toBeVisible();
  await expect(statusGroup.getByRole('checkbox', { name: /^Verified/ })).toHaveCount(0);
  // Never read yet: its count is not known, so it says so rather than 0.
  const dates90 = pane.getByRole('group', { name: 'Last mailed date', exact: true }).getByRole('checkbox', { name: /^Last 90 days/ });
  await expect(dates90).toBeVisible();
  await expect(dates90).toHaveAccessibleName('Last 90 days —');
  await expect(pane.getByRole('group', { name: 'Last mailed date', exact: true }).getByRole('checkbox', { name: /^Last 30 days [\d,]+$/ })).toBeVisible();

  // The switch is the profile's own setting.
  await page.keyboard.press('Control+7');
  await settings.getByRole('checkbox', { name: 'Read the kept filters after each sync' }).uncheck();
  await expect.poll(() => app.core.profiles.get(profile.id)?.keptFilters).toBe(false);
  await expect(settings.getByText(/^Off: the filter pane shows what was read last/)).toBeVisible();
});

test('a custom range of days that is not kept asks the service once and is kept as a view; offline it says it needs the service', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const baseUrl = await app.core.sampleApi.ensure();
  const today = localDay(new Date());
  const range = { startDate: addDays(today, -89), endDate: addDays(today, -31) };
  const expected = await serviceCount(baseUrl, 'contacts', { lastMailedDate: range });
  expect(expected).toBeGreaterThan(0);

  const pane = page.getByRole('complementary', { name: 'Contact filters' });
  await pane.getByRole('button', { name: 'Custom range…' }).click();
  const dialog = page.getByTestId('range-dialog');
  await expect(dialog.getByRole('heading', { name: 'Last mailed date: custom range' })).toBeVisible();
  await expect(dialog.getByTestId('range-offline')).toHaveCount(0);
  // Nothing given: said, nothing saved.
  await dialog.getByRole('button', { name: 'Save as view' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(/Give a first day, a last day or both/);
  await dialog.getByLabel('First day').fill(range.startDate);
  await dialog.getByLabel('Last day').fill(range.endDate);
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await app.screenshot('kept-settings-03-custom-range');
  await dialog.getByRole('button', { name: 'Save as view' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('view-as-of')).toContainText(/Members as of .*\d/, { timeout: 60_000 });
  await expect.poll(async () => numberIn(await page.getByTestId('match-count').textContent())).toBe(expected);
  const views = await app.core.views.list(app.core.activeProfile(), 'contacts');
  expect(views.map((v) => v.serviceQuery)).toEqual([{ lastMailedDate: range }]);

  // Offline the same question needs the service: the dialog says so before anything is saved.
  await stopSampleApi(app.core);
  app.core.connectivity.failed(app.core.activeProfile().id, 'NETWORK_UNREACHABLE', 'The service cannot be reached.');
  await page.keyboard.press('Control+2');
  await pane.getByRole('button', { name: 'Custom range…' }).click();
  await expect(dialog.getByTestId('range-offline')).toContainText('this needs the service');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});
