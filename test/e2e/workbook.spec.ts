/**
 * An Excel workbook from a filtered view, in Chromium with the real handlers: the export dialog's
 * "Excel workbook" writes the view's rows, in its order, and openpyxl (an independent reader) finds
 * them with ZIP codes as text, dates as dates, the header frozen and filtered, and the sheet named
 * after the view. The dialog remembers the format and columns per kind: contacts come back as a
 * workbook of the table's columns, orders stay CSV. Screenshots of the dialog in both themes.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { ContactRow, RowPage } from '../../shared/query.ts';
import { expect, handlersInvoker, test } from './harness.ts';
import { expectAccessible, matchCount, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 500, sampleOrders: 100 });

const READER = join(import.meta.dirname, '..', 'helpers', 'readXlsx.py');

interface ReadSheet {
  title: string;
  frozen: string | null;
  filter: string | null;
  rows: [string | number | boolean | null, string, string][][];
}

test('a filtered view as an Excel workbook, read back by openpyxl; the format is remembered per kind', async ({ app }) => {
  test.setTimeout(150_000);
  const { page } = app;
  await syncSample(app);
  const filters = page.getByRole('complementary', { name: 'Contact filters' });
  await filters.getByRole('group', { name: 'State', exact: true }).getByRole('checkbox', { name: /^Texas / }).check();
  const total = await matchCount(page);
  expect(total).toBeGreaterThan(5);

  const invoke = handlersInvoker(app.core);
  const answer = (await invoke('queryContacts', { query: { states: ['Texas'] }, window: { offset: 0, limit: 1000 } })) as { ok: true; value: RowPage<ContactRow> };
  const rows = answer.value.rows;
  expect(rows).toHaveLength(total);

  await page.keyboard.press('Control+e');
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog).toBeVisible();
  await dialog.getByText('Excel workbook (.xlsx)').click();
  await expect(dialog.getByText(/The sheet is named “Contacts”/)).toBeVisible();
  // CSV's own options are not offered for a workbook.
  await expect(dialog.getByRole('checkbox', { name: 'Neutralise formulas' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Columns of the table, in its order' }).click();
  await expectAccessible(page, 'the export dialog, Excel workbook');
  await app.screenshot('workbook-01-export-dialog');
  await dialog.getByRole('button', { name: /Export…/ }).click();
  await expect(dialog.getByText(`Exported ${total.toLocaleString('en-US')} rows`)).toBeVisible();
  const file = app.platformLog.savedFiles.at(-1)!;
  expect(file).toMatch(/-contacts-\d{4}-\d{2}-\d{2}\.xlsx$/);
  await app.screenshot('workbook-02-export-done');

  const [sheet, ...more] = (JSON.parse(execFileSync('/usr/bin/python3', [READER, file], { encoding: 'utf8' })) as { sheets: ReadSheet[] }).sheets;
  expect(more).toEqual([]);
  expect(sheet!.title).toBe('Contacts');
  expect(sheet!.frozen).toBe('A2');
  expect(sheet!.filter).toMatch(new RegExp(`^A1:[A-Z]+${total + 1}$`));
  const header = sheet!.rows[0]!.map((c) => c[0]);
  // The table's default columns, in its order: Name first, ZIP and Created among them.
  expect(header[0]).toBe('Full name');
  const col = (name: string): number => {
    const at = header.indexOf(name);
    expect(at, `${name} in ${header.join(', ')}`).toBeGreaterThanOrEqual(0);
    return at;
  };
  const [name, zip, created] = [col('Full name'), col('ZIP'), col('Created at')];
  const body = sheet!.rows.slice(1);
  expect(body.map((r) => r[name]![0])).toEqual(rows.map((r) => r.fullName));
  expect(body.map((r) => r[zip]![0])).toEqual(rows.map((r) => r.zip));
  expect(body.every((r) => r[zip]![1] === 's')).toBe(true);
  expect(body.every((r) => r[created]![1] === 'd')).toBe(true);
  expect(body.flat().filter((c) => c[1] === 'f')).toEqual([]);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();

  // Opened again: contacts remember the workbook and the table's columns; orders keep CSV.
  await page.keyboard.press('Control+e');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio', { name: 'Excel workbook (.xlsx)' })).toBeChecked();
  await expect(dialog.getByRole('group', { name: /Columns/ })).toContainText(`${header.length} of`);
  await dialog.getByText('Orders', { exact: true }).click();
  await expect(dialog.getByRole('radio', { name: 'CSV file' })).toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: 'Neutralise formulas' })).toBeChecked();
  await dialog.getByText('Contacts', { exact: true }).click();
  await expect(dialog.getByRole('radio', { name: 'Excel workbook (.xlsx)' })).toBeChecked();
});
