/**
 * At 150 % zoom a 1536×1050 window lays the page out in 1024×700 CSS pixels, each drawn 1.5 device
 * pixels wide. The tables must stay usable there: the contacts table keeps at least 480 px beside
 * an open detail, the State column shows whole state names, header texts are not cut, and the
 * screen stays accessible in both themes.
 */
import { expect, test } from './harness.ts';
import { expectAccessible, grid, rowAt, syncSample } from './tableSpecs.ts';

test.use({ viewport: { width: 1024, height: 700 }, deviceScaleFactor: 1.5 });

test('at 150 % zoom the table keeps its width beside a detail, and its columns show their values', async ({ app }) => {
  test.setTimeout(180_000);
  const { page } = app;
  expect(await page.evaluate(() => window.devicePixelRatio)).toBe(1.5);
  await syncSample(app);
  const table = grid(page, 'Contacts');
  await rowAt(table, 1).click();
  await expect(page.getByTestId('detail-panel')).toBeVisible();
  expect((await table.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(480);

  // Header texts fit their cells, and every state name on screen is shown whole.
  const clipped = await table.evaluate((el) => {
    const out: string[] = [];
    const cells = el.querySelectorAll<HTMLElement>('[role="columnheader"] .th-title, [role="row"] [data-col="state"], [role="row"] [data-col="state"] *');
    if (cells.length < 10) out.push(`only ${cells.length} cells found`);
    for (const cell of cells) {
      if (cell.scrollWidth > cell.clientWidth + 1) out.push(cell.textContent?.trim() ?? '');
    }
    return out;
  });
  expect(clipped).toEqual([]);
  // The toolbar fits: its heading shows and no button runs past the window's edge.
  await expect(page.getByRole('heading', { name: 'Contacts', level: 1 })).toBeVisible();
  expect(await page.getByRole('heading', { name: 'Contacts', level: 1 }).evaluate((h) => h.scrollWidth <= h.clientWidth + 1)).toBe(true);
  const overflow = await page.locator('header.toolbar').evaluate((bar) =>
    [...bar.querySelectorAll<HTMLElement>('button')].filter((b) => b.getBoundingClientRect().right > window.innerWidth).map((b) => b.getAttribute('aria-label') ?? b.textContent?.trim()),
  );
  expect(overflow).toEqual([]);
  await expectAccessible(page, 'contacts at 150 % zoom');
  await app.screenshot('tables-zoom-150');
});
