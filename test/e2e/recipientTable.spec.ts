/**
 * The recipients of an order as a grid people work in, in Chromium with the real handlers and the
 * sample API: a header row and one row per recipient; click, Ctrl+click, Shift+click, Ctrl+A and the
 * arrow keys select; Ctrl+C copies the selection as tab-separated text with a header row (read back
 * from the clipboard and compared with the cache); Enter and a double-click open the recipient's
 * contact; F6 goes to the detail panel itself. axe and screenshots of a multi-selection in both
 * themes.
 */
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import type { OrderDetail } from '../../shared/contract.ts';
import type { OrderRow, RowPage } from '../../shared/query.ts';
import { neutralize } from '../../renderer/src/lib/rowText.ts';
import { expect, test } from './harness.ts';
import { allowClipboard, clipboardText, expectAccessible, grid, parseTsv, rowAt, selectedIndexes, setClipboard, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 300, sampleOrders: 120 });

test('an order’s recipients are selected, copied and opened like a table’s rows', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  await allowClipboard(page);
  const handlers = createHandlers(app.core);
  const orders = (await dispatchCall(handlers, 'queryOrders', { query: {}, window: { offset: 0, limit: 120 } })) as { ok: true; value: RowPage<OrderRow> };
  const order = orders.value.rows.toSorted((a, b) => b.recipients - a.recipients)[0];
  expect(order?.recipients).toBeGreaterThanOrEqual(3);
  const detail = (await dispatchCall(handlers, 'getOrder', { id: order!.id })) as { ok: true; value: OrderDetail };
  const recipients = detail.value.recipients;

  await page.keyboard.press('Control+3');
  await page.getByRole('searchbox', { name: 'Search orders' }).fill(order!.id);
  const orderRow = grid(page, 'Orders').getByRole('row').filter({ hasText: order!.id });
  await expect(orderRow).toHaveCount(1);
  await orderRow.click();
  const panel = page.getByTestId('detail-panel');
  await expect(panel).toContainText(`#${order!.id}`);
  const table = panel.getByRole('grid', { name: 'Recipients of this order' });
  await expect(table).toBeVisible();
  // F6 from the orders table goes to the detail panel, not to the grid inside it.
  await grid(page, 'Orders').focus();
  await page.keyboard.press('F6');
  await expect(panel).toBeFocused();

  // A header row and one row per recipient.
  const titles = (await table.getByRole('columnheader').allTextContents()).map((t) => t.trim());
  expect(titles).toEqual(['Name', 'Delivered', 'Company', 'Address', 'Tracking code', 'Status']);
  await expect(table.locator('[role="row"][aria-rowindex]:not([aria-rowindex="1"])')).toHaveCount(recipients.length);
  await expect(rowAt(table, 0).locator('[data-col="name"]')).toContainText(recipients[0]!.fullName);

  // --- Click, Ctrl+click, then Ctrl+C --------------------------------------------------------------
  const cell = (index: number) => rowAt(table, index).locator('[data-col="company"]');
  await cell(0).click();
  await cell(2).click({ modifiers: ['Control'] });
  expect(await selectedIndexes(table)).toEqual([0, 2]);
  await expect(table).toBeFocused();
  await expect(page.getByTestId('recipient-selection')).toHaveText(`2 of ${recipients.length} selected`);
  await setClipboard(page, 'before');
  await page.keyboard.press('Control+c');
  await expect(page.getByText('Copied 2 recipients')).toBeVisible();
  const copied = parseTsv(await clipboardText(page));
  expect(copied).toHaveLength(3);
  expect(copied[0]).toEqual(titles);
  for (const [line, index] of [
    [1, 0],
    [2, 2],
  ] as const) {
    const r = recipients[index]!;
    const address = [r.address1, r.address2, r.city, r.zip].filter(Boolean).join(', ');
    expect(copied[line]).toEqual([r.fullName, r.isDelivered ? 'Yes' : 'No', r.companyName, address, r.trackingCode ?? '', r.status ?? ''].map(neutralize));
  }
  await expectAccessible(page, 'order detail with two recipients selected');
  await app.screenshot('recipients-multi-selection');

  // --- Shift+click extends from the last click; Ctrl+A selects every recipient; arrows move --------
  await cell(1).click({ modifiers: ['Shift'] });
  expect(await selectedIndexes(table)).toEqual([1, 2]);
  await page.keyboard.press('Control+a');
  expect(await selectedIndexes(table)).toEqual(recipients.map((_, i) => i));
  await expect(page.getByTestId('recipient-selection')).toHaveText(`${recipients.length} of ${recipients.length} selected`);
  // The page's own rows are not selected by it.
  await expect(grid(page, 'Orders').locator('[role="row"][aria-selected="true"]')).toHaveCount(1);
  await page.keyboard.press('Home');
  expect(await selectedIndexes(table)).toEqual([0]);
  await page.keyboard.press('ArrowDown');
  expect(await selectedIndexes(table)).toEqual([1]);
  await page.keyboard.press('Shift+ArrowDown');
  expect(await selectedIndexes(table)).toEqual([1, 2]);
  await page.keyboard.press('ArrowUp');
  expect(await selectedIndexes(table)).toEqual([1]);

  // --- The context menu: a right-click selects its row; Copy as CSV; Shift+F10 from the keyboard ----
  await cell(2).click({ button: 'right' });
  const menu = page.getByRole('menu', { name: 'Recipient actions' });
  await expect(menu).toBeVisible();
  expect(await selectedIndexes(table)).toEqual([2]);
  await app.screenshot('recipients-context-menu');
  await setClipboard(page, 'before');
  await menu.getByRole('menuitem', { name: 'Copy as CSV' }).click();
  await expect(menu).toBeHidden();
  await expect(table).toBeFocused();
  await expect.poll(() => clipboardText(page)).not.toBe('before');
  const csv = (await clipboardText(page)).trim().split(/\r?\n/);
  expect(csv).toHaveLength(2);
  expect(csv[0]).toContain('Tracking code');
  expect(csv[0]).toContain(',');
  expect(csv[1]).toContain(recipients[2]!.fullName);
  await page.keyboard.press('Shift+F10');
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Copy', exact: true })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(table).toBeFocused();

  // --- Enter opens the current recipient's contact; so does a double-click ---------------------------
  const cachedIndex = recipients.findIndex((r) => r.contactInCache);
  expect(cachedIndex).toBeGreaterThanOrEqual(0);
  await cell(cachedIndex).click();
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('heading', { level: 2 })).toHaveText(recipients[cachedIndex]!.fullName);
  await expect(grid(page, 'Contacts')).toBeVisible();

  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+3');
  await page.getByRole('searchbox', { name: 'Search orders' }).fill(order!.id);
  await orderRow.click();
  await expect(table).toBeVisible();
  await cell(cachedIndex).dblclick();
  await expect(panel.getByRole('heading', { level: 2 })).toHaveText(recipients[cachedIndex]!.fullName);
});
