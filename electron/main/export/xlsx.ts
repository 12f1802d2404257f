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
 * The sheet XML is built as text in chunks of about {@link DEFAULT_XLSX_CHUNK_CHARS} and deflated
 * into the ZIP entry (zip.ts) as each chunk fills.
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import { ZipFileWriter, type ZipEntryWriter } from './zip.ts';
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
  /** Characters of sheet XML gathered before they are deflated. */
  chunkChars?: number;
}

/** Rows of one Excel worksheet (Excel's "Specifications and limits"). */
export const EXCEL_MAX_ROWS = 1_048_576;
/** Characters a sheet name may have in Excel. */
export const SHEET_NAME_MAX = 31;
/** Default size of the text deflated at once. */
export const DEFAULT_XLSX_CHUNK_CHARS = 1 << 19;
/** Rows read before the column widths are fixed. */
const WIDTH_SAMPLE_ROWS = 100;

const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Style indexes of styles.xml's cellXfs. */
const STYLE = { header: 1, day: 2, dateTime: 3, text: 4 } as const;

const STYLES_XML =
  `${XML_DECL}<styleSheet xmlns="${NS_MAIN}">` +
  '<numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/><numFmt numFmtId="165" formatCode="yyyy-mm-dd hh:mm"/></numFmts>' +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="49" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" applyNumberFormat="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>';

/**
 * A sheet name Excel accepts for `name`: its forbidden characters `\ / ? * [ ] :` replaced by `-`,
 * control characters dropped, no apostrophe at either end, at most {@link SHEET_NAME_MAX}
 * characters (whole code points), never empty ("Sheet") and never Excel's reserved "History".
 * @param suffix appended after shortening the name (" (2)" for a continuation sheet)
 */
export function sheetNameOf(name: string, suffix = ''): string {
  let base = name
    .replace(/[\\/?*[\]:]/g, '-')
    .replace(/\p{Cc}/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^'+|'+$/g, '')
    .trim();
  if (base === '') base = 'Sheet';
  if (base.toLowerCase() === 'history') base = 'History list';
  const room = SHEET_NAME_MAX - suffix.length;
  const points = [...base];
  if (points.length > room) base = points.slice(0, room).join('').trimEnd().replace(/'+$/, '');
  return base + suffix;
}

/** The column letters of the 0-based index `i` (0 → A, 26 → AA). */
export function columnLetters(i: number): string {
  let n = i + 1;
  let out = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

// Control characters are what this escapes.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[&<>\u0000-\u0008\u000b-\u000d\u000e-\u001f\ufffe\uffff]|_x[0-9A-Fa-f]{4}_/;
// eslint-disable-next-line no-control-regex
const ESCAPE_ALL = /[&<>\u0000-\u0008\u000b-\u000d\u000e-\u001f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', _: '_x005F_' };

/**
 * Text as the content of a `<t>` element: XML's three specials as entities, and what XML cannot
 * hold (control characters; CR, which XML readers fold into LF) in SpreadsheetML's `_xHHHH_` form, which readers turn back into the
 * character; an underscore that would read as such an escape is itself escaped (`_x005F_`).
 */
export function xmlText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPE_ALL, (ch) => ENTITIES[ch] ?? `_x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`);
}

const DAY_MS = 86_400_000;
/** Days from Excel's epoch (1899-12-30 in the 1900 system) to 1970-01-01. */
const UNIX_EPOCH_SERIAL = 25_569;
const DAY_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/**
 * A date cell's serial and style for `text`: a day alone (`YYYY-MM-DD`) is that calendar day; a
 * timestamp (ISO 8601, `Z` or an offset) is shown in the local time zone of the process.
 * @returns null when `text` is no date Excel can show (before 1900 or unparseable): written as text
 */
export function excelDate(text: string): { serial: number; style: number } | null {
  const day = DAY_ONLY.exec(text);
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const at = new Date(Date.UTC(year, month - 1, date));
    // 2026-02-30 is no day: Date would roll it over into March.
    if (at.getUTCMonth() !== month - 1 || at.getUTCDate() !== date) return null;
    const serial = at.getTime() / DAY_MS + UNIX_EPOCH_SERIAL;
    return serial >= 61 ? { serial, style: STYLE.day } : null;
  }
  if (!DATE_TIME.test(text)) return null;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return null;
  const local = ms - new Date(ms).getTimezoneOffset() * 60_000;
  const serial = local / DAY_MS + UNIX_EPOCH_SERIAL;
  return serial >= 61 ? { serial: Math.round(serial * DAY_MS) / DAY_MS, style: STYLE.dateTime } : null;
}

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
 * row, then {@link finish}. Synchronous like the CSV writer.
 */
