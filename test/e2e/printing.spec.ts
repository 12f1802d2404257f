/**
 * Mailing labels in Chromium with the real handlers: a filtered contacts view becomes Avery 5160
 * sheets (30 a page) in the preview and in a PDF printed by the same engine as Electron's
 * printToPDF; `pdftotext` finds every address of the view, in the view's order, each sheet holding
 * 30. Starting at a later label of a partly used sheet moves the first address there. An order
 * view's labels are its recipients, with the state taken from the cached contact. A view printed
 * as a list has its columns, its filters in the header and page numbers; an order prints with its
 * recipients. Screenshots of the previews in both themes.
 */
import { execFileSync } from 'node:child_process';
import type { ContactRow, RowPage } from '../../shared/query.ts';
import { addressLines, addressProblem, type LabelAddress } from '../../shared/labelSheets.ts';
import { expect, handlersInvoker, test } from './harness.ts';
import { expectAccessible, grid, matchCount, syncSample } from './tableSpecs.ts';

test.use({ sampleContacts: 600, sampleOrders: 120 });

/** The PDF's text as pdftotext reads it in content order, one string per page. */
function pdfPages(file: string): string[] {
  return execFileSync('pdftotext', ['-raw', file, '-'], { encoding: 'utf8' }).split('\f').filter((p) => p.trim() !== '');
}

test('a filtered view’s labels: 30 a sheet in view order, in the preview and the PDF', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const filters = page.getByRole('complementary', { name: 'Contact filters' });
  await filters.getByRole('group', { name: 'State', exact: true }).getByRole('checkbox', { name: /^Texas / }).check();
  const total = await matchCount(page);
  expect(total).toBeGreaterThan(30);

  // The view's rows, in its order, as the table reads them.
  const invoke = handlersInvoker(app.core);
  const answer = (await invoke('queryContacts', { query: { states: ['Texas'] }, window: { offset: 0, limit: 1000 } })) as { ok: true; value: RowPage<ContactRow> };
  const rows: LabelAddress[] = answer.value.rows.map((r) => ({ id: r.id, fullName: r.fullName, companyName: r.companyName, address1: r.address1, address2: r.address2, city: r.city, state: r.state, zip: r.zip }));
  const printable = rows.filter((r) => addressProblem(r) === null);
  expect(printable.length).toBeGreaterThan(30);

  await page.getByRole('button', { name: 'Print labels', exact: true }).click();
  const labels = page.getByTestId('labels-page');
  await expect(labels.getByRole('heading', { name: 'Mailing labels' })).toBeVisible();
  await expect(labels.getByTestId('label-sheet')).toHaveCount(Math.ceil(printable.length / 30));
  await expect(labels.getByTestId('label-sheet').first().locator('.label')).toHaveCount(30);
  await expect(labels.getByTestId('label-sheet').first().locator('.label').first()).toContainText(`${printable[0]!.city} TX ${printable[0]!.zip}`);
  await expectAccessible(page, 'the label preview');
  await app.screenshot('labels-01-preview');

  await labels.getByRole('button', { name: /Save as PDF/ }).click();
  await expect(page.getByText(/Saved [\d,]+ labels on [\d,]+ pages? as PDF/)).toBeVisible();
  const file = app.platformLog.savedFiles.at(-1)!;
  expect(file).toMatch(/labels-\d{4}-\d{2}-\d{2}\.pdf$/);
  const pages = pdfPages(file);
  expect(pages).toHaveLength(Math.ceil(printable.length / 30));
  // Every address (its delivery line and CITY ST ZIP; a long name or company may be cut at the
  // label's edge), in the view's order; each full sheet holds 30 of them.
  let at = 0;
  const text = pages.join('\f');
  for (const address of printable) {
    for (const line of addressLines(address).slice(-2)) {
      const found = text.indexOf(line, at);
      expect(found, `${line} (label of ${address.fullName}) after position ${at}`).toBeGreaterThanOrEqual(0);
      at = found + line.length;
    }
  }
  for (const [i, p] of pages.entries()) {
    const onPage = printable.filter((a) => p.includes(addressLines(a).at(-2) ?? '') && p.includes(addressLines(a).at(-1)!)).length;
    if (i < pages.length - 1) expect(onPage, `sheet ${i + 1}`).toBeGreaterThanOrEqual(30);
  }

  // A partly used sheet: starting at label 4 puts the first address in the fourth place.
  await labels.getByRole('spinbutton', { name: 'Start at label' }).fill('4');
  await expect(labels.getByTestId('label-sheet').first().locator('.label')).toHaveCount(27);
  await labels.getByRole('checkbox', { name: /All capitals/ }).check();
  await expect(labels.getByTestId('label-sheet').first().locator('.label').first()).toContainText(printable[0]!.fullName.toUpperCase());
  await labels.getByRole('button', { name: 'Close' }).click();
  await expect(grid(page, 'Contacts')).toBeVisible();
});

