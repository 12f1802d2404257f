/**
 * Layout and navigation in Chromium: at 1024×700 and at the 900×560 minimum, with a detail open,
 * the table stays at least 480 px wide (the sidebar collapses, the filter pane folds into a drawer,
 * a wide detail becomes an overlay); the panes resize from the keyboard and are remembered.
 * Following links selects and scrolls to the target and names the person; Back and Forward (Alt
 * arrows, the toolbar, the mouse's buttons) return with search, filters, selection and scroll
 * position. Filter options keep their order when ticked; a reversed date range says so.
 * Screenshots of the narrow layout in both themes.
 */
import type { Locator } from '@playwright/test';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import type { ContactDetail, OrderDetail } from '../../shared/contract.ts';
import type { ContactFacets, ContactRow, RowPage } from '../../shared/query.ts';
import { expect, test } from './harness.ts';
import { expectAccessible, grid, matchCount, rowAt, selectedIndexes, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 1200, sampleOrders: 400 });

async function widthOf(locator: Locator): Promise<number> {
  return (await locator.boundingBox())?.width ?? 0;
}

/** The row is on screen inside the table (not scrolled away, not under the header). */
async function expectInView(table: Locator, row: Locator): Promise<void> {
  await expect(row).toBeVisible();
  const t = (await table.boundingBox())!;
  const r = (await row.boundingBox())!;
  expect(r.y).toBeGreaterThanOrEqual(t.y + 29);
  expect(r.y + r.height).toBeLessThanOrEqual(t.y + t.height + 1);
}

test('the table keeps a usable width at 1024×700 and 900×560 with a detail open; panes resize and are remembered', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const detail = page.getByTestId('detail-panel');
  const sidebar = page.getByRole('navigation', { name: 'Main' });

  // --- 1024×700: the detail docks beside a table of at least 480 px ------------------------------
  await page.setViewportSize({ width: 1024, height: 700 });
  await rowAt(table, 1).click();
  await expect(detail).toBeVisible();
  await expect(page.locator('#contacts-detail')).toHaveAttribute('data-layout', 'docked');
  expect(await widthOf(table)).toBeGreaterThanOrEqual(480);
  // The filter pane folded away to make room; the Filters button opens it as a drawer over the table.
  await expect(page.getByRole('complementary', { name: 'Contact filters' })).toBeHidden();
  await page.getByRole('button', { name: /^Filters/ }).click();
  const filters = page.getByRole('complementary', { name: 'Contact filters' });
  await expect(filters).toBeVisible();
  await expect(page.getByRole('button', { name: /^Filters/ })).toHaveAttribute('aria-pressed', 'true');
  await filters.getByRole('group', { name: 'Verified' }).locator('label').first().locator('input').check();
  await expect.poll(() => matchCount(page)).toBeLessThan(1200);
  await page.keyboard.press('Escape');
  await expect(filters).toBeHidden();
  await expect(table).toBeFocused();
  await expect(page.getByRole('button', { name: /^Filters/ })).toContainText('1');
  await page.getByRole('button', { name: /^Filters/ }).click();
  await filters.getByRole('button', { name: 'Clear all' }).click();
  await filters.getByRole('button', { name: 'Close filters' }).click();
  await expect.poll(() => matchCount(page)).toBe(1200);

  // --- 900×560 (the window's minimum): the sidebar collapses, the table keeps 480 px -------------
  await page.setViewportSize({ width: 900, height: 560 });
  await expect.poll(() => widthOf(sidebar)).toBeLessThan(60);
  expect(await widthOf(table)).toBeGreaterThanOrEqual(480);
  await expect(page.locator('#contacts-detail')).toHaveAttribute('data-layout', 'docked');
  // The collapsed sidebar keeps its names for screen readers and its tooltips.
  await expect(sidebar.getByRole('button', { name: 'Orders' })).toHaveAttribute('title', 'Orders (Ctrl+3)');
  await expectAccessible(page, 'narrow layout with a detail');
  await app.screenshot('tables-narrow-layout');

  // A detail made wide becomes an overlay: the table underneath keeps its width.
  const detailEdge = page.getByRole('separator', { name: 'Resize the detail panel' });
  await detailEdge.focus();
  await page.keyboard.press('End');
  await expect(page.locator('#contacts-detail')).toHaveAttribute('data-layout', 'overlay');
  expect(await widthOf(table)).toBeGreaterThanOrEqual(480);
  await app.screenshot('tables-narrow-overlay');
  await page.keyboard.press('Home');
  await expect(page.locator('#contacts-detail')).toHaveAttribute('data-layout', 'docked');
  // Closing the detail gives the focus back to the table.
  await detail.getByRole('button', { name: 'Close details' }).click();
  await expect(detail).toBeHidden();
  await expect(table).toBeFocused();

  // --- Wide again: the sidebar and filter pane come back; their sizes are remembered ---------------
  await page.setViewportSize({ width: 1360, height: 860 });
  await expect.poll(() => widthOf(sidebar)).toBe(200);
  const filterPane = page.locator('#contacts-filters');
  await expect(filterPane).toBeVisible();
  const filterEdge = page.getByRole('separator', { name: 'Resize the filter pane' });
  await filterEdge.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await expect(filterEdge).toHaveAttribute('aria-valuenow', '280');
  expect(Math.round(await widthOf(filterPane))).toBe(280);
  await sidebar.getByRole('button', { name: 'Collapse the sidebar' }).click();
  await expect.poll(() => widthOf(sidebar)).toBeLessThan(60);
  await app.reload();
  await expect(rowAt(table, 0)).toBeVisible();
  expect(await widthOf(sidebar)).toBeLessThan(60);
  expect(Math.round(await widthOf(filterPane))).toBe(280);
  // Ctrl+B expands it again.
  await table.focus();
  await page.keyboard.press('Control+b');
  await expect.poll(() => widthOf(sidebar)).toBe(200);
  await expect(sidebar.getByRole('button', { name: 'Collapse the sidebar' })).toHaveAttribute('aria-expanded', 'true');
});

