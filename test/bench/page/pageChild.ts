/**
 * Benchmark child: the page as people feel it. Opens the built renderer in Chromium with the real
 * handlers bound into the page (the end-to-end tests' harness: test/e2e/harness.ts,
 * rendererServer.ts) on a data directory the benchmark has synced, then types searches, scrolls
 * with the wheel and the scrollbar, presses End and Home, jumps to random rows, opens details and
 * sorts by each column. Every latency is measured in the page (probe.ts: performance marks from the
 * input event's own time stamp to the paint that showed the result; long tasks from
 * PerformanceObservers); this process only drives the input and collects the figures.
 * Usage: `node test/bench/page/pageChild.ts '<json PageChildInput>'`; prints one `BENCH_RESULT` line.
 */
import Database from 'better-sqlite3';
import { chromium, type Page } from '@playwright/test';
import { pathToFileURL } from 'node:url';
import { createCore, type Core, type PlatformServices } from '../../../electron/main/core/index.ts';
import { createHandlers } from '../../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../../electron/main/ipc/dispatch.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../../electron/main/sampleApi/server.ts';
import { bindHandlers, handlersInvoker, pageEmitter } from '../../e2e/harness.ts';
import { serveRenderer } from '../../e2e/rendererServer.ts';
import { report } from '../lib.ts';
import { installProbe, type Probe, type Until, type WaitResult } from './probe.ts';
import type { LabelFigures, PageChildInput, PageChildResult, PageSample, ScrollFigures } from './types.ts';

const GRID = '[role="grid"][aria-label="Contacts"]';
/** The flags the end-to-end tests run Chromium with (test/e2e/playwright.config.ts). */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/**
 * How long no call may be waiting before the app counts as at rest: longer than the list's delay
 * before it asks for a result's facet counts and exact total (listModel.svelte.ts
 * `SECONDARY_DELAY_MS`, 250 ms), so that those are asked and answered before the next action.
 */
const QUIET_MS = 400;
/** Milliseconds between the keys of a typed search: a quick typist. */
const KEY_DELAY_MS = 60;
/** The contact columns by header title, and the sort column each asks for. */
const SORTS: { title: string; column: string }[] = [
  { title: 'City', column: 'city' }, { title: 'Full name', column: 'name' }, { title: 'Created', column: 'createdAt' }, { title: 'Email', column: 'email' },
  { title: 'Company', column: 'company' }, { title: 'State', column: 'state' }, { title: 'ZIP', column: 'zip' }, { title: 'Phone', column: 'phone' },
  { title: 'Labels', column: 'labels' }, { title: 'Verified', column: 'verified' },
];

/** Small seeded generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What people type: names, prefixes, cities, companies, email local parts and phone digits of real rows. */
function pickSearches(file: string, n: number, random: () => number): { rows: number; searches: string[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = (db.prepare('SELECT max(rowid) AS n FROM contacts').get() as { n: number | null }).n ?? 0;
    const at = db.prepare('SELECT first_name, last_name, city, company_name, email, phone_digits FROM contacts WHERE rowid = ?');
    const word = (s: unknown): string | null => String(s ?? '').split(/[^\p{L}\p{N}]+/u).find((x) => x.length >= 4)?.toLowerCase() ?? null;
    const searches: string[] = [];
    for (let i = 0; searches.length < n && i < n * 10; i++) {
      const r = (at.get(1 + Math.floor(random() * Math.max(1, rows))) ?? {}) as Record<string, unknown>;
      const kinds = [
        () => String(r.last_name ?? '').slice(0, 3).toLowerCase(),
        () => `${String(r.first_name ?? '')} ${String(r.last_name ?? '')}`.toLowerCase().trim(),
        () => word(r.city),
        () => word(r.company_name),
        () => String(r.email ?? '').split('@')[0] ?? '',
        () => String(r.phone_digits ?? '').slice(0, 7),
      ];
      const s = (kinds[searches.length % kinds.length] as () => string | null)();
      if (s && s.length >= 3 && !searches.includes(s)) searches.push(s);
    }
    return { rows, searches };
  } finally {
    db.close();
  }
}

/** How the functions evaluated in the page reach the probe (Playwright sends their source; the page's CSP allows no eval of its own). */
type Bench = { __ldBench: Probe };

const arm = (page: Page, label: string, start: 'key' | 'click' | 'now', until: Until): Promise<number> =>
  page.evaluate((a) => (globalThis as unknown as Bench).__ldBench.arm(a.label, a.start, a.until), { label, start, until });
