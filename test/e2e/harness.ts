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
import { test as base, expect, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildLetterdeskApi } from '../../shared/bridge.ts';
import { CALL_NAMES, EVENT_NAMES, type EventName, type EventPayload, type SyncStatus } from '../../shared/contract.ts';
import { INVOKE_PATH, serveRenderer } from './rendererServer.ts';
import { createCore, type Core, type PlatformServices } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/handlers.ts';
import { dispatchCall, FORBIDDEN_SENDER_RESULT } from '../../electron/main/ipc/dispatch.ts';

const SCREENSHOT_DIR = resolve(import.meta.dirname, '../../test-results/screenshots');

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
}

export const test = base.extend<HarnessOptions & { app: AppHarness }>({
  sampleContacts: [1200, { option: true }],
  sampleOrders: [360, { option: true }],
  app: async ({ page, sampleContacts, sampleOrders }, use, testInfo) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'letterdesk-e2e-'));
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
    };
    let livePage: Page | null = page;
    const core = createCore({
      dataDir,
      version: 'e2e',
      logFile: null,
      platform,
      emit: pageEmitter(() => livePage),
      sample: { contacts: sampleContacts, orders: sampleOrders },
      // No Secret Service in the browser tests: tokens of non-sample profiles stay in memory.
      keychain: 'session-only',
      // In-thread, so tests can inject faults and edit records on the server object.
      sampleApiThread: 'main',
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
        const handlers = createHandlers(core);
        await expect
          .poll(
            async () => {
              const status = await dispatchCall(handlers, 'getSyncStatus', {});
              if (!status.ok) return 'no status yet';
              const { running, history } = status.value as SyncStatus;
              const ended = new Set(history.map((run) => run.resource));
              return !running && ended.has('contacts') && ended.has('orders') ? 'ended' : 'running';
            },
            { timeout: timeoutMs },
          )
          .toBe('ended');
        await expect(page.getByTestId('status-sync')).toBeHidden({ timeout: timeoutMs });
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
          await testInfo.attach(`${name}-${scheme}`, { path, contentType: 'image/png' });
        }
        await page.emulateMedia({ colorScheme: 'light' });
      },
    };
    await use(harness);
    livePage = null;
    await core.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  },
});

export { expect };
