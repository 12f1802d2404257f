/**
 * The app in Electron, launched from the built sources with Playwright's `_electron`. Covers what
 * the Chromium harness (test/e2e) cannot:
 *  - the preload bridge: one window whose page sees `window.letterdesk` and no Node globals, and
 *    whose `window.open` is refused;
 *  - the sync in an Electron utility process named "Letterdesk sync", with its heap limit, ending
 *    with the sync.
 * The app scheme, CSP, menu and second instance are in shell.spec.ts; the keychain, clipboard and
 * save dialog in data.spec.ts; the packaged app in packaged.spec.ts.
 *
 * Runs only where an Electron binary is installed (developers' machines, release CI); elsewhere
 * every test is reported as skipped with the reason, and `npm test` prints that the suite did not run.
 */
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { electronExecutable, launchApp, useSampleProfile } from './launch.ts';

const binary = electronExecutable();
test.skip(binary.path === null, binary.reason ?? '');

test('opens one window whose page sees window.letterdesk and no Node globals', async () => {
  const { app, page } = await launchApp();
  try {
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    const globals = await page.evaluate(() => ({
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      api: Object.keys((window as unknown as { letterdesk: object }).letterdesk).length,
    }));
    expect(globals.require).toBe('undefined');
    expect(globals.process).toBe('undefined');
    expect(globals.api).toBeGreaterThan(10);
    const opened = await page.evaluate(() => window.open('https://example.com/') === null);
    expect(opened).toBe(true);
    expect(app.windows()).toHaveLength(1);
  } finally {
    await app.close();
  }
});

test('syncs the sample profile in a utility process named "Letterdesk sync", which ends with the sync', async () => {
  const { app, page } = await launchApp();
  try {
    // A new data folder has no profile to sync: the sample one, as "Explore with sample data" makes it.
    await useSampleProfile(page);
    type Api = { on(event: string, listener: (payload: unknown) => void): () => void; startSync(input: unknown): Promise<{ ok: boolean }> };
    const outcome = await page.evaluate(async () => {
      const api = (window as unknown as { letterdesk: Api }).letterdesk;
      const runs: { resource: string; outcome: string }[] = [];
      const finished = new Promise<void>((resolve) => {
        api.on('syncFinished', (run) => {
          runs.push(run as { resource: string; outcome: string });
          if (runs.length === 2 || (run as { outcome: string }).outcome !== 'succeeded') resolve();
        });
      });
      const started = await api.startSync({ resources: ['contacts', 'orders'] });
      if (started.ok) await finished;
      return { started: started.ok, runs: runs.map((r) => [r.resource, r.outcome]) };
    });
    expect(outcome).toEqual({ started: true, runs: [['contacts', 'succeeded'], ['orders', 'succeeded']] });
    // The sync process has ended with the sync (its memory is back with the system).
    await expect.poll(() => app.evaluate(({ app: electronApp }) => electronApp.getAppMetrics().filter((m) => m.name === 'Letterdesk sync').length)).toBe(0);
    // It ran with its heap limit (the flags reach a utility process as --js-flags), not V8's
    // default of several GB: the log line written when it ended says which limit it had.
    const info = await page.evaluate(() => (window as unknown as { letterdesk: { getAppInfo(input: object): Promise<{ value: { logFile: string } }> } }).letterdesk.getAppInfo({}));
    const logFile = info.value.logFile;
    const limit = /sync process: peak RSS \d+ MiB, CPU \d+ ms, heap limit (\d+) MiB/.exec(readFileSync(logFile, 'utf8'));
    expect(limit, 'the sync process logged its heap limit').not.toBeNull();
    expect(Number(limit![1])).toBeLessThan(256);
  } finally {
    await app.close();
  }
});
