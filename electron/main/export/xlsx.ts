/**
 * The xlsx encoder of the exports (ECMA-376 SpreadsheetML, strict enough for Excel, LibreOffice,
 * Google Sheets and openpyxl): one workbook streamed into an open file with constant memory.
 *
 * What the workbook holds:
 *  - one worksheet per 1,048,576 rows (Excel's limit, the header row included); each continuation
 *    sheet repeats the header and is named after the first with " (2)", " (3)" …;
 *  - cells typed by their export column ({@link XlsxColumn}): `text` as inline strings with the
 *    text number format `@` (ZIP codes, phone numbers and ids keep their leading zeros, and text
 *    starting with `=` stays text: an inline string is never a formula); `number` as numbers;
 *    `boolean` as boolean cells; `date` as date serials in the time zone of the process (the
 *    user's), a day alone (`2026-03-01`) as that calendar day. A value that does not fit its
 *    column's type (a text in a number column of a record kept as invalid) is written as text, so
 *    nothing is lost;
 *  - the header row in bold, frozen, with an autofilter over the sheet; column widths from the
 *    header and the first rows;
 *  - no shared-strings table: every string is inline, so nothing grows with the rows.
 *
 * Each row's XML goes straight into a chunk buffer of {@link DEFAULT_XLSX_CHUNK_BYTES}; each full
 * chunk is handed to the ZIP entry (zip.ts), which compresses it on the thread pool while the next
 * rows are read and encoded. The caller awaits {@link XlsxFileWriter.drain} when
 * {@link XlsxFileWriter.backpressure} says enough is in flight, which bounds memory.
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import { ZipFileWriter, type ZipEntryWriter } from './zip.ts';
import { NS_MAIN, NS_REL, STYLE, XML_DECL, columnLetters, excelDate, packageParts, sheetNameOf, space, xmlText } from './xlsxParts.ts';

export { SHEET_NAME_MAX, columnLetters, excelDate, sheetNameOf, xmlText } from './xlsxParts.ts';
import type { CsvValue } from './csv.ts';

/** How a column's cells are written. */
export type XlsxCellType = 'text' | 'number' | 'boolean' | 'date';

/** One column of the sheet. */
export interface XlsxColumn {
  header: string;
  type: XlsxCellType;
}

/** Options of {@link XlsxFileWriter}. */
export interface XlsxOptions {
  /** Name of the first sheet, as the user calls the view; made valid by {@link sheetNameOf}. */
  sheetName: string;
  /** Rows a sheet holds, header included (default {@link EXCEL_MAX_ROWS}; tests use fewer). */
  rowsPerSheet?: number;
  /** Bytes of sheet XML gathered before they are compressed. */
  chunkBytes?: number;
}

/** Rows of one Excel worksheet (Excel's "Specifications and limits"). */
export const EXCEL_MAX_ROWS = 1_048_576;
/** Default size of the sheet XML compressed at once (bytes). */
export const DEFAULT_XLSX_CHUNK_BYTES = 1 << 20;
/** Rows read before the column widths are fixed. */
const WIDTH_SAMPLE_ROWS = 100;

const utf8 = new TextDecoder('utf-8');

/** The text of a cell that is written as text: bytes read as UTF-8, anything else as its string. */
function asText(value: Exclude<CsvValue, null | undefined>): string {
  return typeof value === 'string' ? value : value instanceof Uint8Array ? utf8.decode(value) : String(value);
}

/** What a finished workbook holds. */
export interface XlsxSummary {
  /** The sheets' names, in order. */
  sheets: string[];
}

/**
 * Writes one workbook to `fd` (open for writing at offset 0, not owned): {@link writeRow} per data
 * row (awaiting {@link drain} whenever {@link backpressure} is set), then {@link finish}.
 */
export class XlsxFileWriter {
  readonly #zip: ZipFileWriter;
  readonly #columns: readonly XlsxColumn[];
  readonly #letters: string[];
  readonly #rowsPerSheet: number;
  readonly #chunkBytes: number;
  readonly #firstName: string;
  readonly #sheets: string[] = [];
  #entry: ZipEntryWriter | null = null;
  /** The chunk being filled, and how much of it is. */
  #buf: Buffer;
  #used = 0;
  /** Rows of the open sheet, its header included. */
  #row = 0;
  /** Chunk buffers the compressor is done with, to fill again. */
  readonly #spare: Buffer[] = [];
  /** A row past the open sheet's last, written once {@link drain} has started the next sheet. */
  #waiting: CsvValue[] | null = null;
  /** The first rows, held until the column widths are known. */
  #sample: CsvValue[][] | null = [];
  #widths: number[] = [];

