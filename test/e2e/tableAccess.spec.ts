/**
 * Keyboard and assistive-technology use in Chromium: the shortcuts sheet (Ctrl+/ and the Help
 * menu's command) agrees with the sidebar; F6 cycles the panes; the skip link leads to the table;
 * forced colours keep the selection, the focus and the current view visible; focus returns to
 * where it came from when a dialog closes; profile form errors stay tied to their inputs, are
 * announced, and the first invalid field takes the focus; Export waits until something is cached
 * and can export the table's own columns. Screenshots of the shortcuts sheet and of forced colours.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './harness.ts';
import { expectAccessible, grid, headerTitles, parseTsv, pixels, rowAt, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 400, sampleOrders: 80 });

/** Sends a native menu command to the page, as the main process does. */
async function menuCommand(page: Page, command: string): Promise<void> {
  await page.evaluate((c) => (window as unknown as { __letterdeskEmit: (e: string, p: unknown) => void }).__letterdeskEmit('menuCommand', { command: c }), command);
}

test('the shortcuts sheet, F6, the skip link, forced colours and focus that comes back', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const sidebar = page.getByRole('navigation', { name: 'Main' });

  // --- The shortcuts sheet: Ctrl+/ and the Help menu's command; it agrees with the sidebar --------
  await table.focus();
  await page.keyboard.press('Control+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  const profilesKey = (await sheet.locator('dd', { hasText: /^Profiles$/ }).locator('xpath=preceding-sibling::dt[1]').textContent())?.trim();
  expect(profilesKey).toBe('Ctrl+7');
  await expect(sidebar.getByRole('button', { name: 'Profiles' })).toHaveAttribute('title', `Profiles (${profilesKey})`);
  for (const key of ['Ctrl+A', 'Ctrl+C', 'Shift+F10', 'F6', 'Alt+←', 'Ctrl+/', 'Space']) await expect(sheet.locator('kbd', { hasText: key }).first()).toBeVisible();
  await expectAccessible(page, 'shortcuts sheet');
  await app.screenshot('tables-shortcuts-sheet');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(table).toBeFocused();
  await menuCommand(page, 'shortcuts');
  await expect(sheet).toBeVisible();
  await sheet.getByRole('button', { name: 'Close' }).click();
  await expect(sheet).toBeHidden();
  await expect(table).toBeFocused();
  // Ctrl+7 goes to Profiles, as both say.
  await page.keyboard.press('Control+7');
  await expect(page.getByRole('heading', { name: 'Profiles', level: 1 })).toBeVisible();
  await page.keyboard.press('Control+2');

  // --- Ctrl+F on a list takes the focus at once: the keys of the same moment reach the box ---------
  await table.focus();
  const typedAtOnce = await page.evaluate(() => {
    const key = (init: KeyboardEventInit) => (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init }));
    key({ key: 'f', code: 'KeyF', ctrlKey: true });
    // No frame has been painted since the key: the box must already hold the focus.
    return document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName;
  });
  expect(typedAtOnce).toBe('Search contacts');
  await page.keyboard.press('Escape');
  await expect(table).toBeFocused();

  // --- F6 and Shift+F6 cycle the panes: sidebar, filters, table, detail ----------------------------
  await table.focus();
  await page.keyboard.press('F6');
  await expect(sidebar.getByRole('button', { name: 'Contacts' })).toBeFocused();
  await page.keyboard.press('F6');
  await expect(page.getByRole('complementary', { name: 'Contact filters' }).locator(':focus')).toHaveCount(1);
  await page.keyboard.press('F6');
  await expect(table).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const detail = page.getByTestId('detail-panel');
  await expect(detail).toBeVisible();
  await page.keyboard.press('F6');
  await expect(detail).toBeFocused();
  await page.keyboard.press('F6');
  await expect(sidebar.getByRole('button', { name: 'Contacts' })).toBeFocused();
  await page.keyboard.press('Shift+F6');
  await expect(detail).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
  await expect(table).toBeFocused();

  // --- The skip link: the first Tab stop, shown when focused, straight to the table ----------------
  await app.reload();
  await expect(rowAt(table, 0).locator('.skeleton')).toHaveCount(0);
  await page.keyboard.press('Tab');
  const skip = page.getByRole('button', { name: 'Skip to the table' });
  await expect(skip).toBeFocused();
  expect((await skip.boundingBox())!.y).toBeGreaterThanOrEqual(0);
  await page.keyboard.press('Enter');
  await expect(table).toBeFocused();

  // --- Forced colours: the selection, the focus and the current view stay visible -------------------
  await page.emulateMedia({ forcedColors: 'active' });
  await rowAt(table, 1).click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+ArrowDown');
  // Keyboard focus (F6 round trip) so the grid's focus ring is the keyboard's.
  for (let i = 0; i < 3; i++) await page.keyboard.press('F6');
  await expect(table).toBeFocused();
  const look = await page.evaluate(() => {
    const style = (el: Element | null) => (el ? getComputedStyle(el) : null);
    const selected = style(document.querySelector('#contacts-grid-row-1'));
    const plain = style(document.querySelector('#contacts-grid-row-5'));
    const active = style(document.querySelector('nav [aria-current="page"]'));
    const other = style(document.querySelector('nav button:not([aria-current])'));
    return {
      forced: matchMedia('(forced-colors: active)').matches,
      selectedBg: selected?.backgroundColor,
      plainBg: plain?.backgroundColor,
      activeMark: `${active?.outlineStyle} ${active?.borderLeftWidth}`,
      otherMark: `${other?.outlineStyle} ${other?.borderLeftWidth}`,
    };
  });
  expect(look.forced).toBe(true);
  expect(look.selectedBg).not.toBe(look.plainBg);
  expect(look.activeMark).toBe('solid 4px');
  expect(look.otherMark).not.toBe(look.activeMark);
  // And on screen: the focus ring at the grid's edge, the selected row's colour, the active view's bar.
  const g = (await table.boundingBox())!;
  const sel = (await rowAt(table, 1).boundingBox())!;
  const plainRow = (await rowAt(table, 5).boundingBox())!;
  const active = (await sidebar.getByRole('button', { name: 'Contacts' }).boundingBox())!;
  const other = (await sidebar.getByRole('button', { name: 'Orders' }).boundingBox())!;
  const [ring, inside, selectedPx, plainPx, activePx, otherPx] = await pixels(page, [
    { x: g.x + g.width / 2, y: g.y + g.height - 1 },
    { x: g.x + g.width / 2, y: g.y + g.height - 8 },
    { x: sel.x + 5, y: sel.y + sel.height / 2 },
    { x: plainRow.x + 5, y: plainRow.y + plainRow.height / 2 },
    { x: active.x + 1, y: active.y + active.height / 2 },
    { x: other.x + 1, y: other.y + other.height / 2 },
  ]);
  expect(ring, 'the grid’s focus ring').not.toBe(inside);
  expect(selectedPx, 'a selected row').not.toBe(plainPx);
  expect(activePx, 'the current view in the sidebar').not.toBe(otherPx);
  await app.screenshot('tables-forced-colors');
  await page.emulateMedia({ forcedColors: 'none' });

  // --- Focus returns when a dialog closes: the export (button and Ctrl+E), a confirmation ----------
  const exportButton = page.getByRole('button', { name: 'Export', exact: true });
  await exportButton.click();
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(exportButton).toBeFocused();
  await table.focus();
  await page.keyboard.press('Control+e');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(table).toBeFocused();
  await page.keyboard.press('Control+6');
  const clear = page.getByRole('button', { name: 'Clear cache and resync…' });
  await clear.click();
  const confirm = page.getByRole('dialog', { name: 'Clear cache and resync?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(clear).toBeFocused();
});

