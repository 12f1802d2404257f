/**
 * The Duplicates page in Chromium with the real handlers and the in-thread sample API: at each
 * level the page lists exactly the groups of the sample API's contacts (computed here from its own
 * records with the normaliser), the planted groups among them and no planted near miss with its
 * host; the members side by side with the fields they differ in marked; a group opens its contacts
 * and a member its detail; the contacts filter counts the members; the duplicates export as CSV
 * and as a workbook read back by openpyxl; the same offline after the sample API stops.
 * Screenshots in both themes at 1360×860 and 1024×700.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import { duplicateKeys, DUPLICATE_LEVELS, type DuplicateLevel } from '../../shared/addressKey.ts';
import type { DuplicateGroupsPage } from '../../shared/duplicates.ts';
import { expect, handlersInvoker, test } from './harness.ts';
import { expectAccessible, grid, matchCount, stopSampleApi, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 400, sampleOrders: 50 });

const READER = join(import.meta.dirname, '..', 'helpers', 'readXlsx.py');
const LEVEL_NAMES: Record<DuplicateLevel, string> = { household: 'Household', individual: 'Individual', address: 'Address' };
const FACET_NAMES: Record<DuplicateLevel, string> = { household: 'Same household', individual: 'Same person', address: 'Same address' };

/** The groups on the page: each group's member ids, sorted, joined by a space. */
async function groupsOnPage(page: Page): Promise<string[]> {
  return page.getByTestId('duplicate-group').evaluateAll((groups) =>
    groups.map((g) => [...g.querySelectorAll('thead .mid')].map((m) => (m.textContent ?? '').replace('#', '').trim()).sort().join(' ')),
  );
}

/** The group on the page that holds contact `id`. */
const groupWith = (page: Page, id: string): Locator => page.getByTestId('duplicate-group').filter({ has: page.locator('thead .mid', { hasText: new RegExp(`^#${id}$`) }) });

