/**
 * Copying a table's selected rows: tab-separated or CSV text with a header row, in the columns
 * and order the table shows. Rows already on screen go to the clipboard within the key press;
 * a large selection is read from the cache in chunks, with its progress in the status bar once it
 * takes more than a moment, and can be cancelled.
 */
import type { CsvOptions } from '../../../shared/contract.ts';
import { joinSentences } from '../../../shared/errors.ts';
import { copyCommand, writeClipboard, writeClipboardParts } from '../lib/clipboard.ts';
import { linesText, rowsText, type RowTextFormat, type RowTextOptions } from '../lib/rowText.ts';
import type { Column } from '../lib/columns.ts';
import { errorText } from '../lib/api.ts';
import { formatCount, formatTotal } from '../lib/format.ts';
import type { PageTask, Toast } from './app.svelte.ts';
import { Persisted } from './persisted.svelte.ts';

/** After this long, a copy shows its progress (ms). */
const SHOW_PROGRESS_AFTER = 300;
/** Least time between two progress updates on screen (ms). */
const PROGRESS_INTERVAL = 250;

/** What copying needs of the table's model. */
export interface CopySource<Row> {
  selectedCount: number;
  selectedRowsOnHand(): Row[] | null;
  readSelected(take: (rows: Row[]) => void, options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void }): Promise<number>;
}

/** Where copying reports: the app's toasts and its task line. */
export interface CopyHost {
  task: PageTask | null;
  toast(kind: Toast['kind'], text: string, action?: Toast['action']): void;
}

/** The export's remembered "Neutralise formulas" setting, which copies follow too (on by default). */
export function neutralizeSetting(): boolean {
  return new Persisted<Partial<CsvOptions>>('export', {}).current.neutralizeFormulas ?? true;
}

/** Puts text on the clipboard; when the page may not, offers a button whose click can. */
async function put(text: string | readonly string[], host: CopyHost, done: string): Promise<void> {
  if (await (typeof text === 'string' ? writeClipboard(text) : writeClipboardParts(text))) {
    host.toast('success', done);
    return;
  }
  const run = (): void => {
    const ok = copyCommand(typeof text === 'string' ? text : text.join(''));
    if (ok) host.toast('success', done);
    else host.toast('error', 'The clipboard is not available.');
  };
  host.toast('info', 'The rows are ready to copy.', { label: 'Copy to clipboard', run });
}

let running = false;

/**
 * Copies the selected rows.
 * @param event the `copy` event of the Edit menu's Copy, or null (a key or menu item of the page):
 *   with rows on hand, the text is set in the event itself
 * @param noun one row, for messages ("contact")
 */
export async function copySelection<Row>(
  source: CopySource<Row>,
  columns: readonly Column<Row>[],
  format: RowTextFormat,
  noun: string,
  host: CopyHost,
  event: ClipboardEvent | null = null,
): Promise<void> {
  if (source.selectedCount === 0) {
    event?.preventDefault();
    host.toast('info', `Select the ${noun}s to copy first.`);
    return;
  }
  // One copy at a time (the menu's Copy and the key press can both arrive for one press).
  if (running) {
    event?.preventDefault();
    return;
  }
  const options: RowTextOptions = { format, neutralizeFormulas: neutralizeSetting() };
  const header = columns.map((c) => c.title);
  const cells = (row: Row): string[] => columns.map((c) => c.text(row));
  const onHand = source.selectedRowsOnHand();
  if (onHand) {
    const text = rowsText(header, onHand.map(cells), options);
    const done = `Copied ${formatTotal(onHand.length, true, noun)}${format === 'csv' ? ' as CSV' : ''}`;
    if (event?.clipboardData) {
      event.clipboardData.setData('text/plain', text);
      event.preventDefault();
      host.toast('success', done);
    } else await put(text, host, done);
    return;
  }
  event?.preventDefault();
  running = true;
  const abort = new AbortController();
  const parts: string[] = [linesText([header], { ...options, neutralizeFormulas: false })];
  let progress = { done: 0, total: source.selectedCount };
  let shownAt = 0;
  const label = `Copying ${noun}s`;
  const timer = setTimeout(() => (host.task = { label, ...progress, cancel: () => abort.abort() }), SHOW_PROGRESS_AFTER);
  try {
    const n = await source.readSelected((rows) => parts.push(linesText(rows.map(cells), options)), {
      signal: abort.signal,
      onProgress: (done, total) => {
        progress = { done, total };
        // A few updates a second are enough to watch; each one re-renders the status bar.
        const now = performance.now();
        if (host.task && (now - shownAt > PROGRESS_INTERVAL || done === total)) {
          shownAt = now;
          host.task = { ...host.task, done, total };
        }
      },
    });
    await put(parts, host, `Copied ${formatTotal(n, true, noun)}${format === 'csv' ? ' as CSV' : ''}`);
  } catch (error) {
    if (abort.signal.aborted) host.toast('info', `Copy cancelled after ${formatCount(progress.done)} of ${formatCount(progress.total)} ${noun}s; the clipboard is unchanged.`);
    else host.toast('error', joinSentences(`The ${noun}s could not be copied.`, errorText(error)));
  } finally {
    clearTimeout(timer);
    host.task = null;
    running = false;
  }
}

/** Copies one piece of text (a cell, a record as JSON). */
export async function copyText(text: string, host: CopyHost, done: string): Promise<void> {
  await put(text, host, done);
}
