/**
 * The table's columns in Chromium: the column menu (toolbar button and header right-click) hides,
 * shows and moves columns and resets the layout; headers are dragged to reorder; the resize
 * handles work with the mouse, a double-click (fit to content) and the keyboard (announced); the
 * layout is remembered across a restart; the first column stays in view while scrolling sideways;
 * default widths fit the usual content. Shift+click adds sort keys, numbered in the headers; the
 * name column sorts by last name from the column menu; a descending sort keeps blank cells at the
 * bottom. Screenshots of the column menu and of a three-column sort in both themes.
 */
import type { Locator } from '@playwright/test';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import type { ContactRow, RowPage } from '../../shared/query.ts';
import { expect, test } from './harness.ts';
import { cellOf, expectAccessible, grid, headerTitles, rowAt, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 600, sampleOrders: 100 });

/** Cells of a column whose text is cut (its content is wider than the cell). */
async function clippedCells(table: Locator, key: string): Promise<string[]> {
  return table.locator(`[role="row"] [data-col="${key}"]`).evaluateAll((cells) =>
    cells.filter((c) => !c.querySelector('.skeleton') && c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent ?? ''),
  );
}

async function widthOf(table: Locator, title: string): Promise<number> {
  return Math.round((await table.getByRole('columnheader', { name: title, exact: true }).boundingBox())?.width ?? 0);
}

