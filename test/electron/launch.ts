/**
 * What the `_electron` specs share: where the Electron binary is (found without loading the
 * `electron` package, whose index.js would start a download when the binary is missing), launching
 * the app from the built sources or the packaged executable with a data folder of its own, and
 * waiting for the sample data's first sync.
 */
import { _electron as electron, expect, type ElectronApplication, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { electronBinaryProblem, electronPackageDir } from '../../electron/main/app/electronBinary.ts';
import type { SyncStatus } from '../../shared/contract.ts';

/** The repository root: `electron <root>` runs the built app (package.json `main`, out/main). */
export const ROOT = resolve(import.meta.dirname, '../..');

export { PACKAGED_APP_ENV } from './smoke.ts';

/**
 * The Electron binary of the installed `electron` package (or ELECTRON_EXEC_PATH), or why there is
 * none: `{ path }` or `{ path: null, reason }` with the reason electronBinary.ts gives `npm start`.
 */
export function electronExecutable(): { path: string; reason: null } | { path: null; reason: string } {
  const dir = electronPackageDir();
  const problem = electronBinaryProblem(dir);
  if (problem !== null || dir === null) return { path: null, reason: `No Electron binary installed, so the _electron suite cannot run here: ${problem ?? 'no electron package'}` };
  const exec = process.env.ELECTRON_EXEC_PATH;
  return { path: exec ? exec : join(dir, 'dist', readFileSync(join(dir, 'path.txt'), 'utf8').trim()), reason: null };
}

/** A new, empty data folder (LETTERDESK_DATA_DIR) for one launch or a series of launches. */
export function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'letterdesk-electron-'));
}

/** Options of {@link launchApp}. */
export interface LaunchOptions {
  /** The data folder; a new one when absent. */
  dataDir?: string;
  /** A packaged app's executable; absent: the Electron binary runs the built sources (`npm run build`). */
  packagedExecutable?: string;
  /** More environment variables. */
  env?: Record<string, string>;
}

/** A launched app, its window, and the data folder it uses. */
export interface LaunchedApp {
  app: ElectronApplication;
  page: Page;
  dataDir: string;
}

/**
 * Launches the app and waits for its window's page to load. Automatic syncs are off
 * (LETTERDESK_AUTO_SYNC_MINUTES=0), so each spec starts the syncs it checks.
 * @throws when no Electron binary is installed and no packaged executable is given
 */
export async function launchApp(options: LaunchOptions = {}): Promise<LaunchedApp> {
  const dataDir = options.dataDir ?? newDataDir();
  const env = { ...process.env, LETTERDESK_DATA_DIR: dataDir, LETTERDESK_AUTO_SYNC_MINUTES: '0', ...options.env } as Record<string, string>;
  let app: ElectronApplication;
  if (options.packagedExecutable !== undefined) {
    app = await electron.launch({ executablePath: options.packagedExecutable, args: [], env });
  } else {
    const binary = electronExecutable();
    if (binary.path === null) throw new Error(binary.reason);
    app = await electron.launch({ executablePath: binary.path, args: [ROOT], env });
  }
  const page = await app.firstWindow();
  await page.waitForLoadState('domcontentloaded');
  return { app, page, dataDir };
}

/**
 * Creates the sample profile and makes it active through `window.letterdesk`, without syncing it
 * (what "Explore with sample data" does before its sync).
 * @throws when either call fails
 */
export async function useSampleProfile(page: Page): Promise<void> {
  await page.evaluate(async () => {
    type Call = (input: object) => Promise<{ ok: boolean; value?: { id: string }; error?: { message: string } }>;
    const api = (window as unknown as { letterdesk: { createSampleProfile: Call; useProfile: Call } }).letterdesk;
    const profile = await api.createSampleProfile({});
    if (!profile.ok || !profile.value) throw new Error(`createSampleProfile: ${profile.error?.message ?? 'failed'}`);
    const used = await api.useProfile({ profileId: profile.value.id });
    if (!used.ok) throw new Error(`useProfile: ${used.error?.message ?? 'failed'}`);
  });
}

/** The modifier of the app's shortcuts on this platform (⌘ on macOS, Ctrl elsewhere). */
export const MOD = process.platform === 'darwin' ? 'Meta' : 'Control';

/**
 * Clicks "Explore with sample data" on the welcome screen and waits until its first sync has ended
 * in main (both resources have a run on record, nothing runs) and the page no longer shows it.
 * @returns the sync status at the end
 */
export async function exploreSampleData(page: Page, timeoutMs = 120_000): Promise<SyncStatus> {
  await expect(page.getByRole('heading', { name: 'Welcome to Letterdesk' })).toBeVisible();
  await page.getByRole('button', { name: /Explore with sample data/ }).click();
  const status = (): Promise<SyncStatus | null> =>
    page.evaluate(async () => {
      const api = (window as unknown as { letterdesk: { getSyncStatus(input: object): Promise<{ ok: boolean; value?: SyncStatus }> } }).letterdesk;
      const result = await api.getSyncStatus({});
      return result.ok ? (result.value ?? null) : null;
    });
  await expect
    .poll(
      async () => {
        const now = await status();
        if (now === null) return 'no status yet';
        const ended = new Set(now.history.map((run) => run.resource));
        return !now.running && ended.has('contacts') && ended.has('orders') ? 'ended' : 'running';
      },
      { timeout: timeoutMs },
    )
    .toBe('ended');
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: timeoutMs });
  return (await status())!;
}

/**
 * Makes the main process's save dialog answer `file` without showing anything (a native dialog
 * cannot be clicked by the test), the way a person would pick that file.
 */
export async function answerSaveDialogWith(app: ElectronApplication, file: string): Promise<void> {
  await app.evaluate(({ dialog }, path) => {
    Object.assign(dialog, { showSaveDialog: async () => ({ canceled: false, filePath: path }) });
  }, file);
}

/**
 * Exports the contacts view through the Export dialog (Ctrl/⌘+E, then "Export…") into `file`,
 * answering the save dialog with it, and closes the dialog.
 * @returns the number of rows the dialog says it exported
 */
export async function exportContactsTo(app: ElectronApplication, page: Page, file: string): Promise<number> {
  await answerSaveDialogWith(app, file);
  await page.keyboard.press(`${MOD}+1`);
  await expect(page.getByRole('grid', { name: 'Contacts' })).toBeVisible();
  await page.keyboard.press(`${MOD}+e`);
  const dialog = page.getByRole('dialog', { name: 'Export', exact: true });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /Export…/ }).click();
  const done = dialog.getByText(/Exported [\d,.\s]+ rows/);
  await expect(done).toBeVisible({ timeout: 60_000 });
  const rows = Number(((await done.textContent()) ?? '').replace(/[^\d]/g, ''));
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  return rows;
}
