/**
 * Rows as clipboard text: tab-separated (what spreadsheets paste into cells) or CSV, with a header
 * row. (Writing it to the clipboard is clipboard.ts.)
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
