/**
 * How the command line writes: results to stdout (`--json` output is exactly one JSON document,
 * with every character a terminal would act on escaped), messages and progress to stderr;
 * human-readable tables with aligned columns.
 */

/**
 * Control (Cc) and format (Cf) characters other than the line break: a terminal acts on them (escape
 * and OSC sequences retitle windows, write the clipboard or repaint earlier output; bidi overrides
 * reorder text), so text from the service never reaches it with them.
 */
const UNPRINTABLE = /(?!\n)[\p{Cc}\p{Cf}]/gu;

/** `text` with every control and format character but the line break shown as U+FFFD. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, '\uFFFD');
}

/** Writes human-readable `text` (made {@link printable}) and a line break. */
export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${printable(text)}\n`);
}

/**
 * Characters a terminal could act on, in JSON text: control (Cc) and format (Cf) characters, the
 * line and paragraph separators U+2028/U+2029, but not the line break that lays out the document.
 */
const JSON_UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029](?<!\n)/gu;

/** What {@link terminalSafeJson} writes for one character: its UTF-16 code units as `\uXXXX` escapes (an astral character becomes its surrogate pair), or a space for the whitespace TAB and CR. */
function unicodeEscape(char: string): string {
  if (char === '\t' || char === '\r') return ' ';
  let out = '';
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`;
  return out;
}

/**
 * JSON text made safe for a terminal without changing its value: every control and format
 * character and U+2028/U+2029 is written as a `\uXXXX` escape (astral ones as their surrogate
 * pair, `\uD834\uDD73`), so none reaches the terminal, and `JSON.parse` of the result equals
 * `JSON.parse(json)`. A TAB or CR can stand raw in valid JSON only as whitespace between tokens,
 * so it becomes a space; the line break stays. Every `--json` output goes through this function.
 * @param json a JSON text (from `JSON.stringify` or a cached record's raw JSON)
 * @returns the same JSON value as text with none of those characters but the line break
 */
export function terminalSafeJson(json: string): string {
  return json.replace(JSON_UNSAFE, unicodeEscape);
}

/** Writes `value` as JSON ({@link terminalSafeJson}) and a line break. */
export function writeJson(stream: NodeJS.WritableStream, value: unknown, indent?: number): void {
  stream.write(`${terminalSafeJson(JSON.stringify(value, null, indent))}\n`);
}

/** A number with thousands separators, the same on every machine (`3,000`). */
export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

/** Prints rows as aligned columns (cells cut at 32 characters, line breaks shown as spaces). */
export function printTable(out: NodeJS.WritableStream, header: string[], rows: string[][]): void {
  const clean = (s: string) => {
    const flat = printable(s.replace(/[\r\n\t]+/g, ' '));
    return flat.length > 32 ? `${flat.slice(0, 31)}…` : flat;
  };
  const cells = [header, ...rows.map((r) => r.map(clean))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  for (const r of cells) writeLine(out, r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - [...c].length))).join('  ').trimEnd());
}

/**
 * Writes records' JSON texts as one JSON array, as they arrive, in chunks of about 1 MiB, so a large
 * `--limit` never holds every record in memory. Each record text goes through
 * {@link terminalSafeJson}.
 */
export class JsonArrayWriter {
  readonly #out: NodeJS.WritableStream;
  #chunk = '[';
  #first = true;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  /** Appends records (each a JSON text). */
  add(raws: readonly string[]): void {
    for (const raw of raws) {
      this.#chunk += `${this.#first ? '\n' : ',\n'}${terminalSafeJson(raw)}`;
      this.#first = false;
      if (this.#chunk.length >= 1 << 20) {
        this.#out.write(this.#chunk);
        this.#chunk = '';
      }
    }
  }

  /** Closes the array and the line. */
  end(): void {
    this.#out.write(`${this.#chunk}${this.#first ? ']' : '\n]'}\n`);
    this.#chunk = '';
  }
}

/** The cell text of a JSON value: '' for null and absent, strings as they are, the rest as JSON. */
function cell(v: unknown): string {
  return v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** Prints records of the service (§2.2 contacts, §2.3 orders) as a table, and their number to stderr. */
export function printRecordTable(out: NodeJS.WritableStream, err: NodeJS.WritableStream, kind: 'contacts' | 'orders', raws: readonly string[]): void {
  const records = raws.map((r) => JSON.parse(r) as Record<string, unknown>);
  if (kind === 'contacts') {
    printTable(
      out,
      ['ID', 'NAME', 'COMPANY', 'EMAIL', 'CITY', 'STATE', 'LABELS'],
      records.map((c) => [cell(c.id), cell(c.fullName), cell(c.companyName), cell(c.email), cell(c.city), cell(c.state), Array.isArray(c.ContactLabels) ? c.ContactLabels.map((l: { title?: unknown }) => cell(l.title)).join(', ') : '']),
    );
  } else {
    const sub = (v: unknown, key: string) => (v && typeof v === 'object' ? cell((v as Record<string, unknown>)[key]) : '');
    printTable(
      out,
      ['ID', 'STATUS', 'CAMPAIGN', 'PRODUCT', 'TEMPLATE', 'RECIPIENTS', 'DELIVERED'],
      records.map((o) => {
        const contacts = Array.isArray(o.contacts) ? (o.contacts as { isDelivered?: unknown }[]) : [];
        return [cell(o.id), cell(o.status), sub(o.campaign, 'name'), sub(o.product, 'name'), sub(o.template, 'title'), String(contacts.length), String(contacts.filter((c) => c.isDelivered === true).length)];
      }),
    );
  }
  writeLine(err, `${fmt(records.length)} ${kind} shown.`);
}
