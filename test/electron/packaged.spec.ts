/**
 * The smoke test of a packaged app (electron-builder's unpacked output, prepared and started by
 * test/electron/smoke.ts, which names its executable in LETTERDESK_APP_EXECUTABLE): the installed
 * app's own files, asar archive and native modules. Covers:
 *  - the window opens on the app's page, and the app knows it is packaged (no DevTools menu item);
 *  - the sample data syncs (through the utility process, from inside the asar archive);
 *  - an export writes a CSV file (the save dialog answered by the test).
 * Skipped, with the reason, when no packaged executable is named (everywhere but release CI).
 */
import { expect, test } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_PAGE_URL } from '../../electron/main/app/appScheme.ts';
import { exploreSampleData, exportContactsTo, launchApp, PACKAGED_APP_ENV } from './launch.ts';

const executable = process.env[PACKAGED_APP_ENV];
test.skip(executable === undefined || !existsSync(executable), `No packaged app named (${PACKAGED_APP_ENV}); run \`npm run dist\`, then \`node test/electron/smoke.ts\`.`);

test('the packaged app opens its window, syncs the sample data and writes a CSV', async () => {
  test.setTimeout(300_000);
  const { app, page, dataDir } = await launchApp({ packagedExecutable: executable! });
  try {
    expect(page.url()).toBe(APP_PAGE_URL);
    const shell = await app.evaluate(({ app: electronApp, BrowserWindow, Menu }) => {
      const roles = (items: Electron.MenuItem[]): string[] => items.flatMap((item) => [String(item.role ?? '').toLowerCase(), ...roles(item.submenu?.items ?? [])]);
      return {
        packaged: electronApp.isPackaged,
        windows: BrowserWindow.getAllWindows().length,
        devToolsItem: roles(Menu.getApplicationMenu()?.items ?? []).includes('toggledevtools'),
      };
    });
    expect(shell).toEqual({ packaged: true, windows: 1, devToolsItem: false });
    const status = await exploreSampleData(page, 240_000);
    expect(status.history.filter((run) => run.outcome === 'succeeded').map((run) => run.resource).sort()).toEqual(['contacts', 'orders']);
    const file = join(dataDir, 'smoke-contacts.csv');
    const rows = await exportContactsTo(app, page, file);
    expect(rows).toBeGreaterThan(0);
    const records = parse(readFileSync(file, 'utf8'), { bom: true }) as string[][];
    expect(records).toHaveLength(rows + 1);
  } finally {
    await app.close();
  }
});
