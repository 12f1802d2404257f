/**
 * What the benchmark's page section (test/bench/page/pageChild.ts) is given and what it reports:
 * latencies measured in the page with performance marks, from the input event (or the action the
 * page ran) until the rows it brought were painted.
 */

/** Input of the page child. */
export interface PageChildInput {
  /** The data directory whose active profile's cache holds the synced contacts. */
  dataDir: string;
  /** That cache file (read directly, untimed, to pick the search words). */
  cacheFile: string;
  /** The built database worker (`out/main/dbWorker.js`), or null to run it from the sources. */
  builtWorker: string | null;
  /** The browser to drive (Debian's Chromium). */
  chromium: string;
  /** Searches typed (each a sample). */
  searches: number;
  /** Jumps to a random row (each a sample). */
  jumps: number;
  /** Details opened (each a sample). */
  details: number;
  /** End then Home presses (two samples each). */
  homeEnd: number;
  /** Columns sorted by (ascending, descending, then back to the default order: three samples each). */
  sortColumns: number;
  /** Wheel steps of each of the three wheel bursts, and moves of the scrollbar drag. */
  wheelSteps: number;
  /** Openings of the Overview from the contacts table (each a sample; the first one reads its numbers for the first time). */
  overviews: number;
  seed: number;
}

/** One measured action: from its input event to its rows (or panel) painted. */
export interface PageSample {
  /** What was done ("search \"mari\"", "sort city asc", "jump to 51%"…). */
  label: string;
  /** Input event (or the page's own action) → painted, ms. */
  ms: number;
  /** Input event → the DOM showed the result (checked at each animation frame), ms. */
  domMs: number;
  /** Input event → the call that brought the result was sent, ms (null when no call was needed). */
  sentMs: number | null;
  /** That call's round trip (page → handlers → database worker → page), ms. */
  callMs: number | null;
  /** Calls of the same kind sent between the input event and that call (superseded queries). */
  earlierCalls: number;
}

/** Scrolling and what the page's main thread did meanwhile. */
export interface ScrollFigures {
  /** How the scrolling was done. */
  mode: string;
  /** From the first scroll input until every row on screen had its data painted, ms. */
  ms: number;
  /** From the last scroll input until then, ms. */
  fillMs: number;
  /** Rows moved from the first row on screen before to the one after. */
  rowsMoved: number;
  /** Durations of the long tasks (> 50 ms, PerformanceObserver `longtask`) meanwhile, ms. */
  longTasks: number[];
  /** Durations of the long animation frames (> 50 ms, `long-animation-frame`) meanwhile, ms. */
  longFrames: number[];
}

/** What the page child prints. */
export interface PageChildResult {
  /** Rows of the contacts table (its total). */
  rows: number;
  /** The browser's version. */
  browser: string;
  /** Navigation → the first rows painted, ms. */
  openMs: number;
  keystroke: PageSample[];
  /** Long tasks while typing the searches (all of them), ms. */
  typingLongTasks: number[];
  wheel: ScrollFigures;
  scrollbar: ScrollFigures;
  end: PageSample[];
  home: PageSample[];
  jump: PageSample[];
  detail: PageSample[];
  sort: PageSample[];
  /** Sidebar click on Overview → its tiles and charts (the map's states) painted; the first sample is the first opening. */
  overview: PageSample[];
  /** The contacts table's labels (when it holds at most LABELS_AT_MOST rows): Print labels → preview painted, then the PDF. */
  labels: LabelFigures | null;
}

export interface LabelFigures {
  /** Labels laid out (addresses of the table that a label can hold). */
  labels: number;
  /** Pages of the PDF. */
  pages: number;
  /** Click on Print labels → every sheet of the preview in the DOM, ms. */
  previewMs: number;
  /** The PDF printed by the page's engine (Playwright `page.pdf`, as Electron's printToPDF), ms. */
  pdfMs: number;
}