test('links select and scroll to their record; Back and Forward return with search, filters, selection and scroll', async ({ app }) => {
  test.setTimeout(180_000);
  const { page, core } = app;
  await syncSample(app);
  const contacts = grid(page, 'Contacts');
  const orders = grid(page, 'Orders');
  const detail = page.getByTestId('detail-panel');
  const handlers = createHandlers(core);
  const answer = async <T>(name: Parameters<typeof dispatchCall>[1], input: unknown): Promise<T> => ((await dispatchCall(handlers, name, input)) as { ok: true; value: T }).value;

  // A verified contact far enough down that the table scrolls to it, with at least one order.
  await page.getByRole('group', { name: 'Verified' }).getByRole('checkbox', { name: /^Verified/ }).check();
  await expect.poll(() => matchCount(page)).toBeLessThan(1200);
  const verified = await answer<RowPage<ContactRow>>('queryContacts', { query: { verified: ['yes'] }, window: { offset: 0, limit: 400 } });
  let index = -1;
  let contact: (ContactDetail & { invalidReason: null }) | null = null;
  for (let i = 60; i < verified.rows.length && index < 0; i++) {
    const d = await answer<ContactDetail>('getContact', { id: verified.rows[i]!.id });
    if (d.orders.length > 0 && d.invalidReason === null) {
      index = i;
      contact = d;
    }
  }
  expect(index, 'a verified contact with orders').toBeGreaterThan(0);
  const person = contact!.contact;
  await contacts.evaluate((el, top) => (el.scrollTop = top), index * 28 - 200);
  await rowAt(contacts, index).click();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(person.fullName);
  const placeA = { scrollTop: await contacts.evaluate((el) => el.scrollTop), count: await matchCount(page) };
  expect(placeA.scrollTop).toBeGreaterThan(1000);

  // --- Link 1: contact → order ---------------------------------------------------------------------
  const order = contact!.orders[0]!;
  await detail.getByRole('list', { name: 'Orders of this contact' }).locator(`[data-order-id="${order.id}"]`).click();
  await expect(orders).toBeVisible();
  await expect(detail).toContainText(`#${order.id}`);
  const orderRow = orders.locator('[role="row"][aria-selected="true"]');
  await expect(orderRow).toHaveCount(1);
  await expect(orderRow.locator('[data-col="id"]')).toHaveText(order.id);
  await expectInView(orders, orderRow);
  await expect(orders).toBeFocused();
  const placeB = { scrollTop: await orders.evaluate((el) => el.scrollTop), selected: await selectedIndexes(orders) };

  // --- Link 2: order → one of its recipients' contact ----------------------------------------------
  const orderDetail = await answer<OrderDetail>('getOrder', { id: order.id });
  const recipient = orderDetail.recipients.find((r) => r.contactId !== person.id) ?? orderDetail.recipients[0]!;
  await detail.getByRole('button', { name: `Open contact ${recipient.fullName}` }).first().click();
  await expect(contacts).toBeVisible();
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(recipient.fullName);
  const contactRow = contacts.locator('[role="row"][aria-selected="true"]');
  await expect(contactRow).toHaveCount(1);
  await expect(contactRow.locator('[data-col="name"]')).toContainText(recipient.fullName);
  await expectInView(contacts, contactRow);
  const placeC = { search: await page.getByRole('searchbox', { name: 'Search contacts' }).inputValue(), selected: await selectedIndexes(contacts) };

  // --- Link 3: "Show in Orders" — the orders that include this contact, named -----------------------
  await detail.getByRole('button', { name: 'Show in Orders' }).click();
  await expect(orders).toBeVisible();
  await expect(page.getByTestId('contact-scope')).toContainText(`Showing orders that include ${recipient.fullName}`);
  await expect(page.getByTestId('contact-scope')).not.toContainText('#');
  await expect(orders.locator('[data-col="id"]', { hasText: order.id })).toBeVisible();

  // --- Back, three times: Alt+Left, the toolbar's arrow, the mouse's back button -------------------
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(contacts).toBeVisible();
  await expect(page.getByRole('searchbox', { name: 'Search contacts' })).toHaveValue(placeC.search);
  await expect.poll(() => selectedIndexes(contacts)).toEqual(placeC.selected);
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(recipient.fullName);

  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(orders).toBeVisible();
  await expect(page.getByTestId('contact-scope')).toBeHidden();
  await expect.poll(() => selectedIndexes(orders)).toEqual(placeB.selected);
  await expect.poll(() => orders.evaluate((el) => el.scrollTop)).toBe(placeB.scrollTop);
  await expect(detail).toContainText(`#${order.id}`);

  await page.evaluate(() => window.dispatchEvent(new MouseEvent('mouseup', { button: 3, bubbles: true })));
  await expect(contacts).toBeVisible();
  await expect(page.getByRole('searchbox', { name: 'Search contacts' })).toHaveValue('');
  await expect(page.getByRole('group', { name: 'Verified' }).getByRole('checkbox', { name: /^Verified/ })).toBeChecked();
  await expect.poll(() => matchCount(page)).toBe(placeA.count);
  await expect.poll(() => selectedIndexes(contacts)).toEqual([index]);
  await expect.poll(() => contacts.evaluate((el) => el.scrollTop)).toBe(placeA.scrollTop);
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText(person.fullName);
  await expect(page.getByRole('button', { name: 'Back', exact: true })).toBeDisabled();

  // --- Forward, three times -----------------------------------------------------------------------
  await page.keyboard.press('Alt+ArrowRight');
  await expect(orders).toBeVisible();
  await expect.poll(() => selectedIndexes(orders)).toEqual(placeB.selected);
  await page.getByRole('button', { name: 'Forward', exact: true }).click();
  await expect(contacts).toBeVisible();
  await expect(page.getByRole('searchbox', { name: 'Search contacts' })).toHaveValue(placeC.search);
  await page.evaluate(() => window.dispatchEvent(new MouseEvent('mouseup', { button: 4, bubbles: true })));
  await expect(page.getByTestId('contact-scope')).toContainText(recipient.fullName);
  await expect(page.getByRole('button', { name: 'Forward', exact: true })).toBeDisabled();
});