  /**
   * @param fd a file descriptor open for writing, at the start of an empty file
   * @param columns the columns, in order (their headers make each sheet's first row)
   * @throws LetterdeskError VALIDATION when there is no column
   */
  constructor(fd: number, columns: readonly XlsxColumn[], options: XlsxOptions) {
    if (columns.length === 0) throw new LetterdeskError('VALIDATION', 'Choose at least one column to export.');
    this.#zip = new ZipFileWriter(fd);
    this.#columns = columns;
    this.#letters = columns.map((_, i) => columnLetters(i));
    // The first sheet holds at least the rows kept for the widths, which are written at once.
    this.#rowsPerSheet = Math.max(WIDTH_SAMPLE_ROWS + 2, Math.min(EXCEL_MAX_ROWS, options.rowsPerSheet ?? EXCEL_MAX_ROWS));
    this.#chunkBytes = Math.max(1024, options.chunkBytes ?? DEFAULT_XLSX_CHUNK_BYTES);
    this.#buf = Buffer.allocUnsafe(this.#chunkBytes);
    this.#firstName = sheetNameOf(options.sheetName);
  }

  /** Bytes of the file written so far. */
  get bytesWritten(): number {
    return this.#zip.bytesWritten;
  }

  /** Await {@link drain} before the next row: enough of the sheet waits to be compressed, or the sheet is full. */
  get backpressure(): boolean {
    return this.#waiting !== null || (this.#entry?.backpressure ?? false);
  }

  /**
   * Lets the compressor catch up; when the sheet is full, ends it and starts the next with the row
   * that did not fit.
   * @throws the compressor's or the file system's error; LetterdeskError VALIDATION past 4 GiB
   */
  async drain(): Promise<void> {
    const waiting = this.#waiting;
    if (waiting) {
      await this.#endSheet();
      this.#waiting = null;
      this.writeRow(waiting);
    }
    await this.#entry?.drain();
  }

