/**
 * The Chromium harness: serves the built renderer (out/renderer) over loopback HTTP with the
 * production CSP, and binds the *real* main-side handlers into the page, the way the preload does
 * in Electron (DESIGN.md "The IPC contract": transport separate from handlers).
 *
 *  - calls: `page.exposeBinding('__letterdeskInvoke')` → `dispatchCall(handlers, …)` (same
 *    validation and Result values as ipcMain), with the sender frame checked; or, for timing
 *    (the benchmark's page section), a POST to the page's own server ({@link Transport});
 *  - events: `core.emit` → `window.__letterdeskEmit(event, payload)` in the page;
 *  - `window.letterdesk` is built by `buildLetterdeskApi` from shared/bridge.ts — the same function
 *    the preload runs — injected as an init script.
 *
 * Each test gets a fresh data directory, its own core (profiles, keychain access, caches, the
 * embedded sample API) and platform services that record what the app asked of the OS.
 */
import { test as base, expect, type Browser, type Page, type TestInfo } from '@playwright/test';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { buildLetterdeskApi } from '../../shared/bridge.ts';
import { CALL_NAMES, EVENT_NAMES, type EventName, type EventPayload, type SyncStatus } from '../../shared/contract.ts';
import { INVOKE_PATH, serveRenderer } from './rendererServer.ts';
import { createCore, type Core, type PlatformServices } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall, FORBIDDEN_SENDER_RESULT } from '../../electron/main/ipc/dispatch.ts';

const SCREENSHOT_DIR = resolve(import.meta.dirname, '../../test-results/screenshots');
/**
 * Synced sample data directories shared by the specs of one run (see {@link sampleFixture}); the
 * global setup empties it, so a run never reuses a cache an older build wrote.
 */
export const FIXTURE_DIR = resolve(import.meta.dirname, '../../test-results/fixtures');
/** The built database worker and sync process (out/main, made by globalSetup.ts or `npm test`). */
const BUILT_DB_WORKER = pathToFileURL(resolve(import.meta.dirname, '../../out/main/dbWorker.js'));
const BUILT_SYNC_PROCESS = pathToFileURL(resolve(import.meta.dirname, '../../out/main/syncProcess.js'));
/** The longest a shared sample may take to build (ms), or another worker to wait for it. */
const SAMPLE_BUILD_TIMEOUT_MS = 40 * 60_000;

/** What the app asked of the operating system during a test. */
export interface PlatformLog {
  savedFiles: string[];
  shownInFolder: string[];
  openedExternal: string[];
  progress: (number | null)[];
}

export interface AppHarness {
  page: Page;
  core: Core;
  dataDir: string;
  platformLog: PlatformLog;
  /**
   * With the `prebuiltSample` option: the shared synced sample this test's data directory was
   * copied from, and how long its one sync through the UI took; otherwise null.
   */
  prebuilt: PrebuiltSample | null;
  /** Loads the app page (after the bindings are in place). */
  open(): Promise<void>;
  /**
   * Reloads the page and waits until the app has read its profiles and status: it then shows the
   * page it remembers, and a shortcut pressed earlier could be overruled by that.
   */
  reload(): Promise<void>;
  /** Screenshot of the current screen in light and dark mode, into test-results/screenshots. */
  screenshot(name: string): Promise<void>;
  /**
   * Clicks "Explore with sample data" and waits until its first sync has ended in main (every
   * resource has a run on record, nothing runs) and the page no longer shows it running. Waiting for
   * the spinner alone can pass before the sync starts, or between its resources.
   */
  exploreSampleData(timeoutMs?: number): Promise<void>;
}

/**
 * How the page reaches the handlers. 'binding': Playwright's exposed binding (each answer goes
 * through the DevTools protocol and Playwright's serialisation: tens of milliseconds for a window
 * of rows). 'http': a POST to the page's own server (`serveRenderer` with {@link handlersInvoker}), a
 * few milliseconds a call, nearer what Electron's IPC costs; what the benchmark's page section uses.
 */
export type Transport = 'binding' | 'http';

/**
 * The core's handlers through `dispatchCall`, as either {@link Transport} calls them (and the
 * `invoke` option of `serveRenderer` for the 'http' one).
 */
