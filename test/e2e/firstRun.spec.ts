/**
 * What stood in a new user's way on a first run, in Chromium with the real handlers and the sample
 * API: one small test per trap, each from the smallest sample that shows it, with screenshots of
 * the visual ones in both themes at 1360×860 and 1024×700.
 */
import type { Locator, Page } from '@playwright/test';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { SAMPLE_ACCESS_TOKEN } from '../../electron/main/sampleApi/server.ts';
import type { CampaignRow } from '../../shared/summaries.ts';
import type { RowPage } from '../../shared/query.ts';
import { expect, test, type AppHarness } from './harness.ts';
import { cellOf, grid, numberIn, rowAt, syncSample } from './tableSpecs.ts';

/** The two window sizes a new user tried. */
const SIZES = [
  { width: 1360, height: 860 },
  { width: 1024, height: 700 },
] as const;

/** Screenshots of the screen as it is, in both themes, at both window sizes (ends at the first). */
async function shots(app: AppHarness, name: string, settle?: () => Promise<void>): Promise<void> {
  for (const size of [...SIZES].reverse()) {
    await app.page.setViewportSize(size);
    await settle?.();
    await app.screenshot(`${name}-${size.width}`);
  }
}

/** The element's right edge is inside the container's (1 px of rounding allowed). */
async function rightEdgeWithin(element: Locator, container: Locator): Promise<boolean> {
  const e = (await element.boundingBox())!;
  const c = (await container.boundingBox())!;
  return e.x + e.width <= c.x + c.width + 1 && e.x >= c.x - 1;
}

/** The first body row of a grid has its data. */
async function filled(table: Locator): Promise<void> {
  await expect(rowAt(table, 0).locator('.skeleton')).toHaveCount(0);
}

/** The text selected in the page ('' when none). */
async function selectedText(page: Page): Promise<string> {
  return page.evaluate(() => window.getSelection()?.toString() ?? '');
}

