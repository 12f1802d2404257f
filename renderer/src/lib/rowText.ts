/**
 * Rows as clipboard text: tab-separated (what spreadsheets paste into cells) or CSV, with a header
 * row. Every cell is written as the CSV export writes it (`shared/csvCell.ts`): always quoted, and
 * neutralised by the same rule, so a copy read with another separator is as safe as an export.
 * (Writing it to the clipboard is clipboard.ts.)
 */
import { encodeTextCell, neutralizeFormula } from '../../../shared/csvCell.ts';

/** Format of copied rows. */
export type RowTextFormat = 'tsv' | 'csv';

/** Options of {@link rowsText}. */
export interface RowTextOptions {
  format: RowTextFormat;
  /** Neutralise cells a spreadsheet would run as a formula, as the export does (the export's setting). */
  neutralizeFormulas: boolean;
}

/**
 * One cell made safe for a spreadsheet, before quoting: the export's neutralisation
 * (`neutralizeFormula` of `shared/csvCell.ts`).
 */
export const neutralize: (text: string) => string = neutralizeFormula;

/**
 * Lines of text, one per row, each ending in CRLF (RFC 4180; spreadsheets read it on every
 * platform). Cells are separated by TAB (`tsv`) or `,` (`csv`), each quoted with quotes doubled.
 * @param rows each row's cell texts, in column order
 */
export function linesText(rows: readonly (readonly string[])[], options: RowTextOptions): string {
  const sep = options.format === 'tsv' ? '\t' : ',';
  let out = '';
  for (const cells of rows) out += `${cells.map((c) => encodeTextCell(c, options.neutralizeFormulas)).join(sep)}\r\n`;
  return out;
}

/** The header line (never neutralised: the app's own column names) plus the rows' lines. */
export function rowsText(header: readonly string[], rows: readonly (readonly string[])[], options: RowTextOptions): string {
  return linesText([header], { ...options, neutralizeFormulas: false }) + linesText(rows, options);
}
