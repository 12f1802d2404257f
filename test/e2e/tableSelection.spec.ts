/**
 * Selecting, copying and acting on rows in Chromium, with the real handlers and the sample API:
 * click, Shift+click, Ctrl+click, Space, Ctrl+A (the whole result, not only the rendered rows), the
 * status bar's "n of m selected"; Ctrl+C as tab-separated text with a header row (read back from
 * the clipboard and compared with the cache); text selected with the mouse copied as text; the
 * context menu from the mouse, Shift+F10 and the Menu key with each of its copy, filter and export
 * actions. Screenshots of a multi-selection and the context menu in both themes.
 */
import { readFileSync } from 'node:fs';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import type { OrderDetail } from '../../shared/contract.ts';
import type { ContactRow, OrderRow, RowPage } from '../../shared/query.ts';
import { expect, test } from './harness.ts';
import { allowClipboard, cellOf, clipboardText, expectAccessible, grid, headerTitles, numberIn, parseTsv, rowAt, selectedIndexes, setClipboard, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 1200, sampleOrders: 300 });

test('rows are selected, copied and acted on as in a spreadsheet', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  await allowClipboard(page);
  const table = grid(page, 'Contacts');
  const status = page.getByTestId('selection-count');
  const handlers = createHandlers(app.core);
  const first = (await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: 0, limit: 40 } })) as { ok: true; value: RowPage<ContactRow> };
  const rows = first.value.rows;

  // --- Mouse: click, Shift+click, Ctrl+click --------------------------------------------------------
  await rowAt(table, 2).click();
  await expect(page.getByTestId('detail-panel')).toBeVisible();
  await rowAt(table, 5).click({ modifiers: ['Shift'] });
  await rowAt(table, 8).click({ modifiers: ['Control'] });
  expect(await selectedIndexes(table)).toEqual([2, 3, 4, 5, 8]);
  await rowAt(table, 3).click({ modifiers: ['Control'] });
  expect(await selectedIndexes(table)).toEqual([2, 4, 5, 8]);
  await expect(status).toHaveText('4 of 1,200 selected');
  // The detail follows the current row (the last one clicked).
  await expect(page.getByTestId('detail-panel').getByRole('heading', { level: 2 })).toHaveText(rows[3]!.fullName);

  // --- Keyboard: Space, Shift+arrows, Ctrl+arrows -------------------------------------------------
  await page.keyboard.press('Escape'); // closes the detail; the table keeps the focus
  await expect(page.getByTestId('detail-panel')).toBeHidden();
  await expect(table).toBeFocused();
  await page.keyboard.press('Space'); // row 3 back in
  expect(await selectedIndexes(table)).toEqual([2, 3, 4, 5, 8]);
  await page.keyboard.press('ArrowDown'); // row 4 alone
  expect(await selectedIndexes(table)).toEqual([4]);
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  expect(await selectedIndexes(table)).toEqual([4, 5, 6]);
  await page.keyboard.press('Control+ArrowDown');
  await page.keyboard.press('Control+ArrowDown');
  expect(await selectedIndexes(table)).toEqual([4, 5, 6]);
  await expect(rowAt(table, 8)).toHaveClass(/current/);
  // A contact that is not verified joins the selection (its "No" must stay readable on the selection's colour).
  const notVerified = rows.findIndex((r, i) => i > 8 && r.isVerified === false);
  expect(notVerified).toBeGreaterThan(8);
  await page.keyboard.press('Space');
  await rowAt(table, notVerified).click({ modifiers: ['Control'] });
  expect(await selectedIndexes(table)).toEqual([4, 5, 6, 8, notVerified]);
  await expect(status).toHaveText('5 of 1,200 selected');
  await expectAccessible(page, 'contacts with a multi-selection');
  await app.screenshot('tables-multi-selection');

  // --- Ctrl+C: tab-separated, with a header row, in the table's columns ---------------------------
  await setClipboard(page, 'before');
  await page.keyboard.press('Control+c');
  await expect(page.getByText('Copied 5 contacts')).toBeVisible();
  const copied = parseTsv(await clipboardText(page));
  const titles = await headerTitles(table);
  expect(copied[0]).toEqual(titles);
  expect(copied).toHaveLength(6);
  const col = (name: string) => titles.indexOf(name);
  expect(copied.slice(1).map((r) => r[col('Full name')])).toEqual([4, 5, 6, 8, notVerified].map((i) => rows[i]!.fullName));
  expect(copied.slice(1).map((r) => r[col('Email')])).toEqual([4, 5, 6, 8, notVerified].map((i) => rows[i]!.email));
  expect(copied.slice(1).map((r) => r[col('Labels')])).toEqual([4, 5, 6, 8, notVerified].map((i) => rows[i]!.labels.join(', ')));
  expect(copied[5]![col('Verified')]).toBe('No');

  // --- Ctrl+A: every row of the result, including the ones never rendered -------------------------
  await page.keyboard.press('Control+a');
  await expect(status).toHaveText('1,200 of 1,200 selected');
  await page.keyboard.press('Control+c');
  await expect(page.getByText('Copied 1,200 contacts')).toBeVisible();
  const everything = parseTsv(await clipboardText(page));
  expect(everything).toHaveLength(1201);
  const last = (await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: 1199, limit: 1 } })) as { ok: true; value: RowPage<ContactRow> };
  expect(everything[1200]![col('Email')]).toBe(last.value.rows[0]!.email);
  // Escape keeps only the current row.
  await page.keyboard.press('Escape');
  await expect(status).toHaveText('1 of 1,200 selected');

  // --- Text selected with the mouse is copied as text, and the rows stay as they are --------------
  const email = cellOf(rowAt(table, 1), 'email');
  const box = (await email.boundingBox())!;
  await page.mouse.move(box.x + 4, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  expect(await selectedIndexes(table)).toEqual([notVerified]);
  const selectedText = await page.evaluate(() => window.getSelection()?.toString() ?? '');
  expect(rows[1]!.email.startsWith(selectedText.trim().slice(0, 5))).toBe(true);
  await page.keyboard.press('Control+c');
  expect(await clipboardText(page)).toBe(selectedText);
  await page.evaluate(() => window.getSelection()?.removeAllRanges());

  // --- The context menu: right-click -----------------------------------------------------------------
  const menu = page.getByRole('menu', { name: 'Contact actions' });
  const stateCell = cellOf(rowAt(table, 6), 'state');
  await stateCell.click({ button: 'right' });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Open' })).toBeFocused();
  expect(await selectedIndexes(table)).toEqual([6]);
  await expect(menu.getByRole('menuitem')).toHaveText([
    /Open/,
    /Copy/,
    'Copy cell (State)',
    'Copy as CSV',
    'Copy record as JSON',
    'Show orders',
    `Filter by State: ${rows[6]!.state}`,
    /Export selection/,
    'Save view…',
  ]);
  await expectAccessible(page, 'contacts with the context menu');
  await app.screenshot('tables-context-menu');
  await menu.getByRole('menuitem', { name: 'Copy cell (State)' }).click();
  await expect(menu).toBeHidden();
  await expect(table).toBeFocused();
  expect(await clipboardText(page)).toBe(rows[6]!.state);

  // Shift+F10 opens it at the current row; the arrows and Enter run an item.
  await page.keyboard.press('Shift+F10');
  await expect(menu).toBeVisible();
  await page.keyboard.press('c'); // first item starting with "c": Copy
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Copy record as JSON' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(menu).toBeHidden();
  await expect.poll(async () => (await clipboardText(page)).startsWith('{')).toBe(true);
  const record = JSON.parse(await clipboardText(page)) as { id: string; email: string; ContactLabels: unknown[] };
  expect(record.id).toBe(rows[6]!.id);
  expect(record.email).toBe(rows[6]!.email);
  expect(Array.isArray(record.ContactLabels)).toBe(true);

  // The Menu key too; Copy as CSV quotes per RFC 4180.
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('ContextMenu');
  await expect(menu).toBeVisible();
  await menu.getByRole('menuitem', { name: 'Copy as CSV' }).click();
  await expect(page.getByText('Copied 2 contacts as CSV')).toBeVisible();
  const csv = await clipboardText(page);
  // Every cell quoted, as the export writes it.
  expect(csv.split('\r\n')[0]).toBe(titles.map((title) => `"${title}"`).join(','));
  expect(parseTsv(csv, ',')).toHaveLength(3);
  expect(csv).toContain(rows[7]!.email);

  // Escape closes the menu and gives the focus back to the table.
  await page.keyboard.press('Shift+F10');
  await expect(menu).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(table).toBeFocused();

  // --- Filter by this value ----------------------------------------------------------------------
  const state = rows[6]!.state;
  await stateCell.click({ button: 'right' });
  await menu.getByRole('menuitem', { name: `Filter by State: ${state}` }).click();
  const stateOption = page.getByRole('group', { name: 'State' }).locator('label', { hasText: state });
  await expect(stateOption.locator('input')).toBeChecked();
  await expect.poll(async () => numberIn(await page.getByTestId('match-count').textContent())).toBe(numberIn(await stateOption.locator('.count').textContent()));
  const stateCells = await table.locator('[data-col="state"]').allTextContents();
  expect(new Set(stateCells.map((s) => s.trim()))).toEqual(new Set([state]));
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect.poll(async () => numberIn(await page.getByTestId('match-count').textContent())).toBe(1200);

  // --- Export selection: the dialog offers "Selected rows"; the whole result exports today --------
  await rowAt(table, 0).click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+a');
  await rowAt(table, 0).click({ button: 'right' });
  await menu.getByRole('menuitem', { name: /Export 1,200 selected rows/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog.getByRole('radio', { name: /Selected rows/ })).toBeChecked();
  await expect(dialog.getByRole('radio', { name: /Selected rows/ })).toHaveAccessibleName(/1,200 contacts/);
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText('Exported 1,200 rows')).toBeVisible();
  const file = readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8');
  expect(parseTsv(file, ',')).toHaveLength(1201);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  // The focus is back where the export was asked from.
  await expect(table).toBeFocused();
});

