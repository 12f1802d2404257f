/**
 * The contacts table as a mailing list, in Chromium with the real handlers and the sample API:
 * after the sync the service stops, and the Address, Times mailed and Last order columns show what
 * the service's own orders say (counted here from the sample data); they sort, the pane's "Times
 * mailed" group filters ("Never mailed", "At least 2 times") with as many rows as the
 * sample data has, and the detail lists the contact's mailings. Screenshots of the columns and the
 * pane in both themes at 1360×860 and 1024×700.
 */
import { expect, test } from './harness.ts';
import { cellOf, expectAccessible, grid, headerTitles, matchCount, rowAt, stopSampleApi, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 600, sampleOrders: 240 });

test('Address, Times mailed and Last order: shown, sorted and filtered offline', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  // How many of the service's orders list each contact, counted from the sample data itself.
  const dataset = app.core.sampleApi.server!.dataset;
  const mailed = new Map<string, Set<string>>();
  for (let i = 0; i < dataset.orderCount; i++) {
    const order = dataset.orderAt(i);
    for (const r of order.contacts) mailed.set(r.contact.id, (mailed.get(r.contact.id) ?? new Set()).add(order.id));
  }
  const contactIds = [...dataset.contactIds()];
  const times = (id: string) => mailed.get(id)?.size ?? 0;
  const most = Math.max(...contactIds.map(times));
  const never = contactIds.filter((id) => times(id) === 0).length;
  const twice = contactIds.filter((id) => times(id) >= 2).length;
  expect(most).toBeGreaterThanOrEqual(2);
  expect(never).toBeGreaterThan(0);
  await stopSampleApi(app.core);

  const table = grid(page, 'Contacts');
  const titles = await headerTitles(table);
  for (const t of ['Address', 'Times mailed', 'Last order']) expect(titles).toContain(t);
  await expect(rowAt(table, 0).locator('.skeleton')).toHaveCount(0);
  const first = dataset.contactAt(0);
  await expect(cellOf(rowAt(table, 0), 'address')).toHaveText(first.address1);
  await expect(cellOf(rowAt(table, 0), 'timesMailed')).toHaveText(String(times(first.id)));

  // --- Sorted: the most mailed first; by address in order ------------------------------------------
  const header = (title: string) => table.getByRole('columnheader', { name: title, exact: true });
  await header('Times mailed').getByRole('button').click();
  await expect(header('Times mailed')).toHaveAttribute('aria-sort', 'ascending');
  await expect(cellOf(rowAt(table, 0), 'timesMailed')).toHaveText('0');
  await expect(cellOf(rowAt(table, 0), 'lastOrder')).toHaveText('Never');
  await header('Times mailed').getByRole('button').click();
  await expect(header('Times mailed')).toHaveAttribute('aria-sort', 'descending');
  await expect(cellOf(rowAt(table, 0), 'timesMailed')).toHaveText(String(most));
  await expect(cellOf(rowAt(table, 0), 'lastOrder')).not.toHaveText('Never');
  await app.screenshot('mailing-01-most-mailed');
  await header('Address').getByRole('button').click();
  await expect(header('Address')).toHaveAttribute('aria-sort', 'ascending');
  // The rows of the new order replace the old ones once their page arrives.
  const addresses = () => Promise.all([0, 1, 2, 3].map((i) => cellOf(rowAt(table, i), 'address').textContent()));
  await expect.poll(async () => {
    const shown = await addresses();
    return shown.join('|') === [...shown].sort((a, b) => (a ?? '').localeCompare(b ?? '')).join('|');
  }).toBe(true);

  // --- Filtered in the pane: never mailed, mailed at least twice -----------------------------------
  const group = page.getByRole('complementary', { name: 'Contact filters' }).getByRole('group', { name: 'Times mailed', exact: true });
  await expect(group.getByRole('checkbox', { name: `Never mailed ${never.toLocaleString('en-US')}` })).toBeVisible();
  await group.getByRole('checkbox', { name: /^Never mailed / }).check();
  await expect.poll(() => matchCount(page)).toBe(never);
  await expect(cellOf(rowAt(table, 0), 'timesMailed')).toHaveText('0');
  await group.getByRole('checkbox', { name: /^At least 2 times / }).check();
  // One choice at a time: "at least 2" replaces "never".
  await expect(group.getByRole('checkbox', { name: /^Never mailed / })).not.toBeChecked();
  await expect.poll(() => matchCount(page)).toBe(twice);
  await expectAccessible(page, 'the mailing-list columns');
  await app.screenshot('mailing-02-mailed-twice');

  // --- The detail lists the contact's mailings, as the row does ------------------------------------
  const rowTimes = await cellOf(rowAt(table, 0), 'timesMailed').textContent();
  await rowAt(table, 0).click();
  const mailings = page.getByTestId('detail-panel').locator('h3:has-text("Mailings") + dl');
  await expect(mailings).toContainText(`Times mailed${rowTimes}`);
  await expect(mailings).toContainText(/Last order\s*first seen /);

  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(cellOf(rowAt(table, 0), 'timesMailed')).toBeVisible();
  await app.screenshot('mailing-03-1024');
});
