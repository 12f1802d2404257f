/**
 * The observed history in Chromium with the real handlers and the in-thread sample API: two syncs
 * with the sample API's clock advanced between them (statuses progress, recipients get delivered,
 * addresses change). An order's detail tells its timeline in words and gives a delivered
 * recipient the day its delivery was seen; a contact's detail lists its address change; the Sync
 * page says what the history kept. The same offline, after the sample API stops. Screenshots in
 * both themes at 1360×860 and 1024×700.
 */
import { expect, test } from './harness.ts';
import { expectAccessible, grid, stopSampleApi, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 400, sampleOrders: 200 });

test('an order’s and a contact’s detail tell what syncs saw change, also offline', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const server = app.core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');
  const advance = server.dataset.advanceClock(20);
  const delivered = advance.orders.find((c) => c.field === 'isDelivered' && c.to === true);
  const moved = advance.contacts.find((c) => c.field === 'address1');
  if (!delivered || !moved) throw new Error('the advance delivered no letter or moved nobody');
  const statusChange = advance.orders.find((c) => c.id === delivered.id && c.field === 'status');

  await page.getByRole('button', { name: 'Sync now' }).first().click();
  await expect(page.getByTestId('status-sync')).toBeVisible();
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 90_000 });
  await page.keyboard.press('Control+6');
  await expect(page.getByTestId('history-orders')).toHaveText(/^History: [\d,]+ changes? kept( \(the file grew [\d.,]+ k?B\))?$/);

  async function openOrder(): Promise<void> {
    await page.keyboard.press('Control+3');
    await page.getByRole('searchbox', { name: 'Search orders' }).fill(delivered!.id);
    const row = grid(page, 'Orders').getByRole('row').filter({ hasText: delivered!.id });
    await expect(row).toHaveCount(1);
    await row.click();
    await expect(page.getByTestId('detail-panel')).toContainText(`#${delivered!.id}`);
  }
  await openOrder();
  const panel = page.getByTestId('detail-panel');
  const history = panel.getByRole('list', { name: 'Observed changes, newest first' });
  const recipients = panel.getByRole('grid', { name: 'Recipients of this order' });
  await expect(history).toContainText(/delivered\s+between/);
  if (statusChange) await expect(history).toContainText('→');
  // The delivered recipient's cell gives the day the sync saw it.
  await expect(recipients).toContainText(/Yes · \w/);
  await panel.getByRole('heading', { name: /^History/ }).scrollIntoViewIfNeeded();
  await expectAccessible(page, 'an order’s observed history');
  await app.screenshot('history-01-order');

  // A contact that moved: its detail lists the address change.
  await page.keyboard.press('Control+2');
  await page.getByRole('searchbox', { name: 'Search contacts' }).fill(String(moved.to));
  const contactRow = grid(page, 'Contacts').getByRole('row').filter({ hasText: String(moved.to) });
  await expect(contactRow.first()).toBeVisible();
  await contactRow.first().click();
  const contactHistory = panel.getByRole('list', { name: 'Observed changes, newest first' });
  // One entry for the move ("Moved: old street · city → new street · city" when more than the street changed).
  await expect(contactHistory.getByRole('listitem').first()).toContainText(new RegExp(`(Moved|Address): ${String(moved.from).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.* → ${String(moved.to).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await contactHistory.scrollIntoViewIfNeeded();
  await app.screenshot('history-02-contact');

  // Offline: the history is in the profile's files, not asked of the service.
  await stopSampleApi(app.core);
  await openOrder();
  await expect(history).toContainText(/delivered\s+between/);
  await page.setViewportSize({ width: 1024, height: 700 });
  await panel.getByRole('heading', { name: /^History/ }).scrollIntoViewIfNeeded();
  await app.screenshot('history-03-order-1024');
});
