/**
 * What the table specs share: syncing the sample data through the UI, reading the grid,
 * the clipboard and the status bar, running axe in both themes, and asking the sample API itself.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { createApiClient, type ContactListParams, type OrderListParams } from '../../electron/main/api/client.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { expect, type AppHarness } from './harness.ts';

/** Opens the app and syncs the sample data through the welcome screen; ends on the contacts view. */
export async function syncSample(app: AppHarness, timeout = 120_000): Promise<void> {
  const { page } = app;
  await app.open();
  await app.exploreSampleData(timeout);
  await page.keyboard.press('Control+2');
  await expect(grid(page, 'Contacts').locator('[role="row"][aria-rowindex="2"] .skeleton')).toHaveCount(0);
}

/**
 * Opens the app on a copy of the run's shared synced sample (the `prebuiltSample` option); ends on
 * the contacts view with its first row filled.
 * @throws Error when the test did not set `prebuiltSample`
 */
export async function openSynced(app: AppHarness): Promise<void> {
  if (!app.prebuilt) throw new Error('openSynced needs the shared synced sample: add `prebuiltSample: true` to the spec\'s test.use().');
  const { page } = app;
  await app.open();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await page.keyboard.press('Control+2');
  await expect(grid(page, 'Contacts').locator('[role="row"][aria-rowindex="2"] .skeleton')).toHaveCount(0);
}

/** The grid named `name` ("Contacts", "Orders"). */
export function grid(page: Page, name: 'Contacts' | 'Orders'): Locator {
  return page.getByRole('grid', { name });
}

/** The table row at `index` (0 = first data row). */
export function rowAt(table: Locator, index: number): Locator {
  return table.locator(`[role="row"][aria-rowindex="${index + 2}"]`);
}

/** The cell of column `key` in a row. */
export function cellOf(row: Locator, key: string): Locator {
  return row.locator(`[data-col="${key}"]`);
}

/** Indexes (0-based) of the rendered rows that are selected. */
export async function selectedIndexes(table: Locator): Promise<number[]> {
  const idx = await table.locator('[role="row"][aria-selected="true"]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('aria-rowindex')) - 2));
  return idx.sort((a, b) => a - b);
}

/** The column titles of the table, left to right. */
export async function headerTitles(table: Locator): Promise<string[]> {
  return (await table.locator('[role="columnheader"] .th-title').allTextContents()).map((t) => t.trim());
}

/** The texts of a row's cells, left to right. */
export async function rowTexts(row: Locator): Promise<string[]> {
  return (await row.locator('[role="gridcell"]').allTextContents()).map((t) => t.trim());
}

/** The number in a text ("1,200 contacts" → 1200). */
export function numberIn(text: string | null): number {
  return Number((text ?? '').replace(/[^\d]/g, ''));
}

/** The number of rows the list's header says match ("1,234 contacts" → 1234). */
export async function matchCount(page: Page): Promise<number> {
  return numberIn(await page.getByTestId('match-count').textContent());
}

/** Lets the page read the clipboard (the app writes it itself). */
export async function allowClipboard(page: Page): Promise<void> {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
}

/** The clipboard's text. */
export async function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** Puts known text on the clipboard (so a test sees that a copy replaced it). */
export async function setClipboard(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
}

/**
 * Parses tab-separated text the way a spreadsheet pastes it: CRLF between rows, tabs between
 * cells, a quoted cell may hold tabs, line breaks and doubled quotes. `separator` ',' reads CSV.
 */
export function parseTsv(text: string, separator = '\t'): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === separator) {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Runs axe on the current screen in light and dark mode; fails on serious or critical violations. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const result = await new AxeBuilder({ page }).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    const summary = bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
    expect(summary, `axe violations on ${screen} (${colorScheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Colours ("r,g,b") of screen pixels at CSS-pixel points of the viewport, read from a screenshot
 * (what a person sees, after every layer and forced colour is applied).
 */
export async function pixels(page: Page, points: readonly { x: number; y: number }[]): Promise<string[]> {
  const png = (await page.screenshot()).toString('base64');
  return page.evaluate(
    async ({ data, at }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('no 2d context');
      ctx.drawImage(img, 0, 0);
      return at.map(({ x, y }) => Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3)).join(','));
    },
    { data: png, at: points },
  );
}

/** How many records the sample API returns for `query` (its `count`). */
export async function serviceCount(baseUrl: string, resource: Resource, query: Record<string, unknown>): Promise<number> {
  const client = createApiClient({ baseUrl, getTokens: async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }) });
  const params = { ...query, page: 0, pageSize: 1 };
  const result = resource === 'contacts' ? await client.listContacts(params as ContactListParams) : await client.listOrders(params as unknown as OrderListParams);
  return result.count;
}

/** Stops the embedded sample API for good: a sync would find it gone, as a real service that went away. */
export async function stopSampleApi(core: AppHarness['core']): Promise<string> {
  const api = core.sampleApi as { ensure: () => Promise<string>; stop: () => Promise<void> };
  const baseUrl = await api.ensure();
  await api.stop();
  api.ensure = async () => baseUrl;
  return baseUrl;
}