test('the duplicates page lists the sample API’s groups at each level, opens their contacts and exports them, also offline', async ({ app }) => {
  test.setTimeout(240_000);
  const { page } = app;
  await syncSample(app);
  const server = app.core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');

  // The sample API's own records, grouped by the normaliser: what the page must list.
  const contacts = [...server.dataset.contacts()];
  const expected = Object.fromEntries(DUPLICATE_LEVELS.map((level) => {
    const byKey = new Map<string, string[]>();
    for (const c of contacts) {
      const key = duplicateKeys(c)?.[level];
      if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), c.id]);
    }
    return [level, [...byKey.values()].filter((ids) => ids.length > 1).map((ids) => ids.sort().join(' ')).sort()];
  })) as Record<DuplicateLevel, string[]>;
  const planted = server.dataset.plantedDuplicates();
  expect(planted.groups.length).toBeGreaterThan(0);

  await page.keyboard.press('Control+8');
  const view = page.getByTestId('duplicates');
  await expect(view.getByRole('heading', { name: 'Duplicates', level: 1 })).toBeVisible();
  const levels = view.getByRole('radiogroup', { name: 'Level' });
  await expect(levels.getByRole('radio', { name: /^Household/ })).toBeChecked();

  for (const level of DUPLICATE_LEVELS) {
    await levels.locator('label', { hasText: LEVEL_NAMES[level] }).click();
    await expect(levels.getByRole('radio', { name: new RegExp(`^${LEVEL_NAMES[level]}`) })).toBeChecked();
    await expect(view.getByTestId(`level-count-${level}`)).toHaveText(String(expected[level].length));
    await expect.poll(async () => (await groupsOnPage(page)).sort()).toEqual(expected[level]);
    const listed = await groupsOnPage(page);
    for (const g of planted.groups.filter((p) => p.level === level)) expect(listed, `${level}: planted ${g.contactIds.join(' ')}`).toContain([...g.contactIds].sort().join(' '));
    // Largest first.
    const sizes = listed.map((g) => g.split(' ').length);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    // No near miss in a group with its host.
    for (const [host, ...misses] of planted.nearMisses) {
      for (const g of listed) {
        const ids = g.split(' ');
        if (ids.includes(host ?? '')) for (const miss of misses) expect(ids, `${level}: near miss ${miss} with ${host}`).not.toContain(miss);
      }
    }
  }

  // --- Members side by side, the differences marked --------------------------------------------
  await levels.locator('label', { hasText: 'Household' }).click();
  const [host] = planted.nearMisses[0] ?? [];
  const household = planted.groups.find((g) => g.level === 'household' && g.contactIds.includes(host ?? ''));
  expect(household).toBeDefined();
  const card = groupWith(page, host ?? '');
  await expect(card).toHaveCount(1);
  await expect(card.locator('thead th')).toHaveCount(household!.contactIds.length);
  // A planted household shares the last name; its second member has another first name.
  await expect(card.locator('tr[data-field="lastName"]')).toHaveAttribute('data-differs', 'no');
  await expect(card.locator('tr[data-field="firstName"]')).toHaveAttribute('data-differs', 'yes');
  await expect(card.locator('tr[data-field="firstName"] th')).toContainText('differs');
  await expect(card.locator('tr[data-field="email"]')).toHaveAttribute('data-differs', 'yes');
  await expectAccessible(page, 'the duplicates page');
  await app.screenshot('duplicates-01-household');

  // --- A group opens its contacts; a member its detail ---------------------------------------------
  await card.getByRole('button', { name: 'Open these contacts' }).click();
  await expect(grid(page, 'Contacts')).toBeVisible();
  await expect(page.getByTestId('duplicate-scope')).toBeVisible();
  await expect.poll(() => matchCount(page)).toBe(household!.contactIds.length);
  await expect(grid(page, 'Contacts').getByText('Duplicate?')).toHaveCount(household!.contactIds.length);
  await app.screenshot('duplicates-02-group-contacts');
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(view).toBeVisible();
  const hostRecord = contacts.find((c) => c.id === host);
  await groupWith(page, host ?? '').getByRole('button', { name: `${hostRecord?.firstName} ${hostRecord?.lastName}`.trim() }).first().click();
  const detail = page.getByTestId('detail-panel');
  await expect(detail).toBeVisible();
  const dups = detail.getByTestId('contact-duplicates');
  await expect(dups).toContainText('Same household as');
  for (const id of household!.contactIds.filter((id) => id !== host)) await expect(dups).toContainText(`#${id}`);
  await app.screenshot('duplicates-03-contact-detail');

  // --- The filter in the contacts table: its count and its rows ------------------------------------
  const members = expected.household.flatMap((g) => g.split(' ')).length;
  await page.keyboard.press('Escape');
  const filters = page.getByRole('complementary', { name: 'Contact filters' });
  const box = filters.getByRole('group', { name: 'Possible duplicates', exact: true }).getByRole('checkbox', { name: `${FACET_NAMES.household} ${members}` });
  await expect(box).toBeVisible();
  await box.check();
  await expect.poll(() => matchCount(page)).toBe(members);

  // --- Export: CSV, then a workbook read back by openpyxl ------------------------------------------
  await page.keyboard.press('Control+8');
  await view.getByRole('button', { name: /Export…/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog.getByText('Possible duplicates at the household level')).toBeVisible();
  await dialog.getByText('CSV file').click();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(`Exported ${members} rows`)).toBeVisible();
  const csv = parse(readFileSync(app.platformLog.savedFiles.at(-1)!, 'utf8'), { bom: true }) as string[][];
  const [header, ...rows] = csv;
  const [groupCol, idCol] = [header!.indexOf('Duplicate group'), header!.indexOf('Contact ID')];
  expect(groupCol).toBeGreaterThanOrEqual(0);
  expect(idCol).toBeGreaterThanOrEqual(0);
  const byGroup = new Map<string, string[]>();
  for (const r of rows) byGroup.set(r[groupCol]!, [...(byGroup.get(r[groupCol]!) ?? []), r[idCol]!]);
  expect([...byGroup.values()].map((ids) => ids.sort().join(' ')).sort()).toEqual(expected.household);
  await dialog.getByRole('button', { name: 'Done' }).click();

  await view.getByRole('button', { name: /Export…/ }).click();
  await dialog.getByText('Excel workbook (.xlsx)').click();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(`Exported ${members} rows`)).toBeVisible();
  const book = JSON.parse(execFileSync('/usr/bin/python3', [READER, app.platformLog.savedFiles.at(-1)!], { encoding: 'utf8' })) as { sheets: { rows: [unknown, string, string][][] }[] };
  const sheet = book.sheets[0]!.rows.map((r) => r.map((c) => String(c[0] ?? '')));
  // The same rows as the CSV, each with its group (the workbook writes dates in local time, so
  // those columns are named without "(UTC)").
  const [bookGroup, bookId] = [sheet[0]!.indexOf('Duplicate group'), sheet[0]!.indexOf('Contact ID')];
  expect(sheet.slice(1).map((r) => `${r[bookGroup]} ${r[bookId]}`)).toEqual(rows.map((r) => `${r[groupCol]} ${r[idCol]}`));
  await dialog.getByRole('button', { name: 'Done' }).click();

  // --- Offline: the page reads the cache alone ------------------------------------------------------
  const invoke = handlersInvoker(app.core);
  const answer = (await invoke('duplicateGroups', { level: 'address', offset: 0, limit: 200 })) as { ok: true; value: DuplicateGroupsPage };
  expect(answer.value.items.map((g) => g.members.map((m) => m.id).sort().join(' ')).sort()).toEqual(expected.address);
  await stopSampleApi(app.core);
  await app.reload();
  await page.keyboard.press('Control+8');
  await expect(view.getByTestId('level-count-household')).toHaveText(String(expected.household.length));
  await expect.poll(async () => (await groupsOnPage(page)).sort()).toEqual(expected.household);
  await page.setViewportSize({ width: 1024, height: 700 });
  await app.screenshot('duplicates-04-1024-offline');
  await levels.locator('label', { hasText: 'Individual' }).click();
  await expect.poll(async () => (await groupsOnPage(page)).sort()).toEqual(expected.individual);
  await app.screenshot('duplicates-05-1024-individual');
});
