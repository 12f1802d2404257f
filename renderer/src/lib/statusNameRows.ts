/**
 * The profile form's table of status names (shared/statusCodes.ts): the profile's names as rows a
 * person edits, and those rows back as the names `saveProfile` takes, with what is wrong with each
 * row in words. The rules are the contract's schema's (statusNames.ts), checked here first so the
 * form can point at the row.
 */
import { MAX_STATUS_NAME_LENGTH, MAX_STATUS_NAMES, STATUS_CODE_KEY, STATUS_COLOURS, type StatusColour, type StatusNames } from '../../../shared/statusCodes.ts';

/** One row of the table as typed. `key` identifies the row while it is edited. */
export interface StatusNameRow {
  key: number;
  code: string;
  name: string;
  colour: StatusColour;
}

/** What is wrong with a row's code or name. */
export interface StatusRowProblem {
  code?: string;
  name?: string;
}

/** The rows read back: the names to save, or the problems by row key (and one for the whole table). */
export type StatusRowsResult = { ok: true; names: StatusNames } | { ok: false; problems: Record<number, StatusRowProblem>; tableProblem: string | null };

let nextKey = 1;

/** A new empty row (the next colour of the palette after the last row's). */
export function emptyRow(after?: StatusNameRow): StatusNameRow {
  const at = after ? STATUS_COLOURS.indexOf(after.colour) : -1;
  return { key: nextKey++, code: '', name: '', colour: STATUS_COLOURS[(at + 1) % STATUS_COLOURS.length] ?? 'grey' };
}

/** A profile's names as rows, by code (numerically). */
export function rowsFromNames(names: StatusNames | undefined): StatusNameRow[] {
  return Object.entries(names ?? {})
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, n]) => ({ key: nextKey++, code, name: n.name, colour: n.colour }));
}

/**
 * The rows as the names to save. A row left empty (no code, no name) is ignored; a code must be a
 * whole number written plainly ("3", "-1"), named once; a name has 1–60 characters once trimmed.
 */
export function namesFromRows(rows: readonly StatusNameRow[]): StatusRowsResult {
  const names: StatusNames = {};
  const problems: Record<number, StatusRowProblem> = {};
  const seen = new Set<string>();
  let count = 0;
  for (const row of rows) {
    const code = row.code.trim();
    const name = row.name.trim();
    if (code === '' && name === '') continue;
    const problem: StatusRowProblem = {};
    if (code === '') problem.code = 'Enter the status code this name is for.';
    else if (!STATUS_CODE_KEY.test(code)) problem.code = 'A status code is a whole number such as 3 or -1.';
    else if (seen.has(code)) problem.code = `Status ${code} is named twice.`;
    if (name === '') problem.name = 'Enter a name.';
    else if (name.length > MAX_STATUS_NAME_LENGTH) problem.name = `At most ${MAX_STATUS_NAME_LENGTH} characters.`;
    if (problem.code || problem.name) problems[row.key] = problem;
    else names[code] = { name, colour: STATUS_COLOURS.includes(row.colour) ? row.colour : 'grey' };
    seen.add(code);
    count++;
  }
  const tableProblem = count > MAX_STATUS_NAMES ? `At most ${MAX_STATUS_NAMES} status codes can be named.` : null;
  if (Object.keys(problems).length > 0 || tableProblem) return { ok: false, problems, tableProblem };
  return { ok: true, names };
}

/**
 * Whether the rows say something other than `saved` (a profile's names): a name, colour or code
 * added, changed or removed, or a row that cannot be read as it stands. Empty rows say nothing.
 */
export function rowsChanged(rows: readonly StatusNameRow[], saved: StatusNames | undefined): boolean {
  const read = namesFromRows(rows);
  if (!read.ok) return true;
  const before = saved ?? {};
  const codes = Object.keys(read.names);
  if (codes.length !== Object.keys(before).length) return true;
  return codes.some((code) => before[code]?.name !== read.names[code]?.name || before[code]?.colour !== read.names[code]?.colour);
}