test('an order view’s labels are its recipients, each with its contact’s state', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  await page.keyboard.press('Control+3');
  await expect(grid(page, 'Orders')).toBeVisible();
  await grid(page, 'Orders').locator('[role="row"][aria-rowindex="2"]').click();
  await page.getByRole('button', { name: 'Print labels', exact: true }).click();
  const labels = page.getByTestId('labels-page');
  await expect(labels.getByRole('heading', { name: 'Mailing labels' })).toBeVisible();
  await expect(labels).toContainText(/1 selected order’s recipients/);
  const first = labels.getByTestId('label-sheet').first().locator('.label');
  await expect(first.first()).toContainText(/ [A-Z]{2} \d{5}/);
  await app.screenshot('labels-02-recipients');
});

test('a view as a printable list, and an order with its recipients: header, filters, every row, page numbers', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  await syncSample(app);
  const filters = page.getByRole('complementary', { name: 'Contact filters' });
  await filters.getByRole('group', { name: 'State', exact: true }).getByRole('checkbox', { name: /^Texas / }).check();
  const total = await matchCount(page);
  const invoke = handlersInvoker(app.core);
  const answer = (await invoke('queryContacts', { query: { states: ['Texas'] }, window: { offset: 0, limit: 1000 } })) as { ok: true; value: RowPage<ContactRow> };
  expect(answer.value.rows).toHaveLength(total);

  await page.getByRole('button', { name: 'Print list', exact: true }).click();
  const report = page.getByTestId('report-page');
  await expect(report.getByRole('heading', { name: 'Contacts', level: 2 })).toBeVisible();
  await expect(report.getByRole('listitem').filter({ hasText: 'State: Texas' })).toBeVisible();
  await expect(report.locator('tbody tr')).toHaveCount(total);
  await expectAccessible(page, 'a printable list');
  await app.screenshot('print-01-list');
  await report.getByRole('button', { name: /Save as PDF/ }).click();
  await expect(page.getByText(/Saved the list \([\d,]+ rows, [\d,]+ pages?\) as PDF/)).toBeVisible();
  const file = app.platformLog.savedFiles.at(-1)!;
  expect(file).toMatch(/-list-\d{4}-\d{2}-\d{2}\.pdf$/);
  const pages = pdfPages(file);
  expect(pages.length).toBeGreaterThan(1);
  pages.forEach((p, i) => expect(p, `page ${i + 1}`).toContain(`Page ${i + 1} of ${pages.length}`));
  const text = pages.join('\f');
  expect(text).toContain('State: Texas');
  // Every row, in the view's order (by its ZIP code: a long cell may wrap inside its column).
  let at = 0;
  for (const row of answer.value.rows) {
    const found = text.indexOf(row.zip, at);
    expect(found, `${row.fullName}'s row (ZIP ${row.zip}) after position ${at}`).toBeGreaterThanOrEqual(0);
    at = found + row.zip.length;
  }
  await report.getByRole('button', { name: 'Close' }).click();

  // One order with its recipients.
  await page.keyboard.press('Control+3');
  await grid(page, 'Orders').locator('[role="row"][aria-rowindex="2"]').click();
  const panel = page.getByTestId('detail-panel');
  await panel.getByRole('button', { name: 'Print order' }).click();
  await expect(report.getByRole('heading', { level: 2 })).toContainText(/^Order #\d+/);
  const recipients = report.locator('tbody tr');
  expect(await recipients.count()).toBeGreaterThan(0);
  await app.screenshot('print-02-order');
  await report.getByRole('button', { name: /Save as PDF/ }).click();
  await expect(page.getByText(/Saved the list \([\d,]+ rows?, 1 page\) as PDF/)).toBeVisible();
  const orderText = pdfPages(app.platformLog.savedFiles.at(-1)!).join('\f');
  for (const name of await report.locator('tbody tr td:first-child').allTextContents()) expect(orderText).toContain(name.trim());
});
