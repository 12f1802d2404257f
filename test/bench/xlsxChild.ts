/**
 * Benchmark child: an xlsx workbook of all contacts of the scale's synced cache (export/write.ts
 * with `format: 'xlsx'`, on this thread as the command line runs it), against its floor: the same
 * sheet XML, taken out of the workbook, written once through `node:zlib` deflate at the workbook's
 * level into a file. Peak memory growth is the process's RSS, sampled while the export runs, over
 * the RSS before it. Usage: `node test/bench/xlsxChild.ts '<json XlsxChildInput>'`; prints one
 * `BENCH_RESULT {…}` line.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw } from 'node:zlib';
import type { ExportRequest } from '../../shared/contract.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { ZIP_DEFLATE_LEVEL } from '../../electron/main/export/zip.ts';
import { report } from './lib.ts';

/** Input of the child. */
export interface XlsxChildInput {
  /** A synced cache (only read). */
  cacheFile: string;
  /** Where the workbook, the sheet XML and the floor's output go (removed at the end). */
  dir: string;
  runs: number;
}

/** What the child prints. */
export interface XlsxChildResult {
  rows: number;
  sheets: string[];
  /** Each export's wall time, ms. */
  ms: number[];
  /** Each floor's wall time, ms. */
  floorMs: number[];
  /** The largest RSS growth over the RSS before the export, of all runs, bytes. */
  growthBytes: number;
  baseRssBytes: number;
  workbookBytes: number;
  sheetXmlBytes: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as XlsxChildInput;
const book = `${input.dir}/bench-contacts.xlsx`;
const xml = `${input.dir}/bench-sheet1.xml`;
const floorOut = `${input.dir}/bench-sheet1.deflate`;
const request: ExportRequest = { kind: 'contacts', query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true }, format: 'xlsx', sheetName: 'Contacts' };

const db = openCache(input.cacheFile);
const ms: number[] = [];
const floorMs: number[] = [];
let growthBytes = 0;
let baseRssBytes = 0;
let rows = 0;
let sheets: string[] = [];
try {
  for (let i = 0; i < input.runs; i++) {
    globalThis.gc?.();
    const base = process.memoryUsage.rss();
    baseRssBytes = Math.max(baseRssBytes, base);
    let peak = base;
    // The export lets the event loop run every few tens of milliseconds, so the sampler runs too.
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    const started = performance.now();
    const outcome = await runExport(db, request, book);
    ms.push(performance.now() - started);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    growthBytes = Math.max(growthBytes, peak - base);
    rows = outcome.rows;
    sheets = outcome.sheets ?? [];
  }
  // The sheet's XML as the workbook holds it, read by Python's zipfile (not timed).
  execFileSync('/usr/bin/python3', ['-c', 'import shutil,sys,zipfile; shutil.copyfileobj(zipfile.ZipFile(sys.argv[1]).open("xl/worksheets/sheet1.xml"), open(sys.argv[2], "wb"), 1 << 20)', book, xml]);
  for (let i = 0; i < input.runs; i++) {
    const started = performance.now();
    await pipeline(createReadStream(xml, { highWaterMark: 1 << 20 }), createDeflateRaw({ level: ZIP_DEFLATE_LEVEL }), createWriteStream(floorOut));
    floorMs.push(performance.now() - started);
  }
  report({ rows, sheets, ms, floorMs, growthBytes, baseRssBytes, workbookBytes: statSync(book).size, sheetXmlBytes: statSync(xml).size } satisfies XlsxChildResult);
} finally {
  db.close();
  for (const f of [book, xml, floorOut]) rmSync(f, { force: true });
}