test('Export selection sends the view’s query naming the selected rows', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const handlers = createHandlers(app.core);
  const first = (await dispatchCall(handlers, 'queryContacts', { query: { verified: ['yes'] }, window: { offset: 0, limit: 10 } })) as { ok: true; value: RowPage<ContactRow> };
  await page.getByRole('group', { name: 'Verified' }).getByRole('checkbox', { name: /^Verified/ }).check();
  await expect.poll(async () => numberIn(await page.getByTestId('match-count').textContent())).toBeLessThan(1200);
  // What the page asks the main process for, on its way out.
  await page.evaluate(() => {
    const w = window as unknown as { __letterdeskInvoke: (name: string, input: unknown) => Promise<unknown>; __sent: unknown[] };
    const invoke = w.__letterdeskInvoke;
    w.__sent = [];
    w.__letterdeskInvoke = (name, input) => {
      if (name === 'exportFile') w.__sent.push(input);
      return invoke(name, input);
    };
  });
  await rowAt(table, 1).click();
  await rowAt(table, 3).click({ modifiers: ['Shift'] });
  await rowAt(table, 6).click({ modifiers: ['Control'] });
  await rowAt(table, 6).click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: 'Export 4 selected rows…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog.getByRole('radio', { name: /Selected rows/ })).toBeChecked();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent.length)).toBe(1);
  const [sent] = (await page.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent)) as { kind: string; query: { verified: string[]; ids: string[] } }[];
  expect(sent!.kind).toBe('contacts');
  expect(sent!.query.verified).toEqual(['yes']);
  expect(sent!.query.ids).toEqual([1, 2, 3, 6].map((i) => first.value.rows[i]!.id));
  await expect(dialog.getByText('Exported 4 rows')).toBeVisible();
  const file = parseTsv(readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8'), ',');
  expect(file.slice(1).map((r) => r[file[0]!.indexOf('Email')])).toEqual([1, 2, 3, 6].map((i) => first.value.rows[i]!.email));
});