test('filter options keep their place when ticked; a Created range that ends before it starts says so', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const labels = page.getByRole('group', { name: 'Labels' });
  const names = async () => (await labels.locator('.opt-label').allTextContents()).map((t) => t.trim());
  const before = await names();
  expect(before.length).toBeGreaterThanOrEqual(8);
  await labels.getByRole('checkbox', { name: before[1] }).check();
  await expect.poll(() => matchCount(page)).toBeLessThan(1200);
  // The counts change with the ticked label (co-occurrence), the places do not.
  await expect.poll(names).toEqual(before);
  await expect(labels).toHaveAttribute('aria-busy', 'false');
  const oneTicked = await matchCount(page);
  await labels.getByRole('checkbox', { name: before[4] }).check();
  // Once the second label's rows and option counts are in, the options are still where they were.
  await expect.poll(() => matchCount(page)).not.toBe(oneTicked);
  await expect(labels).toHaveAttribute('aria-busy', 'false');
  expect(await names()).toEqual(before);
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect.poll(() => matchCount(page)).toBe(1200);

  const from = page.getByLabel('Created from');
  const to = page.getByLabel('Created to');
  await from.fill('2025-12-20');
  await to.fill('2025-12-01');
  const problem = page.getByTestId('filter-problem');
  await expect(problem).toContainText('The Created range starts after it ends');
  await expect(from).toHaveAttribute('aria-invalid', 'true');
  await expect(to).toHaveAccessibleDescription(/first day is after the last/);
  // Rows keep showing (the range is not applied) instead of an empty table.
  await expect.poll(() => matchCount(page)).toBe(1200);
  await expect(page.getByText(/No contacts match/)).toBeHidden();
  await to.fill('2025-12-31');
  await expect(problem).toBeHidden();
  await expect(from).toHaveAttribute('aria-invalid', 'false');
  await expect.poll(() => matchCount(page)).toBeLessThan(1200);
});