test('profile form errors are tied to their inputs, announced, and the first one takes the focus', async ({ app }) => {
  const { page } = app;
  await syncSample(app);
  await page.keyboard.press('Control+7');
  await page.getByRole('option', { name: /New profile/ }).click();
  const form = page.getByRole('form', { name: 'New profile' });
  await form.getByRole('button', { name: 'Add profile' }).click();
  const name = form.getByLabel('Name', { exact: true });
  const url = form.getByLabel('Base URL');
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription('Give the profile a name.');
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  // The error and the hint both describe the field.
  await expect(url).toHaveAccessibleDescription(/Enter the service’s base URL\..*ending in \/api\/v1/);
  await expect(form.getByRole('alert').filter({ hasText: 'fields need attention' })).toHaveText('3 fields need attention: Name, Base URL, Access token.');
  await expectAccessible(page, 'profile form with errors');
  // Fixed fields lose their error as they change; the description reference survives.
  await name.fill('Acme');
  await expect(name).toHaveAttribute('aria-invalid', 'false');
  const describedBy = await name.getAttribute('aria-describedby');
  expect(describedBy).toBeTruthy();
  await expect(page.locator(`[id="${describedBy}"]`)).toHaveCount(1);
  await url.fill('https://api.example.com/api/v1');
  await expect(url).toHaveAttribute('aria-invalid', 'false');
  await expect(url).toHaveAccessibleDescription(/ending in \/api\/v1/);
  await form.getByRole('button', { name: 'Add profile' }).click();
  await expect(form.getByLabel('Access token')).toBeFocused();
  await expect(form.getByRole('alert').filter({ hasText: 'attention' })).toHaveText('One field needs attention: Access token.');
});

