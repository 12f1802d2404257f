/**
 * The benchmark's page section: the app in Chromium on a synced data directory
 * (test/bench/page/pageChild.ts measures, in the page), and its rows in the table: keystroke →
 * first rows of the new result painted, long tasks while scrolling with the wheel and the
 * scrollbar, End / Home and a jump to a random row, opening a detail, sorting by another column;
 * and the Overview opened from the sidebar.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fmt, latencyStats, percentile, runChild } from './lib.ts';
import { add, addMax, log, raw } from './results.ts';
import type { PageChildInput, PageChildResult, PageSample, ScrollFigures } from './page/types.ts';

/** Debian's Chromium, as the end-to-end tests use it (CHROMIUM_PATH overrides). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Samples per measurement: a full run, and a quick one (a check that the section works). */
const SAMPLES = {
  full: { searches: 18, jumps: 20, details: 12, homeEnd: 5, sortColumns: 10, wheelSteps: 60, overviews: 10 },
  quick: { searches: 4, jumps: 4, details: 3, homeEnd: 2, sortColumns: 2, wheelSteps: 12, overviews: 3 },
};

const median = (values: readonly number[]): number => percentile(values, 50);

/** "p50 12 ms, max 30 ms (label)" of samples. */
function spread(samples: readonly PageSample[]): string {
  const st = latencyStats(samples.map((x) => x.ms));
  const worst = samples.reduce((a, b) => (b.ms > a.ms ? b : a), samples[0] as PageSample);
  return `p50 ${fmt(st.p50)} ms, max ${fmt(st.max)} ms (${worst.label})`;
}

/** Where the samples' time went: until the call was sent, its round trip, and from its answer to the paint (medians). */
function split(samples: readonly PageSample[]): string {
  const sent = samples.filter((x) => x.sentMs !== null && x.callMs !== null);
  if (sent.length === 0) return `DOM showed the result after ${fmt(median(samples.map((x) => x.domMs)))} ms (median)`;
  const before = median(sent.map((x) => x.sentMs as number));
  const call = median(sent.map((x) => x.callMs as number));
  const after = median(sent.map((x) => x.ms - (x.sentMs as number) - (x.callMs as number)));
  return `medians: input → call sent ${fmt(before)} ms, the call (page → handlers → database worker → page) ${fmt(call)} ms, answer → painted ${fmt(after)} ms`;
}

function p95Row(key: string, name: string, samples: readonly PageSample[], limit: number, note: string): void {
  addMax(key, `${name} (p95 of ${samples.length})`, percentile(samples.map((x) => x.ms), 95), limit, 'ms', `${spread(samples)}; ${split(samples)}${note ? `; ${note}` : ''}`);
}

function scrollRow(key: string, name: string, f: ScrollFigures): void {
  const frames = f.longFrames.length > 0 ? `, the longest ${fmt(Math.max(...f.longFrames))} ms` : '';
  add({
    key, name, value: f.longTasks.length, unit: '', target: 'none > 50 ms', pass: f.longTasks.length === 0,
    note: `${f.longTasks.length > 0 ? `the longest ${fmt(Math.max(...f.longTasks))} ms (${f.longTasks.map((d) => fmt(d)).join(', ')}); ` : ''}${f.mode}; ${fmt(f.rowsMoved)} rows down; every row on screen painted ${fmt(f.ms)} ms after the first input, ${fmt(f.fillMs)} ms after the last; long animation frames (> 50 ms) ${f.longFrames.length}${frames}`,
  });
}

/**
 * Runs the page child on `dataDir` and adds the section's rows.
 * @throws Error when Chromium or the built renderer is missing, or the child fails
 */
