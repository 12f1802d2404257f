/**
 * The parts of an xlsx package that are not rows (xlsx.ts writes those): its namespaces and styles,
 * the workbook and content-type parts, and the rules for sheet names, column letters, XML text and
 * date serials (ECMA-376 Part 1, SpreadsheetML).
 */

/** Characters a sheet name may have in Excel. */
export const SHEET_NAME_MAX = 31;

/** The SpreadsheetML and relationships namespaces, and the XML declaration every part starts with. */
export const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
export const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Style indexes of styles.xml's cellXfs. */
export const STYLE = { header: 1, day: 2, dateTime: 3, text: 4 } as const;

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
const NEEDS_ESCAPE = /[&<>_\u0000-\u0008\u000b-\u001f\ufffe\uffff]/;
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


/** ` xml:space="preserve"` when the text starts or ends with white space (else XML readers may drop it). */
export function space(text: string): string {
  return isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(text.length - 1)) ? ' xml:space="preserve"' : '';
}

/** XML's white space (and the other Unicode spaces a reader may trim). */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}


/**
 * The package's parts besides the sheets, as ZIP entry name and text: the workbook (its sheets and
 * their autofilters), its relationships, the styles, the package relationships, the content types.
 * @param sheets the sheets' names, in order
 * @param columns how many columns each sheet has
 * @param rows each sheet's rows, header included
 */
export function packageParts(sheets: readonly string[], columns: number, rows: readonly number[]): [name: string, text: string][] {
  return [
    ['xl/workbook.xml', workbookXml(sheets, columns, rows)],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML_DECL}<Relationships xmlns="${NS_PKG_REL}">${sheets
        .map((_, i) => `<Relationship Id="rId${i + 1}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`)
        .join('')}<Relationship Id="rId${sheets.length + 1}" Type="${NS_REL}/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/styles.xml', STYLES_XML],
    ['_rels/.rels', `${XML_DECL}<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`],
    [
      '[Content_Types].xml',
      `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
    ],
  ];
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
