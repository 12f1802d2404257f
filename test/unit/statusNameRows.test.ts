/**
 * The profile form's table of status names (renderer/src/lib/statusNameRows.ts): a profile's names
 * become rows and come back unchanged; what the table lets through is exactly what the contract's
 * schema (`saveProfile`) accepts, and each refused row says why.
 */
import { describe, expect, it } from 'vitest';
import { saveProfileInputSchema } from '../../shared/contract.ts';
import type { StatusNames } from '../../shared/statusNames.ts';
import { emptyRow, namesFromRows, rowsChanged, rowsFromNames, type StatusNameRow } from '../../renderer/src/lib/statusNameRows.ts';

const NAMES: StatusNames = { '10': { name: 'Mailed', colour: 'green' }, '-1': { name: 'Cancelled', colour: 'red' }, '2': { name: 'Printed', colour: 'blue' } };
const profile = { name: 'Acme', environment: 'demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, pageSize: 100 } as const;
const row = (code: string, name: string, colour: StatusNameRow['colour'] = 'grey'): StatusNameRow => ({ ...emptyRow(), code, name, colour });

describe('status name rows', () => {
  it('lists a profile’s names by code, numerically, and gives them back unchanged', () => {
    const rows = rowsFromNames(NAMES);
    expect(rows.map((r) => r.code)).toEqual(['-1', '2', '10']);
    expect(new Set(rows.map((r) => r.key)).size).toBe(3);
    expect(namesFromRows(rows)).toEqual({ ok: true, names: NAMES });
    expect(rowsFromNames(undefined)).toEqual([]);
  });

  it('trims, skips empty rows, and what it lets through the contract accepts', () => {
    const result = namesFromRows([row(' 3 ', '  Returned ', 'orange'), row('', ''), row('0', 'Draft')]);
    expect(result).toEqual({ ok: true, names: { '3': { name: 'Returned', colour: 'orange' }, '0': { name: 'Draft', colour: 'grey' } } });
    if (!result.ok) return;
    expect(saveProfileInputSchema.safeParse({ ...profile, statusNames: result.names }).success).toBe(true);
    expect(namesFromRows([])).toEqual({ ok: true, names: {} });
  });

  it('refuses bad codes, duplicates and empty or long names, row by row, as the contract would', () => {
    const rows = [row('1.5', 'A'), row('01', 'B'), row('x', 'C'), row('4', ''), row('', 'Orphan'), row('5', 'E'), row('5', 'F'), row('6', 'x'.repeat(61))];
    const result = namesFromRows(rows);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const [bad15, bad01, badX, noName, noCode, , dup, long] = rows.map((r) => result.problems[r.key]);
    for (const p of [bad15, bad01, badX]) expect(p?.code).toMatch(/whole number/);
    expect(noName).toEqual({ name: 'Enter a name.' });
    expect(noCode?.code).toMatch(/Enter the status code/);
    expect(dup?.code).toBe('Status 5 is named twice.');
    expect(long?.name).toMatch(/At most 60/);
    expect(result.problems[rows[5]!.key]).toBeUndefined();
    // Each refused row alone is refused by the contract's schema too.
    for (const r of [rows[0]!, rows[1]!, rows[2]!, rows[3]!, rows[7]!]) {
      expect(saveProfileInputSchema.safeParse({ ...profile, statusNames: { [r.code.trim()]: { name: r.name.trim(), colour: r.colour } } }).success).toBe(false);
    }
  });

  it('refuses more than 100 codes as a whole', () => {
    const result = namesFromRows(Array.from({ length: 101 }, (_, i) => row(String(i), `S${i}`)));
    expect(result).toMatchObject({ ok: false, problems: {}, tableProblem: 'At most 100 status codes can be named.' });
  });

  it('gives a new row the next colour of the palette', () => {
    expect(emptyRow(row('1', 'A', 'blue')).colour).toBe('teal');
    expect(emptyRow(row('1', 'A', 'purple')).colour).toBe('grey');
    expect(emptyRow().colour).toBe('grey');
  });

  it('tells rows that change nothing from rows that do', () => {
    const rows = rowsFromNames(NAMES);
    expect(rowsChanged(rows, NAMES)).toBe(false);
    expect(rowsChanged([...rows, emptyRow()], NAMES)).toBe(false);
    expect(rowsChanged([], undefined)).toBe(false);
    expect(rowsChanged([row('0', 'Draft')], undefined)).toBe(true);
    expect(rowsChanged(rows.slice(1), NAMES)).toBe(true);
    expect(rowsChanged(rows.map((r) => (r.code === '2' ? { ...r, name: 'Sent' } : r)), NAMES)).toBe(true);
    expect(rowsChanged(rows.map((r) => (r.code === '2' ? { ...r, colour: 'red' } : r)), NAMES)).toBe(true);
    expect(rowsChanged(rows.map((r) => (r.code === '2' ? { ...r, code: '3' } : r)), NAMES)).toBe(true);
    // A row that cannot be saved as it stands is a change: saving it says what is wrong.
    expect(rowsChanged([...rows, row('7', '')], NAMES)).toBe(true);
  });
});