test('columns are shown, hidden, moved, resized and fitted, and remembered', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const defaults = await headerTitles(table);
  expect(defaults).toEqual(['Full name', 'Company', 'Email', 'Phone', 'Address', 'City', 'State', 'ZIP', 'Labels', 'Verified', 'Times mailed', 'Last order', 'Created']);

  // --- Default widths fit the usual content: state names, phone numbers with extensions --------
  await expect(rowAt(table, 20).locator('.skeleton')).toHaveCount(0);
  expect(await clippedCells(table, 'state')).toEqual([]);
  expect(await clippedCells(table, 'phone')).toEqual([]);
  expect(await clippedCells(table, 'zip')).toEqual([]);

  // --- The column menu from the toolbar --------------------------------------------------------
  const columnsButton = page.getByRole('button', { name: 'Columns' });
  await columnsButton.click();
  const menu = page.getByRole('dialog', { name: 'Contacts columns' });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('checkbox', { name: 'Full name' })).toBeDisabled();
  await expectAccessible(page, 'column menu');
  await app.screenshot('tables-column-menu');
  await menu.getByRole('checkbox', { name: 'Company' }).uncheck();
  // City moves past the hidden Line 2, then Address, then Phone.
  for (let i = 0; i < 3; i++) await menu.getByRole('button', { name: 'Move City left' }).click();
  expect(await headerTitles(table)).toEqual(['Full name', 'Email', 'City', 'Phone', 'Address', 'State', 'ZIP', 'Labels', 'Verified', 'Times mailed', 'Last order', 'Created']);
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(columnsButton).toBeFocused();

  // --- Header right-click opens it where the pointer is ------------------------------------------
  const zipHeader = table.getByRole('columnheader', { name: 'ZIP', exact: true });
  await zipHeader.click({ button: 'right' });
  await expect(menu).toBeVisible();
  const at = (await zipHeader.boundingBox())!;
  const menuBox = (await menu.boundingBox())!;
  expect(Math.abs(menuBox.y - (at.y + at.height / 2))).toBeLessThan(40);
  await menu.getByRole('checkbox', { name: 'Company' }).check();
  await menu.getByRole('button', { name: 'Done' }).click();
  expect(await headerTitles(table)).toEqual(['Full name', 'Company', 'Email', 'City', 'Phone', 'Address', 'State', 'ZIP', 'Labels', 'Verified', 'Times mailed', 'Last order', 'Created']);

  // --- Drag a header to move its column (the drop does not sort) ---------------------------------
  const stateHeader = table.getByRole('columnheader', { name: 'State', exact: true });
  const emailHeader = table.getByRole('columnheader', { name: 'Email', exact: true });
  const from = (await stateHeader.boundingBox())!;
  const to = (await emailHeader.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 - 30, from.y + from.height / 2, { steps: 4 });
  await page.mouse.move(to.x + 10, to.y + to.height / 2, { steps: 10 });
  await page.mouse.up();
  expect(await headerTitles(table)).toEqual(['Full name', 'Company', 'State', 'Email', 'City', 'Phone', 'Address', 'ZIP', 'Labels', 'Verified', 'Times mailed', 'Last order', 'Created']);
  await expect(stateHeader).toHaveAttribute('aria-sort', 'none');

  // --- Resize from the keyboard; the handle says its width and a screen reader hears it ----------
  const emailHandle = table.getByRole('separator', { name: 'Resize Email column' });
  const emailWidth = await widthOf(table, 'Email');
  await emailHandle.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(emailHandle).toHaveAttribute('aria-valuenow', String(emailWidth + 30));
  await expect(page.getByTestId('contacts-grid-announcement')).toHaveText(`Email column ${emailWidth + 30} pixels`);
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(emailHandle).toHaveAttribute('aria-valuenow', String(emailWidth - 10));
  expect(await widthOf(table, 'Email')).toBe(emailWidth - 10);

  // --- Double-click a handle to fit the column to its content; Enter does it from the keyboard ---
  const stateHandle = table.getByRole('separator', { name: 'Resize State column' });
  await stateHandle.focus();
  await page.keyboard.press('Home');
  await expect(stateHandle).toHaveAttribute('aria-valuenow', '48');
  expect((await clippedCells(table, 'state')).length).toBeGreaterThan(0);
  await stateHandle.dblclick();
  await expect.poll(async () => (await clippedCells(table, 'state')).length).toBe(0);
  const fitted = await widthOf(table, 'State');
  expect(fitted).toBeLessThan(200);
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await expect(stateHandle).toHaveAttribute('aria-valuenow', String(fitted));
  await expect(page.getByTestId('contacts-grid-announcement')).toHaveText(`State column fitted to its content: ${fitted} pixels`);

  // --- Label chips cut by a narrow column end in an ellipsis -------------------------------------
  const labelsHandle = table.getByRole('separator', { name: 'Resize Labels column' });
  await labelsHandle.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const chips = table.locator('[data-col="labels"] .chips').filter({ has: page.locator('.tag') }).first();
  expect(await chips.evaluate((el) => ({ cut: el.scrollWidth > el.clientWidth, overflow: getComputedStyle(el).textOverflow }))).toEqual({ cut: true, overflow: 'ellipsis' });

  // --- Mouse resize, as before -------------------------------------------------------------------
  const cityHeader = table.getByRole('columnheader', { name: 'City', exact: true });
  // The handle in the middle of the view: not past its edge, nor under the first column that stays.
  await cityHeader.evaluate((el) => el.scrollIntoView({ block: 'nearest', inline: 'center' }));
  const cityBefore = await widthOf(table, 'City');
  const handle = (await table.getByRole('separator', { name: 'Resize City column' }).boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + 60, handle.y + handle.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await cityHeader.boundingBox())?.width ?? 0)).toBe(cityBefore + 56);

  // --- The first column stays in view while the table scrolls sideways ---------------------------
  const gridBox = (await table.boundingBox())!;
  await table.evaluate((el) => (el.scrollLeft = 600));
  await expect.poll(() => table.evaluate((el) => el.scrollLeft)).toBeGreaterThan(500);
  const nameCell = rowAt(table, 3).locator('[role="gridcell"]').first();
  expect(Math.round((await nameCell.boundingBox())!.x)).toBe(Math.round(gridBox.x));
  expect(Math.round((await table.getByRole('columnheader', { name: 'Full name' }).boundingBox())!.x)).toBe(Math.round(gridBox.x));
  // What scrolled under it is hidden behind it, not drawn over it.
  const covering = await nameCell.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest('[data-col]')?.getAttribute('data-col');
  });
  expect(covering).toBe('name');
  await table.evaluate((el) => (el.scrollLeft = 0));

  // --- Remembered across a restart --------------------------------------------------------------
  const layout = await headerTitles(table);
  const widths = { email: await widthOf(table, 'Email'), state: await widthOf(table, 'State'), city: await widthOf(table, 'City') };
  await app.reload();
  await expect(rowAt(table, 0).locator('.skeleton')).toHaveCount(0);
  expect(await headerTitles(table)).toEqual(layout);
  expect({ email: await widthOf(table, 'Email'), state: await widthOf(table, 'State'), city: await widthOf(table, 'City') }).toEqual(widths);

  // --- Reset layout -----------------------------------------------------------------------------
  await page.getByRole('button', { name: 'Columns' }).click();
  await menu.getByRole('button', { name: 'Reset layout' }).click();
  await page.keyboard.press('Escape');
  expect(await headerTitles(table)).toEqual(defaults);
  expect(await widthOf(table, 'Email')).toBe(emailWidth);

  // --- The orders table has its own layout; its first column stays too ---------------------------
  await page.keyboard.press('Control+3');
  const orders = grid(page, 'Orders');
  await expect(rowAt(orders, 0).locator('.skeleton')).toHaveCount(0);
  expect(await headerTitles(orders)).toEqual(['Order ID', 'Campaign', 'Product', 'Template', 'Status', 'Delivered', 'Delivery date']);
  expect(await clippedCells(orders, 'delivered')).toEqual([]);
});