test('a partial selection exports exactly its rows, in the table’s order, under its sort', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  // Sorted by email descending, the selection's rows are exported in that order.
  await table.getByRole('columnheader', { name: /^Email/ }).click();
  await table.getByRole('columnheader', { name: /^Email/ }).click();
  await expect(table.getByRole('columnheader', { name: /^Email/ })).toHaveAttribute('aria-sort', 'descending');
  await rowAt(table, 1).click();
  await rowAt(table, 3).click({ modifiers: ['Shift'] });
  await rowAt(table, 7).click({ modifiers: ['Control'] });
  const emails = await Promise.all([1, 2, 3, 7].map(async (i) => ((await cellOf(rowAt(table, i), 'email').textContent()) ?? '').trim()));
  await rowAt(table, 3).click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: 'Export 4 selected rows…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog.getByRole('radio', { name: /Selected rows/ })).toBeChecked();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText('Exported 4 rows')).toBeVisible();
  const file = parseTsv(readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8'), ',');
  expect(file).toHaveLength(5);
  expect(file.slice(1).map((r) => r[file[0]!.indexOf('Email')])).toEqual(emails);
  // "Current view" still exports the whole table.
  await dialog.getByRole('button', { name: 'Done' }).click();
  await rowAt(table, 3).click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: 'Export 4 selected rows…' }).click();
  await dialog.getByRole('radio', { name: /Current view/ }).check();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText('Exported 1,200 rows')).toBeVisible();
});