test('Export waits until something is cached; it can write the table’s own columns', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await app.open();
  await app.core.sampleApi.ensure();
  app.core.sampleApi.server?.setFaults({ latencyMs: 1500 });
  await page.getByRole('button', { name: /Explore with sample data/ }).click();
  await expect(page.getByTestId('status-sync')).toBeVisible();
  const exportButton = page.getByRole('button', { name: 'Export', exact: true });
  await expect(exportButton).toBeDisabled();
  await expect(exportButton).toHaveAttribute('title', /Nothing is cached yet/);
  await page.keyboard.press('Control+e');
  await expect(page.getByRole('dialog', { name: 'Export', exact: true })).toBeHidden();
  await expect(page.getByText('Nothing is cached yet: sync first, then export.')).toBeVisible();
  app.core.sampleApi.server?.setFaults({});
  await expect(exportButton).toBeEnabled({ timeout: 60_000 });
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: 60_000 });

  // The table's columns, in its order, under the export's names (the same words as the table's).
  const table = grid(page, 'Contacts');
  await expect(rowAt(table, 0).locator('.skeleton')).toHaveCount(0);
  const titles = await headerTitles(table);
  await exportButton.click();
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await dialog.getByRole('button', { name: 'Columns of the table, in its order' }).click();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText('Exported 400 rows')).toBeVisible();
  const [header] = parseTsv(readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8'), ',');
  expect(header).toEqual(['Full name', 'Company', 'Email', 'Phone', 'Extension', 'Address', 'City', 'State', 'ZIP', 'Labels', 'Verified', 'Times mailed', 'Last order first seen (UTC)', 'Created at (UTC)']);
  // Every table column but Created and Last order (local days there, UTC instants here) has its title in the file.
  for (const t of titles.filter((x) => x !== 'Created' && x !== 'Last order')) expect(header).toContain(t);
});

test('rows still loading are one busy cell across the columns, then their own cells', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const table = grid(page, 'Contacts');
  const columns = (await headerTitles(table)).length;
  // Hold every answer of a contacts read until released, so the rows scrolled to stay loading.
  await page.evaluate(() => {
    const w = window as unknown as { __letterdeskInvoke: (name: string, input: unknown) => Promise<unknown>; __release: () => void };
    const invoke = w.__letterdeskInvoke;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    w.__release = release;
    w.__letterdeskInvoke = (name, input) => (name === 'queryContacts' ? held.then(() => invoke(name, input)) : invoke(name, input));
  });
  await table.evaluate((el) => (el.scrollTop = el.scrollHeight));
  const last = rowAt(table, 399);
  await expect(last).toBeVisible();
  const loading = last.getByRole('gridcell');
  await expect(loading).toHaveCount(1);
  await expect(loading).toHaveAttribute('aria-busy', 'true');
  await expect(loading).toHaveAttribute('aria-colspan', String(columns));
  await expectAccessible(page, 'rows still loading');
  await app.screenshot('table-rows-loading');
  await page.evaluate(() => (window as unknown as { __release: () => void }).__release());
  await expect(last.getByRole('gridcell')).toHaveCount(columns);
  await expect(table.locator('[aria-busy="true"]')).toHaveCount(0);
});
