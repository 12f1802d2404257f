/**
 * The app's data in Electron, launched from the built sources with Playwright's `_electron`: the
 * parts the Chromium harness (test/e2e) replaces with stand-ins. Covers:
 *  - the keychain from Electron: tokens saved in the app are in the OS keychain (still there after
 *    a restart, which tokens kept in memory would not be) and are removed from it again;
 *  - the clipboard: copying selected rows in the real window puts tab-separated text with a header
 *    row on the system clipboard (read back by the main process);
 *  - the save dialog: an export asks the main process's `dialog.showSaveDialog` (answered by the
 *    test, as a person would pick a file) and writes that CSV file.
 * To come: printing to PDF, once the app offers it.
 *
 * Runs only where an Electron binary is installed; elsewhere every test is reported as skipped with
 * the reason. The keychain test needs a Secret Service on Linux (dbus-run-session, as in CI).
 */
import { expect, test, type Page } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CredentialStatus } from '../../shared/contract.ts';
import { electronExecutable, exploreSampleData, exportContactsTo, launchApp, MOD, newDataDir } from './launch.ts';

const binary = electronExecutable();
test.skip(binary.path === null, binary.reason ?? '');

type Result<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/** Calls `window.letterdesk[name](input)` in the page and returns its value, or throws its error. */
async function call<T>(page: Page, name: string, input: object): Promise<T> {
  const result = await page.evaluate(
    ([n, i]) => (window as unknown as { letterdesk: Record<string, (input: object) => Promise<unknown>> }).letterdesk[n]!(i),
    [name, input] as const,
  );
  const r = result as Result<T>;
  if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
  return r.value;
}

test('tokens saved in the app go to the OS keychain, survive a restart, and are removed from it', async () => {
  const dataDir = newDataDir();
  const profileId = await (async () => {
    const { app, page } = await launchApp({ dataDir });
    try {
      const profile = await call<{ id: string }>(page, 'saveProfile', {
        name: 'Keychain check',
        environment: 'custom',
        // Nothing is sent there: the test only stores and reads the tokens.
        baseUrl: 'http://127.0.0.1:9/api/v1',
        accountId: null,
        pageSize: 100,
        credentials: { accessToken: 'electron-keychain-check', refreshToken: 'electron-keychain-refresh', sessionOnly: false },
      });
      const status = await call<CredentialStatus>(page, 'getCredentialStatus', { profileId: profile.id });
      expect(status.keychainProblem).toBeNull();
      expect({ stored: status.stored, storage: status.storage }).toEqual({ stored: true, storage: 'keychain' });
      return profile.id;
    } finally {
      await app.close();
    }
  })();
  const { app, page } = await launchApp({ dataDir });
  try {
    const again = await call<CredentialStatus>(page, 'getCredentialStatus', { profileId });
    expect({ stored: again.stored, storage: again.storage }).toEqual({ stored: true, storage: 'keychain' });
    const cleared = await call<CredentialStatus>(page, 'clearCredentials', { profileId });
    expect(cleared.stored).toBe(false);
  } finally {
    await app.close();
  }
});

test('copying selected rows puts tab-separated text on the clipboard; an export writes the file the save dialog names', async () => {
  test.setTimeout(240_000);
  const { app, page, dataDir } = await launchApp();
  try {
    await exploreSampleData(page);
    await page.keyboard.press(`${MOD}+1`);
    const grid = page.getByRole('grid', { name: 'Contacts' });
    const row = (index: number) => grid.locator(`[role="row"][aria-rowindex="${index + 2}"]`);
    await expect(row(0).locator('.skeleton')).toHaveCount(0);

    // --- Clipboard: two rows, Ctrl/⌘+C, read back from the system clipboard by the main process.
    await app.evaluate(({ clipboard }) => clipboard.writeText('before'));
    await row(0).click();
    await row(1).click({ modifiers: ['Shift'] });
    await page.keyboard.press('Escape'); // closes the detail; the table keeps the focus and the rows
    await page.keyboard.press(`${MOD}+c`);
    await expect(page.getByText('Copied 2 contacts')).toBeVisible();
    const copied = await app.evaluate(({ clipboard }) => clipboard.readText());
    const lines = copied.trim().split(/\r?\n/).map((line) => line.split('\t'));
    const titles = (await grid.locator('[role="columnheader"] .th-title').allTextContents()).map((t) => t.trim());
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual(titles);
    expect(lines[1]![0]).toBe(((await row(0).locator('[role="gridcell"]').first().textContent()) ?? '').trim());

    // --- Save dialog: the export writes the CSV the dialog answered with.
    const file = join(dataDir, 'contacts.csv');
    const rows = await exportContactsTo(app, page, file);
    const records = parse(readFileSync(file, 'utf8'), { bom: true }) as string[][];
    expect(rows).toBeGreaterThan(0);
    expect(records).toHaveLength(rows + 1);
  } finally {
    await app.close();
  }
});