const result = (page: Page, id: number): Promise<WaitResult> => page.evaluate((waitId) => (globalThis as unknown as Bench).__ldBench.result(waitId), id);
const phaseStart = (page: Page): Promise<number> => page.evaluate(() => (globalThis as unknown as Bench).__ldBench.phaseStart());
const phaseEnd = (page: Page, start: number): Promise<{ longTasks: number[]; longFrames: number[] }> => page.evaluate((s) => (globalThis as unknown as Bench).__ldBench.phaseEnd(s), start);
const topRow = (page: Page): Promise<number> => page.evaluate(() => (globalThis as unknown as Bench).__ldBench.topRow());
const filled = (page: Page, timeoutMs = 60_000): Promise<number> => page.evaluate((t) => (globalThis as unknown as Bench).__ldBench.filled(t), timeoutMs);
const jump = (page: Page, fraction: number): Promise<WaitResult> => page.evaluate((f) => (globalThis as unknown as Bench).__ldBench.jump(f), fraction);
const scrollbarOf = (page: Page): Promise<ReturnType<Probe['scrollbar']>> => page.evaluate(() => (globalThis as unknown as Bench).__ldBench.scrollbar());
const now = (page: Page): Promise<number> => page.evaluate(() => performance.now());

function sample(r: WaitResult): PageSample {
  if (r.error) throw new Error(`${r.label}: ${r.error}`);
  return { label: r.label, ms: r.ms, domMs: r.domMs, sentMs: r.sentMs, callMs: r.callMs, earlierCalls: r.earlierCalls };
}

/**
 * Waits until the app is at rest (not measured): every row on screen has its data and no call has
 * been waiting for {@link QUIET_MS}, the facet counts and exact counts that follow a new result
 * included, so that each action is measured from a quiet app, as after a person has looked at the
 * result.
 */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction((grid) => document.querySelector(grid)?.getAttribute('aria-busy') === 'false', GRID, { timeout: 60_000 });
  await filled(page);
  await page.evaluate((q) => (globalThis as unknown as Bench).__ldBench.idle(q, 120_000), QUIET_MS);
}

/** Ctrl+F, then waits until the search box has the focus and its text is selected (the app does it a frame after the key). */
async function focusSearch(page: Page): Promise<void> {
  await page.keyboard.press('Control+f');
  await page.waitForFunction(() => {
    const input = document.activeElement;
    return input instanceof HTMLInputElement && input.type === 'search' && input.selectionStart === 0 && input.selectionEnd === input.value.length;
  }, null, { timeout: 10_000 });
}

async function typeSearches(page: Page, searches: readonly string[]): Promise<{ samples: PageSample[]; longTasks: number[] }> {
  const samples: PageSample[] = [];
  const phase = await phaseStart(page);
  for (const search of searches) {
    // Ctrl+F focuses the search box with its text selected: the first key replaces it.
    await focusSearch(page);
    const id = await arm(page, `search "${search}"`, 'key', { kind: 'rows', call: 'queryContacts', search });
    await page.keyboard.type(search, { delay: KEY_DELAY_MS });
    samples.push(sample(await result(page, id)));
    await settle(page);
  }
  const { longTasks } = await phaseEnd(page, phase);
  // Back to the whole table for what follows.
  await focusSearch(page);
  await page.keyboard.press('Escape');
  await settle(page);
  return { samples, longTasks };
}

async function wheel(page: Page, steps: number): Promise<ScrollFigures> {
  const grid = page.locator(GRID);
  await grid.hover();
  const before = await topRow(page);
  const start = await phaseStart(page);
  // Three flicks of a trackpad or wheel: a step a frame, a short pause between them.
  for (let burst = 0; burst < 3; burst++) {
    for (let i = 0; i < steps; i++) {
      await page.mouse.wheel(0, 240);
      await page.waitForTimeout(16);
    }
    await page.waitForTimeout(150);
  }
  const last = await now(page);
  const done = await filled(page);
  const phase = await phaseEnd(page, start);
  const after = await topRow(page);
  return { mode: `wheel: 3 bursts of ${steps} steps of 240 px, one every 16 ms`, ms: done - start, fillMs: done - last, rowsMoved: after - before, ...phase };
}

