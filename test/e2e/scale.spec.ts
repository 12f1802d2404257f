/**
 * Scale: 1,000,000 contacts in the cache. The run's shared sample of this size is synced from the
 * sample API through the UI once (harness.ts `prebuiltSample`); the test opens a copy of it, then
 * scrolls the virtualized table to the very last row and types a search, printing how long each
 * step took (the sync: that one sync through the UI) and the longest main-thread tasks (measured,
 * not asserted against a wall clock). Set LETTERDESK_SCALE_CONTACTS to try another size.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './harness.ts';

const CONTACTS = Number(process.env.LETTERDESK_SCALE_CONTACTS ?? 1_000_000);
test.use({ sampleContacts: CONTACTS, sampleOrders: 2000, prebuiltSample: true });

interface LongTasks {
  count: number;
  maxMs: number;
  totalMs: number;
}

/** Starts collecting long tasks (> 50 ms) in the page. */
async function watchLongTasks(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __long: { count: number; maxMs: number; totalMs: number } };
    w.__long = { count: 0, maxMs: 0, totalMs: 0 };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        w.__long.count++;
        w.__long.totalMs += e.duration;
        w.__long.maxMs = Math.max(w.__long.maxMs, e.duration);
      }
    }).observe({ type: 'longtask', buffered: false });
  });
}

async function takeLongTasks(page: Page): Promise<LongTasks> {
  return page.evaluate(() => {
    const w = window as unknown as { __long: { count: number; maxMs: number; totalMs: number } };
    const out = { ...w.__long };
    w.__long = { count: 0, maxMs: 0, totalMs: 0 };
    return out;
  });
}

function countOf(text: string | null): number {
  return Number((text ?? '').replace(/[^\d]/g, ''));
}

test(`${CONTACTS.toLocaleString('en-US')} contacts: scroll to the last row and search`, async ({ app }) => {
  test.setTimeout(40 * 60_000);
  const { page } = app;
  const results: Record<string, string> = {};
  // The shared sample was synced through the UI (the automatic sync as the app opens) when it was built.
  results['sync through the UI'] = `${app.prebuilt!.syncSeconds.toFixed(1)} s`;
  await app.open();

  const grid = page.getByRole('grid', { name: 'Contacts' });
  await expect.poll(async () => countOf(await page.getByTestId('match-count').textContent()), { timeout: 60_000 }).toBe(CONTACTS);
  const total = CONTACTS;
  await expect(grid.locator('[role="row"][aria-rowindex="2"] .skeleton')).toHaveCount(0);

  // Scroll to the very end with the scrollbar (scaled scroll range) and wait for the last row's data.
  await watchLongTasks(page);
  let t = performance.now();
  await grid.evaluate((el) => (el.scrollTop = el.scrollHeight));
  const lastRow = grid.locator(`[role="row"][aria-rowindex="${total + 1}"]`);
  await expect(lastRow).toBeVisible();
  await expect(lastRow.locator('.skeleton')).toHaveCount(0);
  results['scroll to last row (scrollbar)'] = `${(performance.now() - t).toFixed(0)} ms`;
  const scrollHeight = await grid.evaluate((el) => el.scrollHeight);
  results['scroll height (px, scaled)'] = scrollHeight.toLocaleString('en-US');
  const box = await lastRow.boundingBox();
  const gridBox = await grid.boundingBox();
  expect(box && gridBox && box.y + box.height <= gridBox.y + gridBox.height + 1).toBe(true);

  // Back to the top with Home, then End with the keyboard (selection follows).
  await grid.focus();
  t = performance.now();
  await page.keyboard.press('Home');
  await expect(grid.locator('[role="row"][aria-rowindex="2"][aria-selected="true"]')).toBeVisible();
  await page.keyboard.press('End');
  await expect(grid.locator(`[role="row"][aria-rowindex="${total + 1}"][aria-selected="true"]`)).toBeVisible();
  await expect(lastRow.locator('.skeleton')).toHaveCount(0);
  results['Home then End (keyboard)'] = `${(performance.now() - t).toFixed(0)} ms`;

  // Wheel through the middle: 40 wheel steps, then the rows on screen have data.
  t = performance.now();
  await grid.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
  await grid.hover();
  for (let i = 0; i < 40; i++) await page.mouse.wheel(0, 400);
  await expect(grid.locator('.skeleton')).toHaveCount(0, { timeout: 30_000 });
  results['middle + 40 wheel steps, rows filled'] = `${(performance.now() - t).toFixed(0)} ms`;
  const scrollTasks = await takeLongTasks(page);
  results['long tasks while scrolling'] = `${scrollTasks.count} (max ${scrollTasks.maxMs.toFixed(0)} ms)`;

  // Type a search, one key at a time; measure until the count reflects the full text.
  await page.keyboard.press('Control+f');
  const text = 'mari';
  t = performance.now();
  await page.keyboard.type(text, { delay: 60 });
  const typed = performance.now();
  await expect.poll(async () => countOf(await page.getByTestId('match-count').textContent()), { timeout: 60_000 }).toBeLessThan(total);
  await expect(grid.locator('[role="row"][aria-rowindex="2"]')).toBeVisible();
  await expect(grid.locator('[role="row"][aria-rowindex="2"] .skeleton')).toHaveCount(0);
  results[`search "${text}": last key → rows + count`] = `${(performance.now() - typed).toFixed(0)} ms (typing took ${(typed - t).toFixed(0)} ms)`;
  results[`search "${text}" matches`] = (await page.getByTestId('match-count').textContent())?.trim() ?? '';
  const searchTasks = await takeLongTasks(page);
  results['long tasks while typing'] = `${searchTasks.count} (max ${searchTasks.maxMs.toFixed(0)} ms)`;

  console.log(`\nScale results (${CONTACTS.toLocaleString('en-US')} contacts):`);
  for (const [k, v] of Object.entries(results)) console.log(`  ${k.padEnd(44)} ${v}`);
  await app.screenshot('20-scale-search');
});