test.describe('a small sample', () => {
  test.use({ sampleContacts: 300, sampleOrders: 120 });

  test('a missing refresh token says that it is missing', async ({ app }) => {
    const { page } = app;
    const baseUrl = await app.core.sampleApi.ensure();
    await app.open();
    await page.getByRole('button', { name: /Connect to your account/ }).click();
    const form = page.getByRole('form', { name: 'New profile' });
    await form.getByLabel('Name').fill('Acme');
    await form.getByText('Custom', { exact: true }).click();
    await form.getByLabel('Base URL').fill(baseUrl);
    await form.getByLabel('Access token').fill(SAMPLE_ACCESS_TOKEN);
    await form.getByRole('button', { name: 'Test connection' }).click();
    const contacts = form.getByTestId('connection-contacts');
    await expect(form.getByTestId('connection-orders')).toContainText('Orders: ✓ 120 orders');
    await expect(contacts).toContainText('No refresh token was given');
    await expect(contacts).not.toContainText('rejected');
    await shots(app, 'first-run-missing-refresh-token', () => contacts.scrollIntoViewIfNeeded());
  });

  test('a click on a sorted header reverses it after a multi-column sort too', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    const table = grid(page, 'Contacts');
    const header = (title: string) => table.getByRole('columnheader', { name: title, exact: true });
    await header('State').getByRole('button').click();
    await header('City').getByRole('button').click({ modifiers: ['Shift'] });
    await expect(header('State')).toHaveAttribute('aria-sort', 'ascending');
    await expect(header('City').locator('.sort-order')).toHaveText('2');
    await header('State').getByRole('button').click();
    await expect(header('State')).toHaveAttribute('aria-sort', 'descending');
    // Sorted by it alone now, as a plain click on an unsorted header would.
    await expect(table.locator('.sort-order')).toHaveCount(0);
    await filled(table);
    const states = await Promise.all(Array.from({ length: 5 }, async (_, i) => ((await cellOf(rowAt(table, i), 'state').textContent()) ?? '').trim()));
    expect(states).toEqual(states.toSorted().toReversed());
    // A third click: the default order, as the shortcuts sheet says.
    await header('State').getByRole('button').click();
    await expect(header('State')).toHaveAttribute('aria-sort', 'none');
  });

  test('the default order columns fit at 1360 px with a date visible', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+3');
    const orders = grid(page, 'Orders');
    await filled(orders);
    await expect(page.locator('[data-pane="filters"]')).toBeVisible();
    const headers = orders.getByRole('columnheader');
    for (const h of await headers.all()) expect(await rightEdgeWithin(h, orders), `${(await h.textContent())?.trim()} fits`).toBe(true);
    // Each title whole, the date's too.
    expect(await orders.locator('.th-title').evaluateAll((titles) => titles.filter((t) => t.scrollWidth > t.clientWidth + 1).map((t) => t.textContent))).toEqual([]);
    const date = orders.getByRole('columnheader', { name: 'Delivery date' });
    await expect(date).toBeVisible();
    await expect(cellOf(rowAt(orders, 0), 'deliveryDate')).toBeVisible();
    await shots(app, 'first-run-orders');
  });

  test('at 1024 px the sidebar folds to icons by itself', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('button', { name: 'Collapse the sidebar' })).toBeVisible();
    await page.setViewportSize(SIZES[1]);
    await expect(nav.getByRole('button', { name: 'Expand the sidebar' })).toBeVisible();
    await shots(app, 'first-run-sidebar');
    await page.setViewportSize(SIZES[0]);
    await expect(nav.getByRole('button', { name: 'Collapse the sidebar' })).toBeVisible();
  });

  test('an order detail shows who was not delivered at its default width', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+3');
    const orders = grid(page, 'Orders');
    await filled(orders);
    const handlers = createHandlers(app.core);
    const found = (await dispatchCall(handlers, 'queryOrders', { query: { delivered: ['none'] }, window: { offset: 0, limit: 1 } })) as { ok: true; value: RowPage<{ id: string }> };
    const orderId = found.value.rows[0]!.id;
    await page.getByRole('searchbox', { name: 'Search orders' }).fill(orderId);
    await orders.getByRole('row').filter({ hasText: orderId }).click();
    const recipients = page.getByTestId('detail-panel').getByRole('grid', { name: 'Recipients of this order' });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const delivered = rowAt(recipients, 0).locator('[data-col="delivered"]');
      await expect(delivered).toContainText('No');
      expect(await rightEdgeWithin(recipients.getByRole('columnheader', { name: 'Delivered' }), recipients), `Delivered fits at ${size.width}`).toBe(true);
      expect(await rightEdgeWithin(delivered, recipients)).toBe(true);
      expect(await recipients.getByRole('columnheader', { name: 'Delivered' }).evaluate((h) => h.scrollWidth > h.clientWidth + 1)).toBe(false);
    }
    await shots(app, 'first-run-order-detail');
  });

  test('a detail over the table says that it hides the filters', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+3');
    const orders = grid(page, 'Orders');
    await filled(orders);
    await rowAt(orders, 0).click();
    await expect(page.getByTestId('detail-panel')).toBeVisible();
    // At 1024 px a wider detail goes over the table, and says that the filters are under it.
    await page.setViewportSize(SIZES[1]);
    const slot = page.locator('[data-pane="detail"]');
    const note = page.getByTestId('detail-overlay-note');
    await expect(slot).toHaveAttribute('data-layout', 'docked');
    await expect(note).toHaveCount(0);
    await page.getByRole('separator', { name: 'Resize the detail panel' }).focus();
    await page.keyboard.press('End');
    await expect(slot).toHaveAttribute('data-layout', 'overlay');
    await expect(note).toContainText('filters');
    await app.screenshot('first-run-detail-overlay-1024');
    await page.setViewportSize(SIZES[0]);
    await expect(slot).toHaveAttribute('data-layout', 'docked');
    await expect(note).toHaveCount(0);
  });

  test('the removed mark keeps the id whole', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    const dataset = app.core.sampleApi.server!.dataset;
    const removedId = [...dataset.orderIds()].at(-1)!;
    dataset.deleteOrder(removedId);
    await page.keyboard.press('Control+r');
    await expect(page.getByTestId('status-sync')).toBeVisible();
    await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });
    await page.keyboard.press('Control+3');
    const orders = grid(page, 'Orders');
    await page.getByRole('group', { name: 'Changed in the last sync' }).locator('label').filter({ hasText: 'Removed' }).locator('input').check();
    const row = orders.getByRole('row').filter({ hasText: removedId });
    await expect(row).toHaveCount(1);
    const idCell = cellOf(row, 'id');
    await expect(idCell).toContainText('Removed');
    for (const size of SIZES) {
      await page.setViewportSize(size);
      expect(await idCell.evaluate((cell) => cell.scrollWidth > cell.clientWidth), `the id is cut at ${size.width}`).toBe(false);
    }
    await shots(app, 'first-run-removed-order');
  });

  test('a double-click that opens a row selects no text', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+3');
    const orders = grid(page, 'Orders');
    await filled(orders);
    // The id is text a person may select by dragging; a double-click still opens the order.
    await cellOf(rowAt(orders, 1), 'id').dblclick();
    await expect(page.getByTestId('detail-panel')).toBeVisible();
    expect(await selectedText(page)).toBe('');
    // A recipient's row opens its contact the same way.
    const panel = page.getByTestId('detail-panel');
    const recipients = panel.getByRole('grid', { name: 'Recipients of this order' });
    const name = ((await cellOf(rowAt(recipients, 0), 'name').textContent()) ?? '').trim();
    await cellOf(rowAt(recipients, 0), 'tracking').dblclick();
    await expect(panel.getByRole('heading', { level: 2 })).toHaveText(name);
    expect(await selectedText(page)).toBe('');
  });

  test('the export dialog opens on its first choice', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+3');
    const orders = grid(page, 'Orders');
    await filled(orders);
    await orders.focus();
    await page.keyboard.press('Control+e');
    const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('radio', { name: 'Orders', exact: true })).toBeChecked();
    await expect(dialog.getByRole('radio', { name: 'Orders', exact: true })).toBeFocused();
  });

  test('“Save status names” is disabled while nothing changed', async ({ app }) => {
    const { page } = app;
    await syncSample(app);
    await page.keyboard.press('Control+7');
    const form = page.getByRole('form', { name: /^Status names of / });
    const save = form.getByRole('button', { name: 'Save status names' });
    await expect(save).toBeDisabled();
    await shots(app, 'first-run-status-names-unchanged');
    await page.getByTestId('status-names').getByRole('button', { name: 'Name a status code' }).click();
    // An empty row is no change yet.
    await expect(save).toBeDisabled();
    await page.keyboard.type('0');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Draft');
    await expect(save).toBeEnabled();
    await save.click();
    await expect(page.getByText(/Status names of .* saved/)).toBeVisible();
    await expect(save).toBeDisabled();
  });
});