test('ticked labels combine with any or all of them', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  const handlers = createHandlers(app.core);
  const count = async (query: object) => ((await dispatchCall(handlers, 'countContacts', { query })) as { ok: true; value: { count: number } }).value.count;
  const facets = (await dispatchCall(handlers, 'contactFacets', { query: {} })) as { ok: true; value: ContactFacets };
  const a = facets.value.labels[0]!;
  // A second label some of a's contacts have too (all narrows, any widens).
  const withA = (await dispatchCall(handlers, 'contactFacets', { query: { labels: [a.value], labelsMode: 'all' } })) as { ok: true; value: ContactFacets };
  const b = withA.value.labels.find((o) => o.value !== a.value && o.count > 0)!;
  expect(b).toBeDefined();
  const any = await count({ labels: [a.value, b.value] });
  const all = await count({ labels: [a.value, b.value], labelsMode: 'all' });
  expect(all).toBeLessThan(any);

  const labels = page.getByRole('group', { name: 'Labels' });
  const mode = labels.getByRole('radiogroup', { name: 'Combine labels' });
  await expect(mode.getByRole('radio', { name: 'Any' })).toBeChecked();
  await labels.getByRole('button', { name: /Show all/ }).click();
  await labels.getByRole('checkbox', { name: a.label }).check();
  await labels.getByRole('checkbox', { name: b.label }).check();
  await expect.poll(() => matchCount(page)).toBe(any);
  await mode.getByText('All', { exact: true }).click();
  await expect(mode.getByRole('radio', { name: 'All' })).toBeChecked();
  await expect.poll(() => matchCount(page)).toBe(all);
  // Each ticked label counts the rows shown; the mode is not a filter of its own.
  await expect(labels.locator('label.opt.checked .count').first()).toHaveText(all.toLocaleString('en-US'));
  await expect(page.locator('.section-head .badge').first()).toHaveText('2');
  await expectAccessible(page, 'labels combined with all');
  await mode.getByText('Any', { exact: true }).click();
  await expect.poll(() => matchCount(page)).toBe(any);
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect.poll(() => matchCount(page)).toBe(1200);
});
