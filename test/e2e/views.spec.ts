/**
 * Saved views in Chromium with the real handlers and the in-thread sample API: views made through
 * the service-query editor hold exactly the records the sample API returns for the same queries
 * (computed here from its hidden state, independently of the app), and keep opening, searching,
 * filtering, showing details and exporting the same rows once the service is gone. Then the
 * views' own life: rename, duplicate, delete, a changed query read again, Preview's counts, the
 * editor's validation, members newer than the mirror, settings saved to a view.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import type { AppHarness } from './harness.ts';
import { expect, test } from './harness.ts';
import { expectAccessible, grid, numberIn, parseTsv, rowAt, syncSample } from './tableSpecs.ts';

type Dataset = NonNullable<AppHarness['core']['sampleApi']['server']>['dataset'];

/** The sample API's dataset (the in-thread server's; kept after the server stops). */
function datasetOf(app: AppHarness): Dataset {
  const server = app.core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');
  return server.dataset;
}

/** Ids of the contacts whose hidden state passes `keep`, sorted: the service's own answer. */
function contactIds(ds: Dataset, keep: (h: NonNullable<ReturnType<Dataset['contactHidden']>>) => boolean): string[] {
  const ids: string[] = [];
  for (const id of ds.contactIds()) {
    const hidden = ds.contactHidden(id);
    if (hidden && keep(hidden)) ids.push(id);
  }
  return ids.sort();
}

/** Ids of the orders whose hidden state passes `keep`, sorted. */
function orderIds(ds: Dataset, keep: (h: NonNullable<ReturnType<Dataset['orderHidden']>>) => boolean): string[] {
  const ids: string[] = [];
  for (const id of ds.orderIds()) {
    const hidden = ds.orderHidden(id);
    if (hidden && keep(hidden)) ids.push(id);
  }
  return ids.sort();
}

/**
 * Takes the sample API down and keeps it down: requests go to its old address and are refused, as
 * they would be by a service that went away (`ensure` would otherwise start it again).
 */
async function takeSampleApiDown(app: AppHarness): Promise<void> {
  const api = app.core.sampleApi as { ensure: () => Promise<string>; stop: () => Promise<void> };
  const baseUrl = await api.ensure();
  await api.stop();
  api.ensure = async () => baseUrl;
}

/** The number of rows the toolbar says the table holds. */
async function shownCount(page: Page): Promise<number> {
  return numberIn(await page.getByTestId('match-count').textContent());
}

/** A view's button in the sidebar. */
function sidebarView(page: Page, resource: 'contacts' | 'orders', name: string) {
  return page.getByTestId(`${resource}-views`).getByRole('button', { name: new RegExp(`^${name.replace(/[()]/g, '\\$&')}(?:,|$)`) });
}

/** Exports the table as it stands (every column, "Current view") and returns one column's values, sorted. */
async function exportColumn(app: AppHarness, header: 'Contact ID' | 'Order ID'): Promise<string[]> {
  const { page } = app;
  const before = app.platformLog.savedFiles.length;
  await page.keyboard.press('Control+e');
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio', { name: /Current view/ })).toBeChecked();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(/Exported [\d,]+ rows/)).toBeVisible({ timeout: 30_000 });
  const file = app.platformLog.savedFiles[before];
  if (!file) throw new Error('the export asked for no file');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  const [head = [], ...rows] = parseTsv(readFileSync(file, 'utf8'), ',');
  const at = head.indexOf(header);
  expect(at, `the export has a ${header} column`).toBeGreaterThanOrEqual(0);
  return rows.map((r) => r[at] ?? '').sort();
}

/** Opens "Save view…" from the toolbar, names the view and goes on to the service-query editor. */
async function startViewWithQuery(page: Page, name: string, screenshot?: (name: string) => Promise<void>) {
  await page.getByRole('button', { name: 'Save view…' }).click();
  const dialog = page.getByTestId('view-dialog');
  await expect(dialog.getByRole('heading', { name: 'Save view' })).toBeVisible();
  await expect(dialog.getByLabel('Name')).toBeFocused();
  await dialog.getByLabel('Name').fill(name);
  // The service's own parameters are for what the filter pane does not offer: behind "Advanced".
  await expect(dialog.getByRole('checkbox', { name: /Add a service query/ })).toBeHidden();
  await dialog.getByText('Advanced', { exact: true }).click();
  await dialog.getByRole('checkbox', { name: /Add a service query/ }).check();
  await screenshot?.('39-save-view-advanced');
  await dialog.getByRole('button', { name: 'Next: service query…' }).click();
  await expect(dialog.getByRole('heading', { name: 'Save view: service query' })).toBeVisible();
  return dialog;
}