test('Shift+click sorts by several columns, numbered in the headers; a name sorts by last name too', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const handlers = createHandlers(app.core);
  const emailsOf = async (query: object): Promise<string[]> =>
    ((await dispatchCall(handlers, 'queryContacts', { query, window: { offset: 0, limit: 15 } })) as { ok: true; value: RowPage<ContactRow> }).value.rows.map((r) => r.email);
  const shown = async (): Promise<string[]> => {
    await expect(rowAt(table, 14).locator('.skeleton')).toHaveCount(0);
    return Promise.all(Array.from({ length: 15 }, async (_, i) => ((await cellOf(rowAt(table, i), 'email').textContent()) ?? '').trim()));
  };
  const header = (title: string) => table.getByRole('columnheader', { name: title, exact: true });
  const order = (title: string) => header(title).locator('.sort-order');

  await header('State').getByRole('button').click();
  await expect(header('State')).toHaveAttribute('aria-sort', 'ascending');
  await expect(order('State')).toHaveCount(0);
  await header('Full name').getByRole('button').click({ modifiers: ['Shift'] });
  await expect(order('State')).toHaveText('1');
  await expect(order('Full name')).toHaveText('2');
  await expect(header('State')).toHaveAttribute('aria-sort', 'ascending');
  await expect(header('Full name')).toHaveAttribute('aria-sort', 'none');
  await expect(header('Full name').getByRole('button')).toHaveAccessibleName(/sorted second, ascending/);
  await expect.poll(shown).toEqual(await emailsOf({ sort: { column: 'state', direction: 'asc' }, thenBy: [{ column: 'name', direction: 'asc' }] }));
  // Shift+click again: the second key turns descending; a third key joins.
  await header('Full name').getByRole('button').click({ modifiers: ['Shift'] });
  await header('Verified').getByRole('button').click({ modifiers: ['Shift'] });
  await expect(order('Verified')).toHaveText('3');
  const three = { sort: { column: 'state', direction: 'asc' }, thenBy: [{ column: 'name', direction: 'desc' }, { column: 'verified', direction: 'asc' }] };
  await expect.poll(shown).toEqual(await emailsOf(three));
  await expectAccessible(page, 'a table sorted by three columns');
  // Scrolled to the Verified header: the pinned name, State and Verified all show their numbers.
  await expect(order('State')).toBeInViewport();
  await expect(order('Full name')).toBeInViewport();
  await app.screenshot('tables-multi-sort');

  // The sort is remembered across a restart.
  await app.reload();
  await expect(order('Verified')).toHaveText('3');
  await expect.poll(shown).toEqual(await emailsOf(three));

  // A plain click sorts by that column alone again.
  await header('Email').getByRole('button').click();
  await expect(table.locator('.sort-order')).toHaveCount(0);
  await expect(header('Email')).toHaveAttribute('aria-sort', 'ascending');

  // The column menu sorts a name by last name; the header says so, and its click keeps that order.
  await header('Full name').click({ button: 'right' });
  const menu = page.getByTestId('column-menu');
  await menu.getByRole('button', { name: 'by last name' }).click();
  await expect(menu.getByRole('button', { name: 'by last name' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Escape');
  await expect(header('Full name')).toContainText('by last name');
  await expect(header('Full name')).toHaveAttribute('aria-sort', 'ascending');
  await expect.poll(shown).toEqual(await emailsOf({ sort: { column: 'lastName', direction: 'asc' } }));
  await header('Full name').getByRole('button').click();
  await expect(header('Full name')).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(shown).toEqual(await emailsOf({ sort: { column: 'lastName', direction: 'desc' } }));
});

test('a descending sort keeps the contacts without a company at the bottom', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const handlers = createHandlers(app.core);
  const header = table.getByRole('columnheader', { name: 'Company', exact: true });
  await header.getByRole('button').click();
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  await header.getByRole('button').click();
  await expect(header).toHaveAttribute('aria-sort', 'descending');

  // What the table reads: the companies in reverse locale order, then the blank ones.
  const page0 = ((await dispatchCall(handlers, 'queryContacts', { query: { sort: { column: 'company', direction: 'desc' } }, window: { offset: 0, limit: 1000 } })) as { ok: true; value: RowPage<ContactRow> }).value;
  const companies = page0.rows.map((r) => r.companyName ?? '');
  const filled = companies.findIndex((c) => c === '');
  expect(filled).toBeGreaterThan(0);
  expect(companies.slice(filled).every((c) => c === '')).toBe(true);
  expect(companies.length - filled).toBeGreaterThan(10);
  const collator = new Intl.Collator();
  for (let i = 1; i < filled; i++) expect(collator.compare(companies[i - 1]!, companies[i]!), `${companies[i - 1]} / ${companies[i]}`).toBeGreaterThanOrEqual(0);

  // The page shows the same: companies at the top, blanks at the bottom.
  await expect(rowAt(table, 14).locator('.skeleton')).toHaveCount(0);
  for (let i = 0; i < 15; i++) await expect(cellOf(rowAt(table, i), 'company')).not.toHaveText('');
  await expect(cellOf(rowAt(table, 0), 'email')).toHaveText(page0.rows[0]!.email);
  await rowAt(table, 0).click();
  await page.keyboard.press('End');
  const last = rowAt(table, companies.length - 1);
  await expect(last).toHaveAttribute('aria-selected', 'true');
  await expect(last.locator('.skeleton')).toHaveCount(0);
  await expect(cellOf(last, 'company')).toHaveText('');
  await expect(cellOf(last, 'email')).toHaveText(page0.rows.at(-1)!.email);
  for (let i = companies.length - 10; i < companies.length; i++) await expect(cellOf(rowAt(table, i), 'company')).toHaveText('');
});