  /**
   * Adds one data row (`values` in column order; may be kept until the column widths are known).
   * @throws Error when called while a full sheet waits for {@link drain} (a programming error)
   */
  writeRow(values: CsvValue[]): void {
    if (this.#waiting) throw new Error('xlsx: await drain() before the next row');
    if (this.#sample) {
      this.#sample.push(values);
      if (this.#sample.length >= WIDTH_SAMPLE_ROWS) this.#releaseSample();
      return;
    }
    if (this.#entry === null) this.#startSheet();
    if (this.#row >= this.#rowsPerSheet) {
      this.#waiting = values;
      return;
    }
    this.#row++;
    this.#put(this.#rowXml(values, this.#row));
  }

  /** Stops writing after a failure: the compressor writes nothing more to the file. Never throws. */
  abort(): void {
    this.#zip.abort();
  }

  /**
   * Ends the last sheet and writes the rest of the package (workbook, styles, relationships,
   * content types, the ZIP directory).
   * @returns the sheets' names, once the file holds the whole workbook
   * @throws the compressor's or the file system's error; LetterdeskError VALIDATION past 4 GiB
   */
  async finish(): Promise<XlsxSummary> {
    if (this.#sample) this.#releaseSample();
    if (this.#waiting) await this.drain();
    if (this.#entry === null) this.#startSheet();
    await this.#endSheet();
    const sheets = this.#sheets;
    for (const [name, text] of packageParts(sheets, this.#columns.length, this.#lastRows)) this.#zip.addEntry(name, text);
    this.#zip.finish();
    return { sheets: [...sheets] };
  }

  /** Rows of each ended sheet, header included (for the autofilters' defined names). */
  readonly #lastRows: number[] = [];

  #releaseSample(): void {
    const sample = this.#sample ?? [];
    this.#sample = null;
    this.#widths = this.#columns.map((c, i) => {
      // Room for the header and its filter button, then the widest of the first rows.
      let width = [...c.header].length + 4;
      for (const row of sample) width = Math.max(width, cellWidth(c.type, row[i]));
      return Math.min(60, Math.max(8, width));
    });
    for (const row of sample) this.writeRow(row);
  }

  #startSheet(): void {
    const n = this.#sheets.length + 1;
    const name = n === 1 ? this.#firstName : sheetNameOf(this.#firstName, ` (${n})`);
    this.#sheets.push(name);
    this.#entry = this.#zip.entry(`xl/worksheets/sheet${n}.xml`);
    const cols = this.#widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"${this.#columns[i]!.type === 'text' ? ` style="${STYLE.text}"` : ''}/>`).join('');
    this.#put(
      `${XML_DECL}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
        '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
        `<sheetFormatPr defaultRowHeight="15"/>${cols ? `<cols>${cols}</cols>` : ''}<sheetData>` +
        `<row r="1">${this.#columns.map((c, i) => `<c r="${this.#letters[i]}1" t="inlineStr" s="${STYLE.header}"><is><t${space(c.header)}>${xmlText(c.header)}</t></is></c>`).join('')}</row>`,
    );
    this.#row = 1;
  }

  async #endSheet(): Promise<void> {
    const entry = this.#entry;
    if (!entry) return;
    const last = this.#letters[this.#letters.length - 1];
    this.#put(`</sheetData><autoFilter ref="A1:${last}${this.#row}"/></worksheet>`);
    this.#flushChunk();
    this.#entry = null;
    await entry.end();
    this.#lastRows.push(this.#row);
  }

  #flushChunk(): void {
    if (this.#used === 0) return;
    // The compressor reads the chunk later: the next rows go into a spare one, and this one is a
    // spare again once compressed.
    const buf = this.#buf;
    this.#entry!.write(buf.subarray(0, this.#used), () => {
      if (buf.length === this.#chunkBytes) this.#spare.push(buf);
    });
    this.#buf = this.#spare.pop() ?? Buffer.allocUnsafe(this.#chunkBytes);
    this.#used = 0;
  }

  /** Adds XML text to the chunk, handing the chunk on first when the text might not fit. */
  #put(xml: string): void {
    const most = xml.length * 3;
    if (this.#used + most > this.#buf.length) {
      this.#flushChunk();
      if (most > this.#buf.length) this.#buf = Buffer.allocUnsafe(most);
    }
    this.#used += this.#buf.write(xml, this.#used, 'utf8');
  }

  #rowXml(values: CsvValue[], r: number): string {
    let xml = `<row r="${r}">`;
    const columns = this.#columns;
    for (let i = 0; i < columns.length; i++) {
      const v = values[i];
      if (v === null || v === undefined || v === '') continue;
      const ref = `${this.#letters[i]}${r}`;
      const type = columns[i]!.type;
      if (type === 'number' && (typeof v === 'number' ? Number.isFinite(v) : typeof v === 'bigint')) {
        xml += `<c r="${ref}"><v>${String(v)}</v></c>`;
        continue;
      }
      if (type === 'boolean' && (v === 'true' || v === 'false' || typeof v === 'boolean' || v === 0 || v === 1)) {
        xml += `<c r="${ref}" t="b"><v>${v === 'true' || v === true || v === 1 ? 1 : 0}</v></c>`;
        continue;
      }
      const text = asText(v);
      if (type === 'date') {
        const date = excelDate(text);
        if (date) {
          xml += `<c r="${ref}" s="${date.style}"><v>${date.serial}</v></c>`;
          continue;
        }
      }
      xml += `<c r="${ref}" t="inlineStr" s="${STYLE.text}"><is><t${space(text)}>${xmlText(text)}</t></is></c>`;
    }
    return xml + '</row>';
  }
}

/** About how many characters a cell shows, for the column width. */
function cellWidth(type: XlsxCellType, value: CsvValue): number {
  if (value === null || value === undefined) return 0;
  if (type === 'date' && typeof value === 'string') {
    const d = excelDate(value);
    if (d) return d.style === STYLE.day ? 12 : 18;
  }
  if (type === 'boolean') return 7;
  return Math.min(80, [...asText(value)].length + 2);
}