test('row actions follow links: Show orders names the contact, Show contact selects it', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const contacts = grid(page, 'Contacts');
  const orders = grid(page, 'Orders');
  const handlers = createHandlers(app.core);
  const all = (await dispatchCall(handlers, 'queryOrders', { query: {}, window: { offset: 0, limit: 300 } })) as { ok: true; value: RowPage<OrderRow> };
  const single = all.value.rows.findIndex((o) => o.recipients === 1);
  const several = all.value.rows.findIndex((o) => o.recipients > 1);
  expect(single).toBeGreaterThanOrEqual(0);
  expect(several).toBeGreaterThanOrEqual(0);

  // Show orders: the orders view scoped to the contact, named in its strip.
  const name = ((await rowAt(contacts, 0).locator('.name').textContent()) ?? '').trim();
  await rowAt(contacts, 0).click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: 'Show orders' }).click();
  await expect(orders).toBeVisible();
  await expect(page.getByTestId('contact-scope')).toContainText(`Showing orders that include ${name}`);
  await page.getByTestId('contact-scope').getByRole('button', { name: 'Show all orders' }).click();
  await expect(page.getByTestId('contact-scope')).toBeHidden();

  // Show contact on an order with one recipient: that contact, selected, its detail open.
  const order = all.value.rows[single]!;
  const detail = (await dispatchCall(handlers, 'getOrder', { id: order.id })) as { ok: true; value: OrderDetail };
  const recipient = detail.value.recipients[0]!;
  await orders.evaluate((el, top) => (el.scrollTop = top), Math.max(0, single * 28 - 100));
  await rowAt(orders, single).click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: 'Show contact' }).click();
  await expect(contacts).toBeVisible();
  await expect(page.getByTestId('detail-panel').getByRole('heading', { level: 2 })).toHaveText(recipient.fullName);
  await expect(contacts.locator('[role="row"][aria-selected="true"] .name')).toHaveText(recipient.fullName);

  // On an order with several recipients the menu offers them in the order's detail.
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(orders).toBeVisible();
  await orders.evaluate((el, top) => (el.scrollTop = top), Math.max(0, several * 28 - 100));
  await rowAt(orders, several).click({ button: 'right' });
  await page.getByRole('menu').getByRole('menuitem', { name: 'Show recipients' }).click();
  await expect(page.getByTestId('detail-panel')).toContainText(`#${all.value.rows[several]!.id}`);
  await expect(page.getByText(/recipients: choose one in its detail/)).toBeVisible();
  // The orders table with a selected row (and the detail beside it) passes axe in both themes.
  await rowAt(orders, several + 1).click({ modifiers: ['Shift'] });
  await expectAccessible(page, 'orders with a selection');
});

test("a click on a row sends its detail's read at once, before the page makes room for the panel, and only once", async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  // Every detail read the page sends, and whether the panel was in the page when it was sent.
  await page.evaluate(() => {
    const w = window as unknown as { __letterdeskInvoke: (name: string, input: unknown) => Promise<unknown>; __detailReads: unknown[] };
    const invoke = w.__letterdeskInvoke;
    w.__detailReads = [];
    w.__letterdeskInvoke = (name, input) => {
      if (name === 'getContact' || name === 'getOrder') w.__detailReads.push({ name, id: (input as { id: string }).id, panel: document.querySelector('[data-testid="detail-panel"]') !== null });
      return invoke(name, input);
    };
  });
  const reads = () => page.evaluate(() => (window as unknown as { __detailReads: { name: string; id: string; panel: boolean }[] }).__detailReads);
  const handlers = createHandlers(app.core);
  const contacts = ((await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: 0, limit: 5 } })) as { ok: true; value: RowPage<ContactRow> }).value.rows;
  const table = grid(page, 'Contacts');
  const detail = page.getByTestId('detail-panel');

  await rowAt(table, 1).click();
  await expect(detail.getByText(`#${contacts[1]?.id}`)).toBeVisible();
  expect(await reads()).toEqual([{ name: 'getContact', id: contacts[1]?.id, panel: false }]);
  // The record on screen: nothing to read. Another one: one read, the panel open meanwhile.
  await rowAt(table, 1).click();
  await rowAt(table, 3).click();
  await expect(detail.getByText(`#${contacts[3]?.id}`)).toBeVisible();
  expect(await reads()).toEqual([{ name: 'getContact', id: contacts[1]?.id, panel: false }, { name: 'getContact', id: contacts[3]?.id, panel: true }]);

  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
  await page.keyboard.press('Control+3');
  const orders = grid(page, 'Orders');
  const first = ((await dispatchCall(handlers, 'queryOrders', { query: {}, window: { offset: 0, limit: 1 } })) as { ok: true; value: RowPage<OrderRow> }).value.rows[0];
  await rowAt(orders, 0).click();
  await expect(detail).toBeVisible();
  await expect(detail.getByText(`#${first?.id}`).first()).toBeVisible();
  expect((await reads()).slice(2)).toEqual([{ name: 'getOrder', id: first?.id, panel: false }]);
});