/** Waits until the view on screen shows its members as read, `count` of them, in the table too. */
async function expectMembers(page: Page, count: number): Promise<void> {
  await expect(page.getByTestId('view-as-of')).toContainText(/Members as of .*\d/, { timeout: 60_000 });
  await expect.poll(() => shownCount(page), { timeout: 30_000 }).toBe(count);
}

test('views made in the editor hold what the service returns, and keep working offline', async ({ app }) => {
  test.setTimeout(420_000);
  const { page } = app;
  await syncSample(app);
  const ds = datasetOf(app);

  // What the service returns for each query, from the sample API's hidden state.
  const failed = contactIds(ds, (h) => h.addressStatus === 'Failed');
  const marchYears = new Map<number, number>();
  for (const id of ds.contactIds()) {
    const h = ds.contactHidden(id);
    const d = h?.lastMailedDate ? new Date(h.lastMailedDate) : null;
    if (h?.lastMailedStatus === 'Mailed' && d && d.getUTCMonth() === 2) marchYears.set(d.getUTCFullYear(), (marchYears.get(d.getUTCFullYear()) ?? 0) + 1);
  }
  const year = [...marchYears.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (year === undefined) throw new Error('the sample data mails nobody in March');
  const mailedInMarch = contactIds(ds, (h) => {
    const d = h.lastMailedDate ? new Date(h.lastMailedDate) : null;
    return h.lastMailedStatus === 'Mailed' && d !== null && d.getUTCFullYear() === year && d.getUTCMonth() === 2;
  });
  // The service may know payment statuses beyond its SDK's: some orders carry one, typed below.
  for (const [i, id] of [...ds.orderIds()].entries()) if (i % 9 === 4) ds.setOrderHidden(id, { paymentStatus: 'Refunded' });
  const refunded = orderIds(ds, (h) => h.paymentStatus === 'Refunded');
  expect(failed.length).toBeGreaterThan(50);
  expect(mailedInMarch.length).toBeGreaterThan(3);
  expect(refunded.length).toBeGreaterThan(3);
  const total = await shownCount(page);

  // --- "Failed addresses": addressStatus = Failed ------------------------------------------------
  let dialog = await startViewWithQuery(page, 'Failed addresses', (name) => app.screenshot(name));
  await dialog.getByRole('group', { name: 'addressStatus' }).getByRole('checkbox', { name: 'Failed' }).check();
  await expect(dialog.getByTestId('query-preview')).toContainText('addressStatus=Failed');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-counts')).toContainText(`${failed.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} contacts match`);
  await expect(dialog.getByTestId('preview-request')).toHaveText(/^\/contacts\?page=0&pageSize=\d+&addressStatus=%22Failed%22$/);
  await expect(dialog.getByTestId('preview-equal')).toHaveCount(0);
  await expectAccessible(page, 'service-query editor');
  await app.screenshot('40-view-editor-preview');
  await dialog.getByRole('button', { name: 'Save as view' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Failed addresses', level: 1 })).toBeVisible();
  await expect(page.getByTestId('view-param')).toHaveText(['addressStatus=Failed']);
  await expectMembers(page, failed.length);
  await expect(sidebarView(page, 'contacts', 'Failed addresses')).toContainText(failed.length.toLocaleString('en-US'));
  expect(await exportColumn(app, 'Contact ID')).toEqual(failed);

  // --- "Mailed in March": lastMailedStatus = Mailed, lastMailedDate 1–31 March -----------------------
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Contacts/ }).click();
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  await expect.poll(() => shownCount(page)).toBe(total);
  dialog = await startViewWithQuery(page, 'Mailed in March');
  await dialog.getByRole('group', { name: 'lastMailedStatus' }).getByRole('checkbox', { name: 'Mailed', exact: true }).check();
  await dialog.getByLabel('lastMailedDate from').fill(`${year}-03-01`);
  await dialog.getByLabel('lastMailedDate to').fill(`${year}-03-31`);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-counts')).toContainText(`${mailedInMarch.length} of ${total.toLocaleString('en-US')} contacts match`);
  await expect(dialog.getByTestId('preview-request')).toContainText('lastMailedStatus=%22Mailed%22');
  await expect(dialog.getByTestId('preview-request')).toContainText('lastMailedDate=');
  await dialog.getByRole('button', { name: 'Save as view' }).click();
  await expect(page.getByRole('heading', { name: 'Mailed in March', level: 1 })).toBeVisible();
  await expect(page.getByTestId('view-param')).toHaveText(['lastMailedStatus=Mailed', `lastMailedDate=${year}-03-01..${year}-03-31`]);
  await expectMembers(page, mailedInMarch.length);
  expect(await exportColumn(app, 'Contact ID')).toEqual(mailedInMarch);

  // --- An orders view by paymentStatus (a value typed: the cache has never seen one) ----------------
  await page.keyboard.press('Control+3');
  await expect(grid(page, 'Orders')).toBeVisible();
  dialog = await startViewWithQuery(page, 'Refunded orders');
  const paymentValue = dialog.getByLabel('Another paymentStatus value');
  await paymentValue.fill('Refunded');
  await paymentValue.press('Enter');
  await expect(dialog.getByRole('group', { name: 'paymentStatus' }).getByRole('checkbox', { name: 'Refunded' })).toBeChecked();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-counts')).toContainText(`${refunded.length} of ${ds.orderCount} orders match`);
  await dialog.getByRole('button', { name: 'Save as view' }).click();
  await expect(page.getByRole('heading', { name: 'Refunded orders', level: 1 })).toBeVisible();
  await expectMembers(page, refunded.length);
  expect(await exportColumn(app, 'Order ID')).toEqual(refunded);
  await expect(sidebarView(page, 'orders', 'Refunded orders')).toContainText(String(refunded.length));
  await expectAccessible(page, 'orders view');
  await app.screenshot('41-views-in-sidebar');

  // --- The service goes away: a refresh fails, the members stay ---------------------------------------
  await takeSampleApiDown(app);
  await sidebarView(page, 'contacts', 'Failed addresses').click();
  await expectMembers(page, failed.length);
  const asOf = (await page.getByTestId('view-as-of').textContent()) ?? '';
  const when = /Members as of (.+?) ·/.exec(asOf)?.[1] ?? '';
  expect(when).not.toBe('');
  await page.getByTestId('view-header').getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('view-refresh-failed')).toContainText('The last refresh failed', { timeout: 90_000 });
  await expect(page.getByTestId('view-refresh-failed')).toContainText(`The members as of ${when} are kept.`);
  await expect(page.getByTestId('view-as-of')).toContainText(`Offline — data from ${when}`, { timeout: 30_000 });
  await expect.poll(() => shownCount(page)).toBe(failed.length);

  // Search, a filter and a detail inside the view, from the cache.
  const table = grid(page, 'Contacts');
  const someone = ((await rowAt(table, 3).locator('[data-col="name"]').textContent()) ?? '').trim().split(/\s+/).at(-1) ?? '';
  expect(someone.length).toBeGreaterThan(1);
  await page.getByRole('searchbox', { name: 'Search contacts' }).fill(someone);
  await expect.poll(() => shownCount(page)).toBeLessThan(failed.length);
  const searched = await shownCount(page);
  expect(searched).toBeGreaterThan(0);
  await expect(page.getByTestId('view-changed')).toBeVisible();
  const found = await exportColumn(app, 'Contact ID');
  expect(found.length).toBe(searched);
  expect(found.every((id) => failed.includes(id))).toBe(true);
  await page.getByRole('searchbox', { name: 'Search contacts' }).fill('');
  await expect.poll(() => shownCount(page)).toBe(failed.length);
  // The counts are read once they belong to the rows on screen (they show in italics until then).
  await expect(page.getByRole('group', { name: 'Labels' })).toHaveAttribute('aria-busy', 'false');
  const labelOption = page.getByRole('group', { name: 'Labels' }).locator('label:has(input[type="checkbox"])').first();
  const labelCount = numberIn(await labelOption.locator('.count').textContent());
  await labelOption.locator('input').check();
  await expect.poll(() => shownCount(page)).toBe(labelCount);
  const labelled = await exportColumn(app, 'Contact ID');
  expect(labelled.length).toBe(labelCount);
  expect(labelled.every((id) => failed.includes(id))).toBe(true);
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect.poll(() => shownCount(page)).toBe(failed.length);
  await rowAt(table, 0).click();
  await expect(page.getByTestId('detail-panel').getByRole('heading', { name: 'Address', level: 3 })).toBeVisible();
  await expectAccessible(page, 'a view offline');
  await app.screenshot('42-view-offline');
  await page.keyboard.press('Escape');
  expect(await exportColumn(app, 'Contact ID')).toEqual(failed);

  // The editor says that a service query needs the service.
  await page.getByRole('button', { name: 'View actions' }).click();
  await page.getByRole('menuitem', { name: 'Edit query…' }).click();
  dialog = page.getByTestId('view-dialog');
  await expect(dialog.getByTestId('editor-offline')).toContainText('a service query needs the service');
  await expect(dialog.getByRole('group', { name: 'addressStatus' }).getByRole('checkbox', { name: 'Failed' })).toBeChecked();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'View actions' })).toBeFocused();

  // The other views open and export the same rows offline.
  await sidebarView(page, 'contacts', 'Mailed in March').click();
  await expect(page.getByRole('heading', { name: 'Mailed in March', level: 1 })).toBeVisible();
  await expect(page.getByTestId('view-as-of')).toContainText('Offline — data from');
  await expect.poll(() => shownCount(page)).toBe(mailedInMarch.length);
  expect(await exportColumn(app, 'Contact ID')).toEqual(mailedInMarch);
  await sidebarView(page, 'orders', 'Refunded orders').click();
  await expect(page.getByRole('heading', { name: 'Refunded orders', level: 1 })).toBeVisible();
  await expect(page.getByTestId('view-as-of')).toContainText('Offline — data from');
  await expect.poll(() => shownCount(page)).toBe(refunded.length);
  await rowAt(grid(page, 'Orders'), 0).click();
  await expect(page.getByRole('grid', { name: 'Recipients of this order' })).toBeVisible();
  expect(await exportColumn(app, 'Order ID')).toEqual(refunded);

  // Back returns to the previous view; the Contacts item shows every contact again.
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(page.getByRole('heading', { name: 'Mailed in March', level: 1 })).toBeVisible();
  await page.keyboard.press('Control+2');
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  await expect.poll(() => shownCount(page)).toBe(total);
});