export async function pageSection(options: { scale: string; dataDir: string; cacheFile: string; builtWorker: string | null; quick: boolean; seed: number; root: string }): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`);
  if (!existsSync(resolve(options.root, 'out/renderer/index.html'))) throw new Error('the renderer is not built (out/renderer): the build failed');
  const input: PageChildInput = { dataDir: options.dataDir, cacheFile: options.cacheFile, builtWorker: options.builtWorker, chromium: CHROMIUM, seed: options.seed, ...(options.quick ? SAMPLES.quick : SAMPLES.full) };
  const { result: r } = await runChild<PageChildResult>(resolve(import.meta.dirname, 'page/pageChild.ts'), input, { timeoutMs: 20 * 60_000 });
  raw[`${options.scale}.page`] = r;
  const s = options.scale;
  log(`page ${s}: keystroke p95 ${fmt(percentile(r.keystroke.map((x) => x.ms), 95))} ms, End/Home p95 ${fmt(percentile([...r.end, ...r.home].map((x) => x.ms), 95))} ms, jump p95 ${fmt(percentile(r.jump.map((x) => x.ms), 95))} ms, detail p95 ${fmt(percentile(r.detail.map((x) => x.ms), 95))} ms, sort p95 ${fmt(percentile(r.sort.map((x) => x.ms), 95))} ms; long tasks: wheel ${r.wheel.longTasks.length}, scrollbar ${r.scrollbar.longTasks.length}`);
  const superseded = r.keystroke.reduce((n, x) => n + x.earlierCalls, 0);
  add({ key: `${s}.page.open`, name: `${s}: page: navigation → first rows painted`, value: r.openMs, unit: 'ms', pass: null, note: `printed; ${r.browser}, 1360 × 860, the built renderer served as the app scheme serves it, the real handlers called over loopback HTTP` });
  p95Row(`${s}.page.keystroke`, `${s}: page: keystroke → first rows of the new result painted, debounce included`, r.keystroke, 100,
    `from the last key of each search typed into the search box (a key every 60 ms after Ctrl+F) to the paint that shows the first row of the answer to that search; ${superseded} earlier queries were sent while typing; long tasks while typing ${r.typingLongTasks.length}${r.typingLongTasks.length ? ` (the longest ${fmt(Math.max(...r.typingLongTasks))} ms)` : ''}`);
  scrollRow(`${s}.page.wheel`, `${s}: page: long tasks while wheel-scrolling through ${fmt(r.rows)} rows`, r.wheel);
  scrollRow(`${s}.page.scrollbar`, `${s}: page: long tasks while dragging the scrollbar through ${fmt(r.rows)} rows`, r.scrollbar);
  p95Row(`${s}.page.homeEnd`, `${s}: page: End and Home → the last or first rows painted`, [...r.end, ...r.home], 100,
    `End from the top: ${spread(r.end)}; Home from the end: ${spread(r.home)}; from the key press in the focused grid to its target row on screen with every row there painted`);
  p95Row(`${s}.page.jump`, `${s}: page: jump to a random row → rows painted`, r.jump, 100, 'the grid scrolled to a random position at once (as a scrollbar drag released there), from that moment to every row on screen painted');
  p95Row(`${s}.page.detail`, `${s}: page: click a row → its detail painted`, r.detail, 50, 'a click on a row elsewhere in the table each time, the detail closed before; to the paint that shows the record in the detail panel');
  p95Row(`${s}.page.overview`, `${s}: page: click Overview → its tiles and charts painted`, r.overview, 200,
    `the first opening (its numbers read for the first time) ${fmt(r.overview[0]?.ms ?? 0)} ms; from the sidebar click to the frame after the tiles and the map's states are in the DOM; the numbers are computed at publish`);
  if (r.labels) {
    const l = r.labels;
    add({
      key: `${s}.page.labels`, name: `${s}: page: ${fmt(l.labels)} mailing labels → preview and PDF`, value: Math.round(l.previewMs + l.pdfMs), unit: 'ms', target: '≤ 10 s', pass: l.previewMs + l.pdfMs <= 10_000,
      note: `Avery 5160, ${fmt(l.pages)} pages; Print labels → every sheet in the preview ${fmt(l.previewMs)} ms, then the PDF by the page's engine (as Electron's printToPDF) ${fmt(l.pdfMs)} ms`,
    });
  }
  p95Row(`${s}.page.sort`, `${s}: page: click a column header → rows in the new order painted`, r.sort, 150, `${r.sort.length / 3} columns, each ascending, descending and back to the default order; to the paint that shows the first row of the answer`);
}
