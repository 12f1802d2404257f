/**
 * The Created filter uses the person's own days, as the table does: in New York a contact created
 * at 02:00 UTC on the 5th was created on the 4th, shows as the 4th, and a filter for the 4th finds
 * it (a filter in UTC days would not). Real handlers and sample API, built renderer, the browser in
 * the America/New_York time zone.
 */
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import type { ContactRow, RowPage } from '../../shared/query.ts';
import { expect, test } from './harness.ts';

const ZONE = 'America/New_York';
test.use({ sampleContacts: 600, sampleOrders: 20, timezoneId: ZONE });

test('the Created filter and the Created column agree on the day, in the local time zone', async ({ app }) => {
  test.setTimeout(120_000);
  const { page, core } = app;
  await app.open();
  await page.getByRole('button', { name: /Explore with sample data/ }).click();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Contacts/ })).toContainText('600', { timeout: 60_000 });

  const answer = await dispatchCall(createHandlers(core), 'queryContacts', { query: {}, window: { offset: 0, limit: 600 } });
  const rows = (answer as { ok: true; value: RowPage<ContactRow> }).value.rows;
  const localDay = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));
  // A contact created in the first hours of a UTC day: the day before, in New York.
  const early = rows.find((r) => new Date(r.createdAt).getUTCHours() < 4);
  expect(early, 'the sample has contacts created between 00:00 and 04:00 UTC').toBeDefined();
  const day = localDay(early!.createdAt);
  expect(day).not.toBe(early!.createdAt.slice(0, 10));
  const sameDay = rows.filter((r) => localDay(r.createdAt) === day);

  await page.keyboard.press('Control+2');
  await page.getByLabel('Created from').fill(day);
  await page.getByLabel('Created to').fill(day);
  const grid = page.getByRole('grid', { name: 'Contacts' });
  await expect(grid.locator('[role="row"][aria-rowindex]:not([aria-rowindex="1"])')).toHaveCount(sameDay.length);
  await expect(grid).toContainText(early!.fullName);
  // …and the Created column shows that same day.
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const shown = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, d)));
  await expect(grid.locator('[role="row"]', { hasText: early!.fullName })).toContainText(shown);
  // The export of the view selects the same rows.
  await page.keyboard.press('Control+e');
  await expect(page.getByRole('dialog').getByRole('radio', { name: /Current view/ })).toBeChecked();
  await expect(page.getByRole('dialog')).toContainText(`${sameDay.length} contact${sameDay.length === 1 ? '' : 's'}`);
});