test.describe('more than 1,000 campaigns', () => {
  test.use({ sampleContacts: 60, sampleOrders: 3600 });

  test('the campaigns list shows the scheduled delivery and the delivered count, and scrolls past 1,000', async ({ app }) => {
    test.setTimeout(240_000);
    const { page } = app;
    await syncSample(app, 180_000);
    const handlers = createHandlers(app.core);
    const all = (await dispatchCall(handlers, 'queryCampaigns', { query: {}, window: { offset: 0, limit: 1 } })) as { ok: true; value: RowPage<CampaignRow> };
    const total = all.value.total.count;
    expect(total).toBeGreaterThan(1000);

    await page.keyboard.press('Control+5');
    const table = page.getByRole('table', { name: 'Campaigns' });
    await expect(table.getByRole('row').nth(1)).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'Scheduled delivery' })).toBeVisible();
    await expect(table.getByRole('columnheader', { name: 'Last delivery' })).toHaveCount(0);
    const first = all.value.rows[0]!;
    const firstRow = table.getByRole('row').nth(1);
    await expect(firstRow.getByTestId('campaign-delivered')).toHaveText(new RegExp(`${first.delivered} of ${first.recipients}`));
    await shots(app, 'first-run-campaigns');

    // Scrolling to the end brings every campaign, not only the first 1,000.
    const bodyRows = table.locator('tbody tr');
    await expect(page.getByText(/search to find the others/)).toHaveCount(0);
    await expect
      .poll(
        async () => {
          await bodyRows.last().scrollIntoViewIfNeeded();
          return bodyRows.count();
        },
        { timeout: 30_000 },
      )
      .toBe(total);
    expect(numberIn(await page.getByTestId('summary-count').textContent())).toBe(total);
  });
});