export class XlsxFileWriter {
  readonly #zip: ZipFileWriter;
  readonly #columns: readonly XlsxColumn[];
  readonly #letters: string[];
  readonly #rowsPerSheet: number;
  readonly #chunkChars: number;
  readonly #firstName: string;
  readonly #sheets: string[] = [];
  #entry: ZipEntryWriter | null = null;
  #text = '';
  /** Rows of the open sheet, its header included. */
  #row = 0;
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
    this.#rowsPerSheet = Math.max(2, Math.min(EXCEL_MAX_ROWS, options.rowsPerSheet ?? EXCEL_MAX_ROWS));
    this.#chunkChars = Math.max(1024, options.chunkChars ?? DEFAULT_XLSX_CHUNK_CHARS);
    this.#firstName = sheetNameOf(options.sheetName);
  }

  /** Bytes of the file written so far. */
  get bytesWritten(): number {
    return this.#zip.bytesWritten;
  }

  /** Adds one data row (`values` in column order; may be kept until the column widths are known). */
  writeRow(values: CsvValue[]): void {
    if (this.#sample) {
      this.#sample.push(values);
      if (this.#sample.length >= WIDTH_SAMPLE_ROWS) this.#releaseSample();
      return;
    }
    if (this.#entry === null || this.#row >= this.#rowsPerSheet) this.#nextSheet();
    this.#row++;
    this.#text += this.#rowXml(values, this.#row);
    if (this.#text.length >= this.#chunkChars) this.#flushText();
  }

  /**
   * Ends the last sheet and writes the rest of the package (workbook, styles, relationships,
   * content types, the ZIP directory).
   * @returns the sheets' names
   */
  finish(): XlsxSummary {
    if (this.#sample) this.#releaseSample();
    if (this.#entry === null) this.#nextSheet();
    this.#endSheet();
    const sheets = this.#sheets;
    const zip = this.#zip;
    zip.addEntry('xl/workbook.xml', workbookXml(sheets, this.#columns.length, this.#lastRows));
    zip.addEntry(
      'xl/_rels/workbook.xml.rels',
      `${XML_DECL}<Relationships xmlns="${NS_PKG_REL}">${sheets
        .map((_, i) => `<Relationship Id="rId${i + 1}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`)
        .join('')}<Relationship Id="rId${sheets.length + 1}" Type="${NS_REL}/styles" Target="styles.xml"/></Relationships>`,
    );
    zip.addEntry('xl/styles.xml', STYLES_XML);
    zip.addEntry('_rels/.rels', `${XML_DECL}<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
    zip.addEntry(
      '[Content_Types].xml',
      `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
    );
    zip.finish();
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

  #nextSheet(): void {
    if (this.#entry) this.#endSheet();
    const n = this.#sheets.length + 1;
    const name = n === 1 ? this.#firstName : sheetNameOf(this.#firstName, ` (${n})`);
    this.#sheets.push(name);
    this.#entry = this.#zip.entry(`xl/worksheets/sheet${n}.xml`);
    const cols = this.#widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"${this.#columns[i]!.type === 'text' ? ` style="${STYLE.text}"` : ''}/>`).join('');
    this.#text =
      `${XML_DECL}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
      '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
      `<sheetFormatPr defaultRowHeight="15"/>${cols ? `<cols>${cols}</cols>` : ''}<sheetData>` +
      `<row r="1">${this.#columns.map((c, i) => `<c r="${this.#letters[i]}1" t="inlineStr" s="${STYLE.header}"><is><t${space(c.header)}>${xmlText(c.header)}</t></is></c>`).join('')}</row>`;
    this.#row = 1;
  }

  #endSheet(): void {
    const entry = this.#entry;
    if (!entry) return;
    const last = this.#letters[this.#letters.length - 1];
    this.#text += `</sheetData><autoFilter ref="A1:${last}${this.#row}"/></worksheet>`;
    this.#flushText();
    entry.end();
    this.#lastRows.push(this.#row);
    this.#entry = null;
  }

  #flushText(): void {
    if (this.#text === '') return;
    this.#entry!.write(Buffer.from(this.#text, 'utf8'));
    this.#text = '';
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

/** ` xml:space="preserve"` when the text starts or ends with white space (else XML readers may drop it). */
function space(text: string): string {
  return /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
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

/** workbook.xml: the sheets, and each one's autofilter range as Excel names it. */
function workbookXml(sheets: readonly string[], columns: number, rows: readonly number[]): string {
  const last = columnLetters(columns - 1);
  const quoted = (name: string): string => `'${xmlText(name).replace(/'/g, "''").replace(/"/g, '&quot;')}'`;
  return (
    `${XML_DECL}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews><sheets>` +
    sheets.map((name, i) => `<sheet name="${xmlText(name).replace(/"/g, '&quot;')}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
    '</sheets><definedNames>' +
    sheets.map((name, i) => `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">${quoted(name)}!$A$1:$${last}$${rows[i]}</definedName>`).join('') +
    '</definedNames></workbook>'
  );
}