/** Drags the scrollbar's thumb from the top to the bottom of its track (or scrolls as a drag would, where there is no thumb to grab). */
async function scrollbar(page: Page, moves: number): Promise<ScrollFigures> {
  await jump(page, 0);
  await settle(page);
  const bar = await scrollbarOf(page);
  const before = await topRow(page);
  const start = await phaseStart(page);
  let mode = `scrollbar: the thumb dragged from the top to the bottom of its track in ${moves} moves, one every 16 ms`;
  if (bar) {
    await page.mouse.move(bar.x, bar.top + 6);
    await page.mouse.down();
    for (let i = 1; i <= moves; i++) {
      await page.mouse.move(bar.x, bar.top + 6 + ((bar.bottom - bar.top - 30) * i) / moves);
      await page.waitForTimeout(16);
    }
    await page.mouse.up();
  }
  const moved = (await scrollbarOf(page))?.scrollTop ?? 0;
  if (!bar || moved < bar.range / 2) {
    // No thumb to grab (overlay scrollbars): the same positions, set one a frame.
    mode = `scrollbar positions set one a frame (${moves} steps from top to bottom; no thumb could be dragged)`;
    await page.evaluate(async ([selector, n]) => {
      const g = document.querySelector<HTMLElement>(selector);
      for (let i = 1; g && i <= n; i++) {
        g.scrollTop = ((g.scrollHeight - g.clientHeight) * i) / n;
        await new Promise((r) => setTimeout(r, 16));
      }
    }, [GRID, moves] as const);
  }
  const last = await now(page);
  const done = await filled(page);
  const phase = await phaseEnd(page, start);
  const after = await topRow(page);
  return { mode, ms: done - start, fillMs: done - last, rowsMoved: after - before, ...phase };
}

async function homeEnd(page: Page, rows: number, times: number): Promise<{ end: PageSample[]; home: PageSample[] }> {
  const end: PageSample[] = [];
  const home: PageSample[] = [];
  await page.locator(GRID).focus();
  await page.keyboard.press('Home');
  await settle(page);
  for (let i = 0; i < times; i++) {
    let id = await arm(page, `End (${i + 1})`, 'key', { kind: 'row', index: rows - 1 });
    await page.keyboard.press('End');
    end.push(sample(await result(page, id)));
    await settle(page);
    id = await arm(page, `Home (${i + 1})`, 'key', { kind: 'row', index: 0 });
    await page.keyboard.press('Home');
    home.push(sample(await result(page, id)));
    await settle(page);
  }
  return { end, home };
}

async function jumps(page: Page, n: number, random: () => number): Promise<PageSample[]> {
  const out: PageSample[] = [];
  for (let i = 0; i < n; i++) {
    out.push(sample(await jump(page, 0.02 + random() * 0.96)));
    await settle(page);
  }
  return out;
}

async function details(page: Page, n: number, random: () => number): Promise<PageSample[]> {
  const out: PageSample[] = [];
  for (let i = 0; i < n; i++) {
    // A row somewhere else each time, clicked in its first cell.
    await jump(page, random());
    await settle(page);
    const top = await topRow(page);
    const row = page.locator(`${GRID} [role="row"][aria-rowindex="${top + 2 + 3 + (i % 10)}"] [role="gridcell"]`).first();
    const id = await arm(page, `detail (${i + 1})`, 'click', { kind: 'detail' });
    await row.click();
    out.push(sample(await result(page, id)));
    await page.waitForTimeout(200);
    // Escape closes the detail; the next one is an opening again.
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('[data-testid="detail-panel"]') === null, null, { timeout: 10_000 });
  }
  return out;
}

async function sorts(page: Page, columns: number): Promise<PageSample[]> {
  const out: PageSample[] = [];
  await jump(page, 0);
  await settle(page);
  for (const { title, column } of SORTS.slice(0, columns)) {
    const header = page.getByRole('columnheader', { name: title, exact: true }).getByRole('button');
    // A header click cycles ascending → descending → the default order.
    for (const sort of [{ column, direction: 'asc' }, { column, direction: 'desc' }, null]) {
      const id = await arm(page, `sort ${sort ? `${column} ${sort.direction}` : `${column} off (default order)`}`, 'click', { kind: 'rows', call: 'queryContacts', sort });
      await header.click();
      out.push(sample(await result(page, id)));
      await settle(page);
    }
  }
  return out;
}

/**
 * Opens the Overview from the sidebar `n` times, back to the contacts table between: from the
 * click to the frame after its tiles and the map's states are in the DOM (the frame that shows
 * them painted). Its numbers are computed at publish, so even the first opening reads a few
 * kilobytes.
 */
async function overviews(page: Page, n: number): Promise<PageSample[]> {
  const out: PageSample[] = [];
  for (let i = 0; i < n; i++) {
    const { ms, domMs } = await page.evaluate(
      () =>
        new Promise<{ ms: number; domMs: number }>((resolve, reject) => {
          const button = [...document.querySelectorAll<HTMLButtonElement>('nav[aria-label="Main"] button')].find((b) => b.textContent?.trim() === 'Overview');
          if (!button) return reject(new Error('no Overview button in the sidebar'));
          const start = performance.now();
          button.click();
          const shown = (): boolean => document.querySelectorAll('[data-testid="chart-contacts-by-state"] path[data-state]').length > 0 && document.querySelector('[aria-label="Totals"]') !== null;
          const frame = (): void => {
            if (!shown()) {
              if (performance.now() - start > 30_000) reject(new Error('the Overview did not show in 30 s'));
              else requestAnimationFrame(frame);
              return;
            }
            const domMs = performance.now() - start;
            requestAnimationFrame(() => resolve({ ms: performance.now() - start, domMs }));
          };
          requestAnimationFrame(frame);
        }),
    );
    out.push({ label: i === 0 ? 'first opening' : `opening ${i + 1}`, ms, domMs, sentMs: null, callMs: null, earlierCalls: 0 });
    await page.waitForTimeout(400);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Contacts/ }).click();
    await settle(page);
  }
  return out;
}

