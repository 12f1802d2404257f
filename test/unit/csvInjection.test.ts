/**
 * Formula injection through CSV exports, tried the way an attacker would: hostile cells from the
 * service (synced over HTTP from the sample API into a real cache) exported with each delimiter,
 * then each file read with each of the three separators — a spreadsheet set to another list
 * separator than the file's. No cell of any reading may start a formula:
 *  - csv-parse as an RFC 4180 reader (a record it cannot read with that separator is skipped, as a
 *    strict reader refuses it);
 *  - the way LibreOffice Calc's import splits text (test/security/calcCsvReader.ts): quotes honoured,
 *    but a quoted field ends only at a quote followed by the separator;
 *  - Python's standard `csv` module, which reads on without quoting once a closing quote is
 *    followed by something other than its separator (test/security/hostileCsv.ts has all three).
 * With the file's own separator, csv-parse reads back exactly the neutralised cells.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CsvOptions, ExportRequest } from '../../shared/contract.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { CSV_DELIMITERS, CsvFileWriter, neutralizeFormula, type CsvValue } from '../../electron/main/export/csv.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { readLikeCalc } from '../security/calcCsvReader.ts';
import { formulaCells, HOSTILE_CELLS, readWithPython } from '../security/hostileCsv.ts';

const DELIMITERS = ['comma', 'semicolon', 'tab'] as const;
const HOSTILE = HOSTILE_CELLS;

let dir: string;
let db: Database.Database;
let api: SampleApi;
const hostileContacts: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-csv-injection-'));
  api = await startSampleApi({ contacts: 100, orders: 30, seed: 5 });
  const ids = [...api.dataset.contactIds()];
  HOSTILE.forEach((payload, i) => {
    const id = ids[i * 3] as string;
    hostileContacts.push(id);
    // The payload in a middle column, at the end, in labels, and next to ordinary text.
    api.dataset.updateContact(id, {
      firstName: payload,
      companyName: payload,
      city: `Springfield${payload}`,
      email: payload,
      ContactLabels: [{ id: String(990000 + i), title: payload }],
    });
  });
  const orderIds = [...api.dataset.orderIds()];
  HOSTILE.slice(0, orderIds.length).forEach((payload, i) => {
    const order = [...api.dataset.orders()].find((o) => o.id === orderIds[i])!;
    api.dataset.updateOrder(order.id, { campaign: { ...order.campaign, name: payload, description: payload }, meta: { note: payload } });
  });
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
});

async function exportText(name: string, request: ExportRequest): Promise<string> {
  const path = join(dir, name);
  await runExport(db, request, path, {});
  return readFileSync(path, 'utf8');
}

describe('no cell of any reading of an export starts a formula', () => {
  for (const delimiter of DELIMITERS) {
    for (const kind of ['contacts', 'orders', 'recipients'] as const) {
      it(`${kind}, written with ${delimiter}, read with , ; and TAB`, async () => {
        const options: CsvOptions = { delimiter, bom: kind === 'orders', neutralizeFormulas: true };
        const text = await exportText(`${kind}-${delimiter}.csv`, { kind, query: null, columns: null, options });
        expect(formulaCells(text, options.bom)).toEqual([]);
        // With its own separator the file reads back whole: the hostile cells are there, neutralised.
        const own = parse(text, { delimiter: CSV_DELIMITERS[delimiter], bom: options.bom, record_delimiter: '\r\n' }) as string[][];
        if (kind === 'contacts') {
          const byId = new Map(own.map((r) => [r[0], r]));
          HOSTILE.forEach((payload, i) => {
            const row = byId.get(hostileContacts[i]);
            expect(row?.[1], JSON.stringify(payload)).toBe(neutralizeFormula(payload));
            expect(row?.[7], JSON.stringify(payload)).toBe(neutralizeFormula(`Springfield${payload}`));
          });
        }
      });
    }

    it(`columns that start a record with a number or an empty cell (${delimiter})`, async () => {
      const options: CsvOptions = { delimiter, bom: false, neutralizeFormulas: true };
      const orders = await exportText(`orders-status-first-${delimiter}.csv`, { kind: 'orders', query: null, columns: ['status', 'useType', 'campaignName', 'recipients'], options });
      const contacts = await exportText(`contacts-empty-first-${delimiter}.csv`, { kind: 'contacts', query: null, columns: ['address2', 'firstName', 'isVerified', 'city'], options });
      expect(formulaCells(orders, false)).toEqual([]);
      expect(formulaCells(contacts, false)).toEqual([]);
    });
  }

  it('holds for any cells, written by the file writer, not only for the sample data', () => {
    const alphabet = ['=', '+', '-', '@', '\t', '\r', '\n', '\0', '"', ',', ';', ' ', '\u00a0', '\u3000', '＝', '＋', '－', '＠', "'", 'a', '1'];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (const delimiter of DELIMITERS) {
      const path = join(dir, `random-${delimiter}.csv`);
      const rows: CsvValue[][] = [];
      for (let r = 0; r < 400; r++) {
        const row: CsvValue[] = [];
        for (let c = 0; c < 5; c++) {
          const kind = random(10);
          if (kind === 0) row.push(null);
          else if (kind === 1) row.push(random(1000));
          else {
            let s = '';
            for (let k = random(8); k > 0; k--) s += alphabet[random(alphabet.length)];
            row.push(s);
          }
        }
        rows.push(row);
      }
      const fd = openSync(path, 'w');
      const writer = new CsvFileWriter(fd, { delimiter, bom: false, neutralizeFormulas: true }, 256);
      for (const row of rows) writer.writeRow([...row]);
      writer.flush();
      closeSync(fd);
      expect(formulaCells(readFileSync(path, 'utf8'), false), delimiter).toEqual([]);
    }
  });
});

describe('the Calc-style reader', () => {
  it('reads RFC 4180 text with its own separator as csv-parse does', () => {
    const text = '"a","b ""q"", c","x\r\ny"\r\nplain,2,"3"\r\n';
    expect(readLikeCalc(text, ',')).toEqual([
      ['a', 'b "q", c', 'x\ny'],
      ['plain', '2', '3'],
    ]);
    // and splits a quoted cell when it is read with another separator and the quotes pair up wrongly
    expect(readLikeCalc('"a",""";=1+1;"\r\n', ';')).toEqual([['a","', '=1+1', '']]);
  });
});

describe('the Python reader', () => {
  it('reads RFC 4180 text with its own separator, and splits at a TAB or line break once the quoting is lost', () => {
    expect(readWithPython('"a","b ""q"", c","x\r\ny"\r\n')[',']).toEqual([['a', 'b "q", c', 'x\r\ny']]);
    const lost = readWithPython(`"a","'\t=1+1"\r\n"b","'\r=1+1"\r\n`);
    expect(lost['\t']).toEqual([[`a,"'`, '=1+1"'], [`b,"'`], ['=1+1"']]);
    expect(lost[';']).toEqual([[`a,"'\t=1+1"`], [`b,"'`], ['=1+1"']]);
  });
});
