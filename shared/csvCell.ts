/**
 * How one text cell is written for a spreadsheet: the formula-injection neutralisation (OWASP
 * "CSV Injection") and the RFC 4180 quoting that the CSV export (`electron/main/export/csv.ts`)
 * and copying rows (`renderer/src/lib/rowText.ts`) share, so a copy is as safe as an export.
 *
 * The neutralisation rule, exactly:
 *  - a cell gets `'` in front when, after any leading whitespace, its first character is
 *     - a formula starter: `=`, `+`, `-`, `@`, their fullwidth forms `＝` `＋` `－` `＠`, or NUL
 *       (U+0000), or its leading whitespace holds TAB (U+0009) or CR (U+000D), which spreadsheets
 *       strip or split on before looking for a formula; or
 *     - a double quote, `,` or `;`: characters that can end the quoted cell early in a reader set
 *       to another separator (LibreOffice ends a quoted field at a quote followed by blanks and
 *       its separator), letting the rest of the cell start a cell of its own;
 *  - inside the cell, a TAB, CR or LF followed (after blanks other than those three) by one of the
 *    same characters gets `'` right after it: a reader that stops honouring the quotes (Python's
 *    `csv` once a closing quote is followed by something other than its separator) splits the
 *    cell there, at a TAB as a separator or at a line break as a new record, and the rest must not
 *    start a formula either.
 * The rest of the text is unchanged.
 */

/**
 * Characters that make a text cell a formula in common spreadsheets when it starts with one after
 * any leading whitespace (OWASP, plus the fullwidth forms some spreadsheets accept): = + - @ ＝ ＋ － ＠
 * TAB CR NUL.
 */
export const FORMULA_TRIGGER_CHARS = ['=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', '\t', '\r', '\0'] as const;

/** Characters that can end a quoted cell early in a reader set to another separator: `"` `,` `;` (TAB is a trigger already). */
export const CELL_BREAKING_CHARS = ['"', ',', ';'] as const;

/** Characters inside a cell where a reader that lost the quoting starts a new cell or record: TAB, CR, LF. */
export const CELL_SPLITTING_CHARS = ['\t', '\r', '\n'] as const;

// `\s*` backtracks, so a TAB or CR anywhere in the leading whitespace matches too.
const FORMULA_START = /^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\t\r\0]/;
const NEUTRALIZE = /^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\t\r\0",;]/;
// A TAB, CR or LF whose following text (blanks other than those skipped) starts like NEUTRALIZE.
const INNER_SPLIT = /[\t\r\n](?=[^\S\t\r\n]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\0",;])/g;
const HAS_SPLIT = /[\t\r\n]/;

/** True for the first character of a text cell that can never need a leading `'` (no regex needed). */
function plainStart(c: number): boolean {
  // Printable ASCII other than space " + , - ; = @ (the triggers, and what can break a cell).
  return c > 32 && c < 127 && c !== 34 && c !== 43 && c !== 44 && c !== 45 && c !== 59 && c !== 61 && c !== 64;
}

/**
 * True when a text cell would be read as a formula by a spreadsheet: after any leading whitespace
 * its first character is one of {@link FORMULA_TRIGGER_CHARS} (so a TAB or CR in the leading
 * whitespace counts too).
 */
export function startsLikeFormula(text: string): boolean {
  return text.length > 0 && !plainStart(text.charCodeAt(0)) && FORMULA_START.test(text);
}

/**
 * True when a text cell gets a leading `'`: it {@link startsLikeFormula}, or after any leading
 * whitespace it starts with one of {@link CELL_BREAKING_CHARS}. (A cell can still change without
 * it, at a TAB, CR or LF inside: see {@link neutralizeFormula}.)
 */
export function needsNeutralizing(text: string): boolean {
  return text.length > 0 && !plainStart(text.charCodeAt(0)) && NEUTRALIZE.test(text);
}

/** True when the cell holds a TAB, CR or LF, where {@link neutralizeFormula} may put a `'` inside it. */
export function hasCellSplit(text: string): boolean {
  return HAS_SPLIT.test(text);
}

/**
 * Neutralises one text cell by the rule of this module: `'` in front when {@link needsNeutralizing},
 * and `'` after each TAB, CR or LF that a formula starter or cell-breaking character follows.
 * @param text the cell text (not yet RFC 4180 quoted)
 * @returns the text to write; `text` itself when nothing needs neutralising
 */
export function neutralizeFormula(text: string): string {
  const inner = hasCellSplit(text) ? text.replace(INNER_SPLIT, "$&'") : text;
  return needsNeutralizing(text) ? `'${inner}` : inner;
}

/**
 * One text cell as written to CSV or copied text: neutralised when asked, then always quoted, with
 * double quotes inside doubled (RFC 4180 §2.5–2.7). A reader that honours quotes then sees the same
 * cell whatever separator it is set to.
 * @param text the cell text
 * @param neutralize apply {@link neutralizeFormula} first
 */
export function encodeTextCell(text: string, neutralize: boolean): string {
  const value = neutralize ? neutralizeFormula(text) : text;
  return `"${value.replaceAll('"', '""')}"`;
}
