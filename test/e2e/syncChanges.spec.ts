/**
 * The Sync page's counts in Chromium with the real handlers and the in-thread sample API: after a
 * second sync, each resource's card and each run of the history say how many records were added,
 * changed and removed (exactly the edits made to the sample API's orders in between) and how many
 * were kept as invalid (contacts served with schema-violating rows).
 */
import { expect, test } from './harness.ts';
import { expectAccessible, numberIn, syncSample } from './tableSpecs.ts';

test('the Sync page counts added, changed, removed and invalid records per resource and per run', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const server = app.core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');

  // The first sync had no copy to compare with: no changes recorded, nothing invalid.
  await page.keyboard.press('Control+6');
  const history = page.locator('table.history');
  const header = (await history.locator('thead th').allTextContents()).map((t) => t.trim());
  expect(header).toEqual(['Resource', 'Started', 'Duration', 'Outcome', 'Rows', 'Added', 'Changed', 'Removed', 'Invalid', 'Error']);
  const cell = (row: number, name: string) => history.locator('tbody tr').nth(row).locator('td').nth(header.indexOf(name));
  await expect(cell(0, 'Added')).toHaveText('—');
  await expect(cell(0, 'Invalid')).toHaveText('0');
  await expect(page.getByTestId('invalid-orders')).toHaveText('No records kept as invalid');
  await expect(page.getByTestId('changes-orders')).toHaveCount(0);

  // Between the syncs: two orders change, one goes, three are new; some contacts come back broken.
  const ds = server.dataset;
  const [a, b, c] = [...ds.orderIds()].slice(10, 13) as [string, string, string];
  ds.updateOrder(a, { status: 7 });
  ds.updateOrder(b, { isLiveMode: false, status: 8 });
  ds.deleteOrder(c);
  ds.addOrders(3);
  server.setFaults({ invalidRecordRate: 0.05, seed: 3, endpoints: ['contacts'] });

  await page.getByRole('button', { name: 'Sync now' }).first().click();
  await expect(page.getByTestId('status-sync')).toBeVisible();
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 90_000 });

  // The orders' card and the newest orders run: 3 added, 2 changed, 1 removed, none invalid.
  await expect(page.getByTestId('changes-orders')).toHaveText(/Last sync: 3 added · 2 changed · 1 removed/);
  await expect(page.getByTestId('invalid-orders')).toHaveText('No records kept as invalid');
  const runs = history.locator('tbody tr');
  await expect(runs).toHaveCount(4);
  const rowOf = async (resource: string): Promise<number> => {
    for (let i = 0; i < 4; i++) if ((await runs.nth(i).locator('td').first().textContent())?.trim() === resource) return i;
    throw new Error(`no ${resource} run`);
  };
  const orders = await rowOf('orders');
  await expect(cell(orders, 'Added')).toHaveText('3');
  await expect(cell(orders, 'Changed')).toHaveText('2');
  await expect(cell(orders, 'Removed')).toHaveText('1');
  await expect(cell(orders, 'Invalid')).toHaveText('0');

  // Contacts: the broken rows are kept as invalid (and differ from the copy they replaced).
  const contacts = await rowOf('contacts');
  const invalid = numberIn(await cell(contacts, 'Invalid').textContent());
  expect(invalid).toBeGreaterThan(0);
  await expect(page.getByTestId('invalid-contacts')).toHaveText(`${invalid} records kept as invalid`);
  expect(numberIn(await cell(contacts, 'Changed').textContent())).toBeGreaterThanOrEqual(invalid);
  await expect(cell(contacts, 'Added')).toHaveText('0');
  await expect(cell(contacts, 'Removed')).toHaveText('0');
  // The first runs, further down, still have no changes recorded.
  await expect(cell(3, 'Changed')).toHaveText('—');

  await expectAccessible(page, 'the Sync page with changes');
  await app.screenshot('53-sync-changes');
});
