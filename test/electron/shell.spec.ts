/**
 * The Electron shell around the page, launched from the built sources with Playwright's `_electron`.
 * Covers what the Chromium harness (test/e2e), which serves the page over loopback HTTP, cannot:
 *  - the app scheme: the window shows `letterdesk://app/index.html`, the page comes with the CSP
 *    header of app/security.ts, files outside the built page and unknown previews are 404, and the
 *    policy refuses a remote request;
 *  - the native menu: its View items and accelerators, a menu item switching the page's view, and
 *    the keyboard shortcut doing the same;
 *  - the single-instance lock: a second start with the same data folder quits at once and brings
 *    the first window back.
 * Runs only where an Electron binary is installed; elsewhere every test is reported as skipped with
 * the reason.
 */
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { APP_PAGE_URL } from '../../electron/main/app/appScheme.ts';
import { CONTENT_SECURITY_POLICY } from '../../electron/main/app/security.ts';
import { electronExecutable, launchApp, MOD, ROOT, useSampleProfile } from './launch.ts';

const binary = electronExecutable();
test.skip(binary.path === null, binary.reason ?? '');

test('the page comes from the app scheme with its CSP header, and nothing outside it is served', async () => {
  const { app, page } = await launchApp();
  try {
    expect(page.url()).toBe(APP_PAGE_URL);
    const answers = await page.evaluate(async () => {
      const get = async (url: string) => {
        const response = await fetch(url);
        return { status: response.status, csp: response.headers.get('content-security-policy') };
      };
      let remote: string;
      try {
        await fetch('https://example.com/');
        remote = 'fetched';
      } catch (error) {
        remote = `refused: ${(error as Error).name}`;
      }
      return {
        page: await get('letterdesk://app/index.html'),
        root: await get('letterdesk://app/'),
        outside: await get('letterdesk://app/%2e%2e/package.json'),
        source: await get('letterdesk://app/main.ts'),
        preview: await get('letterdesk://app/preview/nothing-cached'),
        remote,
      };
    });
    expect(answers.page).toEqual({ status: 200, csp: CONTENT_SECURITY_POLICY });
    expect(answers.root).toEqual({ status: 200, csp: CONTENT_SECURITY_POLICY });
    expect(answers.outside.status).toBe(404);
    expect(answers.source.status).toBe(404);
    expect(answers.preview.status).toBe(404);
    expect(answers.remote).toMatch(/^refused/);
  } finally {
    await app.close();
  }
});

test('the menu lists the views with their shortcuts; its items and the keys switch the view', async () => {
  const { app, page } = await launchApp();
  try {
    const view = await app.evaluate(({ Menu }) => {
      const menu = Menu.getApplicationMenu();
      const items = menu?.items.find((item) => item.label.replace('&', '') === 'View')?.submenu?.items ?? [];
      return items.filter((item) => item.label !== '').map((item) => [item.label, item.accelerator ?? null]);
    });
    expect(view.slice(0, 6)).toEqual([
      ['Contacts', 'CmdOrCtrl+1'],
      ['Orders', 'CmdOrCtrl+2'],
      ['Templates', 'CmdOrCtrl+3'],
      ['Campaigns', 'CmdOrCtrl+4'],
      ['Sync', 'CmdOrCtrl+5'],
      ['Profiles', 'CmdOrCtrl+6'],
    ]);
    // The views exist once there is a profile: the sample one, without syncing it.
    await useSampleProfile(page);
    await page.reload();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    // A menu item sends its command to the page, which shows that view.
    await app.evaluate(({ Menu, BrowserWindow }) => {
      const items = Menu.getApplicationMenu()?.items.find((item) => item.label.replace('&', '') === 'View')?.submenu?.items ?? [];
      const sync = items.find((item) => item.label === 'Sync');
      if (!sync) throw new Error('no View › Sync menu item');
      sync.click(undefined, BrowserWindow.getAllWindows()[0]);
    });
    await expect(page.getByRole('heading', { name: 'Sync', level: 1 })).toBeVisible();
    // The shortcut, pressed in the window, does the same.
    await page.keyboard.press(`${MOD}+6`);
    await expect(page.getByRole('heading', { name: 'Profiles', level: 1 })).toBeVisible();
    await page.keyboard.press(`${MOD}+5`);
    await expect(page.getByRole('heading', { name: 'Sync', level: 1 })).toBeVisible();
  } finally {
    await app.close();
  }
});

test('a second start with the same data folder quits and brings the first window back', async () => {
  const first = await launchApp();
  try {
    await first.app.evaluate(({ app, BrowserWindow }) => {
      const g = globalThis as { secondInstances?: number };
      g.secondInstances = 0;
      app.on('second-instance', () => {
        g.secondInstances = (g.secondInstances ?? 0) + 1;
      });
      BrowserWindow.getAllWindows()[0]?.minimize();
    });
    const second = spawn(binary.path!, [ROOT], { env: { ...process.env, LETTERDESK_DATA_DIR: first.dataDir, LETTERDESK_AUTO_SYNC_MINUTES: '0' }, stdio: 'ignore' });
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        second.kill();
        reject(new Error('the second instance did not quit within 30 s'));
      }, 30_000);
      second.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect(exitCode).toBe(0);
    await expect.poll(() => first.app.evaluate(() => (globalThis as { secondInstances?: number }).secondInstances)).toBe(1);
    const state = await first.app.evaluate(({ BrowserWindow }) => {
      const windows = BrowserWindow.getAllWindows();
      return { windows: windows.length, minimized: windows[0]?.isMinimized(), visible: windows[0]?.isVisible() };
    });
    expect(state).toEqual({ windows: 1, minimized: false, visible: true });
  } finally {
    await first.app.close();
  }
});