export function handlersInvoker(core: Core): (name: unknown, input: unknown) => Promise<unknown> {
  const handlers = createHandlers(core);
  return (name, input) => dispatchCall(handlers, name, input, (message, error) => console.error(message, error));
}

/**
 * Installs `window.letterdesk` in `page`, backed by the core's handlers through `dispatchCall`:
 * through a binding, or (`transport` 'http') through the page's server, which must have been
 * started with {@link handlersInvoker}.
 */
export async function bindHandlers(page: Page, core: Core, pageUrl: string, transport: Transport = 'binding'): Promise<void> {
  if (transport === 'binding') {
    const invoke = handlersInvoker(core);
    const origin = new URL(pageUrl).origin;
    await page.exposeBinding('__letterdeskInvoke', async (source, name: unknown, input: unknown) => {
      // The sender check of the Electron transport: only the app's own top-level page may call.
      if (source.frame !== source.page.mainFrame() || new URL(source.frame.url()).origin !== origin) return FORBIDDEN_SENDER_RESULT;
      return invoke(name, input);
    });
  } else {
    await page.addInitScript({
      content: `window.__letterdeskInvoke = (name, input) => fetch(${JSON.stringify(INVOKE_PATH)}, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, input }),
      }).then((response) => response.json());`,
    });
  }
  const init = `(() => {
    const listeners = new Map();
    Object.defineProperty(window, '__letterdeskEmit', { value: (event, payload) => { for (const l of [...(listeners.get(event) ?? [])]) l(payload); } });
    const build = ${buildLetterdeskApi.toString()};
    const api = build(${JSON.stringify(CALL_NAMES)}, ${JSON.stringify(EVENT_NAMES)},
      (name, input) => window.__letterdeskInvoke(name, input),
      (event, listener) => {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event).add(listener);
        return () => listeners.get(event).delete(listener);
      });
    Object.defineProperty(window, 'letterdesk', { value: api, writable: false, configurable: false });
  })();`;
  await page.addInitScript({ content: init });
}

/** Sends a contract event into the page (ignored while the page is loading or closed). */
export function pageEmitter(getPage: () => Page | null) {
  return <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    const page = getPage();
    if (!page || page.isClosed()) return;
    page
      .evaluate(([e, p]) => (window as unknown as { __letterdeskEmit?: (e: string, p: unknown) => void }).__letterdeskEmit?.(e, p), [event, payload] as const)
      .catch(() => {});
  };
}

export interface HarnessOptions {
  /** Size of the embedded sample data set. */
  sampleContacts: number;
  sampleOrders: number;
  /**
   * Start from the sample data already synced: the test's data directory is a copy of the shared
   * synced sample of this size ({@link sampleFixture}) instead of empty. For the large samples,
   * which take minutes to sync; the app then opens on the sample profile with its cache.
   * @default false
   */
  prebuiltSample: boolean;
}

/** A synced sample data directory shared by the tests of a run. */
export interface PrebuiltSample {
  /** The data directory (profiles.json, cache/…) to copy; never opened by a test itself. */
  dir: string;
  /** Seconds from opening the app (its automatic sync) until the sync had ended. */
  syncSeconds: number;
}

/** What a worker knows about the shared synced samples. */
export interface SampleFixtures {
  /**
   * The synced sample data directory of `contacts` × `orders`, built once per run by whichever
   * worker asks first (the others wait for it).
   * @throws Error when the build failed (in any worker) or took longer than `timeoutMs`
   */
  get(contacts: number, orders: number, timeoutMs?: number): Promise<PrebuiltSample>;
}

/** The parts of {@link AppHarness} a page and a data directory make, and how to close them. */
interface StartedApp {
  harness: AppHarness;
  close(): Promise<void>;
}

/**
 * Waits until a sync started from the page has ended in main (every resource has a run on record,
 * nothing runs) and the page no longer shows it running. Waiting for the spinner alone can pass
 * before the sync starts, or between its resources.
 */