/** The labels measurement runs on tables of at most this many contacts (the target is set for 10,000 labels). */
const LABELS_AT_MOST = 10_000;

/**
 * Mailing labels of the whole contacts table (Avery 5160): from the click on Print labels to every
 * sheet in the preview, then the PDF of those sheets printed by the page's engine.
 */
async function labelsToPdf(page: Page): Promise<LabelFigures> {
  const start = performance.now();
  await page.getByRole('button', { name: 'Print labels', exact: true }).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="label-sheet"]').length > 0 && document.querySelector('[data-testid="labels-page"] [aria-busy="true"]') === null, null, { timeout: 120_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const previewMs = performance.now() - start;
  const labels = await page.locator('[data-testid="labels-page"] .label').count();
  const pdfStart = performance.now();
  const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
  const pdfMs = performance.now() - pdfStart;
  const pages = (Buffer.from(pdf).toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await settle(page);
  return { labels, pages, previewMs, pdfMs };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as PageChildInput;
  const random = rng(input.seed);
  const { rows, searches } = pickSearches(input.cacheFile, input.searches, random);

  const platform: PlatformServices = { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} };
  let livePage: Page | null = null;
  const core: Core = createCore({
    dataDir: input.dataDir, version: 'bench', logFile: null, platform, emit: pageEmitter(() => livePage), keychain: 'session-only', autoSyncAfterMinutes: 0,
    ...(input.builtWorker ? { cacheWorkerUrl: pathToFileURL(input.builtWorker) } : {}),
  });
  // The profile's tokens, as the person who synced it has them (no "sign in" state in the page).
  const tokens = await dispatchCall(createHandlers(core), 'setCredentials', { profileId: core.activeProfile().id, accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN, sessionOnly: true });
  if (!tokens.ok) throw new Error(`setCredentials: ${tokens.error.message}`);
  // The calls go over loopback HTTP, a few milliseconds each, nearer Electron's IPC than a binding (harness.ts `Transport`).
  const server = await serveRenderer({ readPreview: (key) => core.readPreview(key), invoke: handlersInvoker(core) });
  // Scrollbars as the app shows them (headless Chromium hides them by default): the drag needs one.
  const browser = await chromium.launch({ executablePath: input.chromium, args: CHROMIUM_ARGS, headless: true, ignoreDefaultArgs: ['--hide-scrollbars'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    livePage = page;
    page.on('pageerror', (error) => console.error(`[page error] ${error.message}`));
    await bindHandlers(page, core, server.url, 'http');
    await page.addInitScript({ content: `(${installProbe.toString()})(${JSON.stringify(GRID)});` });
    await page.goto(server.url);
    core.start();
    const opened = await page.evaluate(() => (globalThis as unknown as Bench).__ldBench.opened);
    await page.waitForFunction(([grid, n]) => document.querySelector(grid)?.getAttribute('aria-rowcount') === String(n + 1), [GRID, rows] as const, { timeout: 60_000 });
    await settle(page);

    const typed = await typeSearches(page, searches);
    const wheeled = await wheel(page, input.wheelSteps);
    await settle(page);
    const dragged = await scrollbar(page, input.wheelSteps);
    await settle(page);
    const { end, home } = await homeEnd(page, rows, input.homeEnd);
    const jumped = await jumps(page, input.jumps, random);
    const opens = await details(page, input.details, random);
    const sorted = await sorts(page, input.sortColumns);
    const overviewed = await overviews(page, input.overviews);
    const labelled = rows <= LABELS_AT_MOST ? await labelsToPdf(page) : null;
    const out: PageChildResult = {
      rows, browser: browser.version(), openMs: opened.ms, keystroke: typed.samples, typingLongTasks: typed.longTasks,
      wheel: wheeled, scrollbar: dragged, end, home, jump: jumped, detail: opens, sort: sorted, overview: overviewed, labels: labelled,
    };
    livePage = null;
    report(out);
  } finally {
    livePage = null;
    await browser.close();
    await server.close();
    await core.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