test('views are renamed, duplicated, edited, deleted; the editor checks what is typed', async ({ app }) => {
  test.setTimeout(300_000);
  const { page } = app;
  await syncSample(app);
  const ds = datasetOf(app);
  const returns = contactIds(ds, (h) => h.isReturnAddress);
  const total = await shownCount(page);

  // The editor refuses an impossible date and a range that ends before it starts, at the field.
  const dialog = await startViewWithQuery(page, 'Return addresses');
  const from = dialog.getByLabel('lastMailedDate from');
  const to = dialog.getByLabel('lastMailedDate to');
  await from.fill('2024-02-30');
  await from.blur();
  await expect(from).toHaveAttribute('aria-invalid', 'true');
  await expect(from).toHaveAccessibleDescription(/2024-02-30 is not a date: February 2024 has 29 days\./);
  await expect(to).toHaveAttribute('aria-invalid', 'false');
  await from.fill('2024-03-31');
  await to.fill('2024-03-01');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(to).toBeFocused();
  await expect(to).toHaveAttribute('aria-invalid', 'true');
  await expect(to).toHaveAccessibleDescription(/ends before it starts/);
  await expect(from).toHaveAttribute('aria-invalid', 'false');
  await expectAccessible(page, 'editor with errors');
  await from.fill('');
  await to.fill('');
  await expect(to).toHaveAttribute('aria-invalid', 'false');

  // A filter the service does not filter on gives the unfiltered count: the editor says so.
  const withProperty = dialog.getByRole('radiogroup', { name: 'withPropertyAddresses' });
  await withProperty.getByText('Yes', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-counts')).toContainText(`${total.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} contacts`);
  await expect(dialog.getByTestId('preview-equal')).toContainText('the service may have ignored a filter');
  await withProperty.getByText('Any', { exact: true }).click();
  await expect(dialog.getByTestId('query-preview')).toContainText('The query changed since this preview');
  await dialog.getByRole('radiogroup', { name: 'isReturnAddress' }).getByText('Yes', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-counts')).toContainText(`${returns.length} of ${total.toLocaleString('en-US')} contacts match`);
  await expect(dialog.getByTestId('preview-request')).toContainText('isReturnAddress=true');
  await dialog.getByRole('button', { name: 'Save as view' }).click();
  await expectMembers(page, returns.length);

  // Rename.
  await page.getByRole('button', { name: 'View actions' }).click();
  await page.getByRole('menuitem', { name: 'Rename…' }).click();
  const rename = page.getByTestId('view-dialog');
  await expect(rename.getByRole('heading', { name: 'Rename “Return addresses”' })).toBeVisible();
  await rename.getByLabel('Name').fill('Return addresses (all)');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByRole('heading', { name: 'Return addresses (all)', level: 1 })).toBeVisible();
  await expect(sidebarView(page, 'contacts', 'Return addresses (all)')).toHaveAttribute('aria-current', 'page');

  // Duplicate: the copy opens, with the same members.
  await page.getByRole('button', { name: 'View actions' }).click();
  await page.getByRole('menuitem', { name: 'Duplicate' }).click();
  await expect(page.getByRole('heading', { name: 'Return addresses (all) (copy)', level: 1 })).toBeVisible();
  await expectMembers(page, returns.length);
  await expect(page.getByTestId('contacts-views').getByRole('button')).toHaveCount(2);

  // Edit the copy's query: its members are read again.
  await page.getByRole('button', { name: 'View actions' }).click();
  await page.getByRole('menuitem', { name: 'Edit query…' }).click();
  const edit = page.getByTestId('view-dialog');
  await edit.getByRole('radiogroup', { name: 'isReturnAddress' }).getByText('No', { exact: true }).click();
  await edit.getByRole('button', { name: 'Save query' }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByTestId('view-param')).toHaveText(['isReturnAddress=false']);
  await expectMembers(page, total - returns.length);

  // Settings changed in a view are saved to it on request, and come back when it is opened.
  await page.getByRole('group', { name: 'State' }).locator('label').first().locator('input').check();
  await expect(page.getByTestId('view-changed')).toBeVisible();
  const narrowed = await shownCount(page);
  await page.getByTestId('view-header').getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('view-changed')).toBeHidden();
  await sidebarView(page, 'contacts', 'Return addresses (all)').click();
  await expect.poll(() => shownCount(page)).toBe(returns.length);
  await sidebarView(page, 'contacts', 'Return addresses (all) (copy)').click();
  await expect.poll(() => shownCount(page)).toBe(narrowed);
  await expect(page.getByRole('button', { name: /Filters/ })).toContainText('1');

  // Delete the copy, behind a confirmation: the full table is back.
  await page.getByRole('button', { name: 'View actions' }).click();
  await page.getByRole('menuitem', { name: 'Delete…' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete the view “Return addresses (all) (copy)”?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Delete view' }).click();
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  await expect(page.getByTestId('contacts-views').getByRole('button')).toHaveCount(1);
  expect((await app.core.views.list(app.core.activeProfile())).map((v) => v.name)).toEqual(['Return addresses (all)']);

  // "Refresh after every sync" is a setting of the view.
  await sidebarView(page, 'contacts', 'Return addresses (all)').click();
  await page.getByRole('button', { name: 'View actions' }).click();
  await expect(page.getByRole('menuitemcheckbox', { name: 'Refresh after every sync' })).toHaveAttribute('aria-checked', 'true');
  await page.getByRole('menuitemcheckbox', { name: 'Refresh after every sync' }).click();
  await expect.poll(async () => (await app.core.views.list(app.core.activeProfile()))[0]?.refreshAfterSync).toBe(false);

  // A member the last sync did not bring is shown, marked as newer than the mirror.
  const [added = ''] = ds.addContacts(1);
  ds.setContactHidden(added, { isReturnAddress: true });
  const addedName = ds.contactById(added)?.lastName ?? '';
  await page.getByTestId('view-header').getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByTestId('view-as-of')).toContainText('1 newer than the last sync', { timeout: 60_000 });
  await expect.poll(() => shownCount(page)).toBe(returns.length + 1);
  await page.getByRole('searchbox', { name: 'Search contacts' }).fill(addedName);
  const mark = grid(page, 'Contacts').getByTestId('newer-mark');
  await expect(mark.first()).toBeVisible();
  await expect(mark.first()).toHaveAttribute('title', 'Newer than the last sync');

  // The sidebar's views are reached with the keyboard.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Contacts/ }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(sidebarView(page, 'contacts', 'Return addresses (all)')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Return addresses (all)', level: 1 })).toBeVisible();
});
