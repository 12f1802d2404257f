/**
 * Rows as clipboard text: tab-separated (what spreadsheets paste into cells) or CSV, with a header
 * row, and writing text to the system clipboard.
 */

/**
 * A cell that starts (after blanks) with one of these is run as a formula when pasted into a
 * spreadsheet: = + - @, their fullwidth forms, TAB, CR and NUL (the CSV export's rule, OWASP).
 */
const FORMULA_START = /^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\t\r\0]/;

/** Format of copied rows. */
export type RowTextFormat = 'tsv' | 'csv';

/** Options of {@link rowsText}. */
export interface RowTextOptions {
  format: RowTextFormat;
  /** Put `'` before a cell a spreadsheet would run as a formula (the export's setting). */
  neutralizeFormulas: boolean;
}

/** One cell made safe for a spreadsheet: a leading `'` when it would start a formula. */
export function neutralize(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * One field. TSV follows what spreadsheets write to the clipboard: a cell holding a tab, a line
 * break or a double quote is quoted, quotes doubled; CSV follows RFC 4180 (comma, quote or line
 * break: quoted).
 */
function field(text: string, options: RowTextOptions): string {
  const value = options.neutralizeFormulas ? neutralize(text) : text;
  const special = options.format === 'tsv' ? /[\t\r\n"]/ : /[,\r\n"]/;
  return special.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * Lines of text, one per row, each ending in CRLF (RFC 4180; spreadsheets read it on every
 * platform).
 * @param rows each row's cell texts, in column order
 */
export function linesText(rows: readonly (readonly string[])[], options: RowTextOptions): string {
  const sep = options.format === 'tsv' ? '\t' : ',';
  let out = '';
  for (const cells of rows) out += `${cells.map((c) => field(c, options)).join(sep)}\r\n`;
  return out;
}

/** The header line plus the rows' lines. */
export function rowsText(header: readonly string[], rows: readonly (readonly string[])[], options: RowTextOptions): string {
  return linesText([header], { ...options, neutralizeFormulas: false }) + linesText(rows, options);
}

/**
 * Puts text on the clipboard: through the asynchronous clipboard API, else through a copy command
 * that sets the text in its `copy` event (which needs a recent key press or click).
 * @returns false when neither was allowed (the caller offers a button, whose click allows it)
 */
export async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyCommand(text);
  }
}

/**
 * Puts text made of many pieces on the clipboard as one blob (the pieces are never joined into
 * one string on the page, whose main thread would then copy it over in one go); falls back to
 * {@link writeClipboard}.
 * @returns false when the page may not write the clipboard now
 */
export async function writeClipboardParts(parts: readonly string[]): Promise<boolean> {
  try {
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': new Blob(parts as string[], { type: 'text/plain' }) })]);
    return true;
  } catch {
    return writeClipboard(parts.join(''));
  }
}

/** The copy command with `text` as what it copies; false when the page may not run it now. */
export function copyCommand(text: string): boolean {
  let written = false;
  const onCopy = (event: ClipboardEvent): void => {
    if (!event.clipboardData) return;
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
    written = true;
  };
  document.addEventListener('copy', onCopy, true);
  try {
    // The deprecated command is the one way to write the clipboard without the clipboard
    // permission (which the app's window refuses to every page).
    document.execCommand('copy');
  } finally {
    document.removeEventListener('copy', onCopy, true);
  }
  return written;
}
