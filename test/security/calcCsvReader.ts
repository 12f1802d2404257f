/**
 * A CSV reader that splits text the way LibreOffice Calc's text import does, to check exports
 * against a spreadsheet that honours quotes but is set to another separator than the file's.
 * Ported from LibreOffice core, sc/source/ui/docshell/impex.cxx (ReadCsvLine,
 * ScanNextFieldFromString, lcl_ScanString in its escaping mode, lcl_isFieldEndQuote,
 * EmbeddedNullTreatment), without its separator detection and length limits:
 *
 *  - a record is a physical line, joined with the next ones while a quoted field is open (quotes
 *    counted as the field scanner sees them);
 *  - a field that starts with a quote (blanks before it skipped) ends at a quote followed by blanks
 *    and then the separator or the end of the record; a doubled quote inside it is one quote, any
 *    other quote is content; whatever follows up to the separator is appended;
 *  - any other field runs to the next separator, quotes included;
 *  - NUL characters are removed before a record is split.
 */

type QuoteState = 'fieldStart' | 'first' | 'second' | 'fieldEnd' | 'dontKnow';

const BLANK = ' ';

/** Is the quote at `i` one that ends a quoted field? (lcl_isFieldEndQuote) */
function isFieldEndQuote(s: string, i: number, sep: string): boolean {
  let p = i;
  while (s[p + 1] === BLANK) p++;
  return p + 1 >= s.length || s[p + 1] === sep;
}

/** lcl_isEscapedOrFieldEndQuote: `quotes` counted so far (odd = inside a quoted field). */
function quoteKind(quotes: number, s: string, i: number, sep: string): QuoteState {
  if (quotes % 2 === 0) return s[i - 1] === '"' ? 'second' : 'fieldStart';
  if (s[i + 1] === '"') return 'first';
  return isFieldEndQuote(s, i, sep) ? 'fieldEnd' : 'dontKnow';
}

/** Splits `text` into records as ReadCsvLine does (lines joined with "\n" while a quote is open). */
function records(text: string, sep: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.at(-1) === '') lines.pop();
  const out: string[] = [];
  let next = 0;
  while (next < lines.length) {
    let record = lines[next++]!;
    let state: QuoteState = 'fieldEnd';
    let fieldStart = true;
    let quotes = 0;
    let offset = 0;
    for (;;) {
      for (let i = offset; i < record.length; i++) {
        const c = record[i]!;
        if (quotes) {
          if (c === '"') {
            if (fieldStart) {
              quotes++;
              fieldStart = false;
              state = 'fieldStart';
            } else if (state !== 'fieldEnd') {
              state = quoteKind(quotes, record, i, sep);
              if (state !== 'dontKnow') quotes++;
            }
          } else if (state === 'fieldEnd') {
            fieldStart = fieldStart ? c === BLANK || c === sep : c === sep;
          }
        } else if (c === '"' && fieldStart) {
          quotes = 1;
          state = 'fieldStart';
          fieldStart = false;
        } else if (state === 'fieldEnd') {
          fieldStart = fieldStart ? c === BLANK || c === sep : c === sep;
        }
      }
      if (quotes % 2 === 0 || next >= lines.length) break;
      offset = record.length;
      record += `\n${lines[next++]!}`;
    }
    out.push(record);
  }
  return out;
}

/** The content of a quoted field starting at `start` (on its opening quote), and where it ended. */
function scanQuoted(s: string, start: number, sep: string): { text: string; end: number } {
  let p = start + 1;
  let text = '';
  while (p < s.length) {
    if (s[p] === '"') {
      if (s[p + 1] === '"') {
        text += '"';
        p += 2;
        continue;
      }
      if (isFieldEndQuote(s, p, sep)) return { text, end: p + 1 };
      text += '"';
      p++;
      continue;
    }
    text += s[p++];
  }
  return { text, end: p };
}

/** One record's fields (ScanNextFieldFromString, repeated while characters remain). */
function fields(record: string, sep: string): string[] {
  const out: string[] = [];
  let p = 0;
  while (p < record.length) {
    let b = p;
    while (record[b] === BLANK) b++;
    if (record[b] === '"') p = b;
    let field: string;
    if (record[p] === '"') {
      const quoted = scanQuoted(record, p, sep);
      p = quoted.end;
      const rest = p;
      while (p < record.length && record[p] !== sep) p++;
      field = quoted.text + record.slice(rest, p);
    } else {
      const from = p;
      while (p < record.length && record[p] !== sep) p++;
      field = record.slice(from, p);
    }
    out.push(field);
    if (p < record.length) p++;
  }
  return out;
}

/**
 * Reads `text` as Calc's text import does with the separator `sep` and `"` as the text delimiter.
 * @returns the cells of each record
 */
export function readLikeCalc(text: string, sep: string): string[][] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  return records(body, sep).map((record) => fields(record.replaceAll('\0', ''), sep));
}