async function waitForSyncEnd(core: Core, page: Page, timeoutMs: number): Promise<void> {
  const handlers = createHandlers(core);
  await expect
    .poll(
      async () => {
        const status = await dispatchCall(handlers, 'getSyncStatus', {});
        if (!status.ok) return 'no status yet';
        const { running, history } = status.value as SyncStatus;
        const ended = new Set(history.map((run) => run.resource));
        if (!running && ended.has('contacts') && ended.has('orders')) return 'ended';
        // What a timeout then reports: how far each resource's latest run had come.
        const latest = ['contacts', 'orders'].map((resource) => {
          const run = history.find((r) => r.resource === resource);
          return run === undefined ? `${resource} not started` : `${resource} ${run.outcome}, ${run.rows} rows`;
        });
        return `running (${latest.join('; ')})`;
      },
      { timeout: timeoutMs },
    )
    .toBe('ended');
  await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: timeoutMs });
}

/**
 * Starts a core on `dataDir` (with its sample API of the given size) and a renderer server, and
 * binds the handlers into `page`; the page is not loaded yet (`harness.open()`).
 */
async function startApp(page: Page, dataDir: string, sample: { contacts: number; orders: number }, testInfo: TestInfo | null, prebuilt: PrebuiltSample | null): Promise<StartedApp> {
  const exportsDir = join(dataDir, 'exports');
  mkdirSync(exportsDir, { recursive: true });
  const platformLog: PlatformLog = { savedFiles: [], shownInFolder: [], openedExternal: [], progress: [] };
  const platform: PlatformServices = {
    async showSaveDialog(defaultPath) {
      const file = join(exportsDir, defaultPath.split(/[\\/]/).pop() ?? 'export.csv');
      platformLog.savedFiles.push(file);
      return file;
    },
    showItemInFolder: (path) => void platformLog.shownInFolder.push(path),
    async openExternal(url) {
      platformLog.openedExternal.push(url);
    },
    setProgress: (fraction) => void platformLog.progress.push(fraction),
    // The same engine as Electron's printToPDF: the page printed at its CSS page sizes.
    printToPdf: async () => {
      if (!livePage) throw new Error('the page is closed');
      return livePage.pdf({ preferCSSPageSize: true, printBackground: true });
    },
  };
  let livePage: Page | null = page;
  const core = createCore({
    dataDir,
    version: 'e2e',
    logFile: null,
    platform,
    emit: pageEmitter(() => livePage),
    sample,
    // No Secret Service in the browser tests: tokens of non-sample profiles stay in memory.
    keychain: 'session-only',
    // In-thread, so tests can inject faults and edit records on the server object.
    sampleApiThread: 'main',
    // The sync process and the database worker as they ship (built by the global setup): from the
    // sources, each would load and strip some hundred modules at every start.
    cacheWorkerUrl: BUILT_DB_WORKER,
    syncProcessUrl: BUILT_SYNC_PROCESS,
  });
  const server = await serveRenderer({ readPreview: (key) => core.readPreview(key) });
  await bindHandlers(page, core, server.url);
  page.on('pageerror', (error) => console.error(`[page error] ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') console.error(`[page console] ${message.text()}`);
  });
  const harness: AppHarness = {
    page,
    core,
    dataDir,
    platformLog,
    prebuilt,
    async open() {
      await page.goto(server.url);
      core.start();
    },
    async reload() {
      await page.reload();
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    },
    async exploreSampleData(timeoutMs = 90_000) {
      await page.getByRole('button', { name: /Explore with sample data/ }).click();
      await waitForSyncEnd(core, page, timeoutMs);
    },
    async screenshot(name) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        // The page has taken the scheme and painted with it: the media query answers it, and two
        // animation frames have passed since (style recalculated, then a frame drawn).
        await page.waitForFunction((dark) => matchMedia('(prefers-color-scheme: dark)').matches === dark, scheme === 'dark');
        await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
        const path = join(SCREENSHOT_DIR, `${name}-${scheme}.png`);
        await page.screenshot({ path });
        await testInfo?.attach(`${name}-${scheme}`, { path, contentType: 'image/png' });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    },
  };
  return {
    harness,
    async close() {
      livePage = null;
      await core.close();
      await server.close();
    },
  };
}

/**
 * Builds the synced sample of `contacts` × `orders` into `dir` through the UI: the sample profile
 * as "Explore with sample data" makes it, but without the kept service filters (the specs that
 * share a large sample read none of them, and at a million contacts their reads are a fifth of the
 * sync); a page of its own opens the app, whose automatic sync starts, and waits until it has ended.
 * @returns seconds from opening the app until the sync had ended
 */
async function buildSample(browser: Browser, dir: string, contacts: number, orders: number, timeoutMs: number): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const started = await startApp(page, dir, { contacts, orders }, null, null);
    try {
      const { core } = started.harness;
      const baseUrl = await core.sampleApi.ensure();
      const profile = core.profiles.save({ name: 'Sample data', environment: 'custom', baseUrl, accountId: null, pageSize: 500, keptFilters: false }, { sampleData: true });
      core.profiles.use(profile.id);
      // A profile never synced is synced as the app opens (the automatic sync).
      const t0 = Date.now();
      await started.harness.open();
      await waitForSyncEnd(core, page, timeoutMs);
      return (Date.now() - t0) / 1000;
    } finally {
      await started.close();
    }
  } finally {
    await context.close();
  }
}

/**
 * The shared synced samples of a run, in {@link FIXTURE_DIR}/sample-<contacts>-<orders>: the first
 * worker to ask takes a lock (a directory made atomically), builds the sample with
 * {@link buildSample} and writes `sample.json`; every other worker waits for that file (or the
 * build's `failed.txt`). Tests copy the directory and never open the shared one.
 */
function sampleFixture(browser: Browser): SampleFixtures {
  return {
    async get(contacts, orders, timeoutMs = SAMPLE_BUILD_TIMEOUT_MS) {
      const root = join(FIXTURE_DIR, `sample-${contacts}-${orders}`);
      const done = join(root, 'sample.json');
      const failed = join(root, 'failed.txt');
      mkdirSync(FIXTURE_DIR, { recursive: true });
      let mine = false;
      try {
        mkdirSync(root);
        mine = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (mine) {
        const dir = join(root, 'data');
        try {
          const syncSeconds = await buildSample(browser, `${dir}.partial`, contacts, orders, timeoutMs);
          renameSync(`${dir}.partial`, dir);
          writeFileSync(done, JSON.stringify({ dir, syncSeconds } satisfies PrebuiltSample));
        } catch (error) {
          writeFileSync(failed, error instanceof Error ? (error.stack ?? error.message) : String(error));
          throw error;
        }
      }
      await expect
        .poll(() => (existsSync(done) ? 'built' : existsSync(failed) ? 'failed' : 'building'), { timeout: timeoutMs, message: `the shared sample ${root}` })
        .not.toBe('building');
      if (existsSync(failed)) throw new Error(`Building the shared sample in ${root} failed in another worker (see its failed.txt):\n${readFileSync(failed, 'utf8')}`);
      return JSON.parse(readFileSync(done, 'utf8')) as PrebuiltSample;
    },
  };
}

export const test = base.extend<HarnessOptions & { app: AppHarness }, { sampleFixtures: SampleFixtures }>({
  sampleContacts: [1200, { option: true }],
  sampleOrders: [360, { option: true }],
  prebuiltSample: [false, { option: true }],
  sampleFixtures: [async ({ browser }, use) => use(sampleFixture(browser)), { scope: 'worker' }],
  app: async ({ page, sampleContacts, sampleOrders, prebuiltSample, sampleFixtures }, use, testInfo) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'letterdesk-e2e-'));
    try {
      // Building the shared sample (minutes for the large ones) happens before the test's own
      // test.setTimeout() can take effect, so its time is added here.
      if (prebuiltSample) testInfo.setTimeout(testInfo.timeout + SAMPLE_BUILD_TIMEOUT_MS);
      const prebuilt = prebuiltSample ? await sampleFixtures.get(sampleContacts, sampleOrders) : null;
      if (prebuilt) cpSync(prebuilt.dir, dataDir, { recursive: true });
      const started = await startApp(page, dataDir, { contacts: sampleContacts, orders: sampleOrders }, testInfo, prebuilt);
      try {
        await use(started.harness);
      } finally {
        await started.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
});

export { expect };
