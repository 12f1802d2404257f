/**
 * Formula injection through copied rows: the hostile cells of the export tests, copied as TSV and as
 * CSV the way the tables copy them (renderer/src/lib/rowText.ts), then each copy read with `,` `;`
 * and TAB by the same readers the exports face (test/security/hostileCsv.ts: csv-parse, Calc's
 * splitting, Python's `csv`). No cell of any reading may start a formula, a copy read with its own
 * separator gives back the neutralised cells, and a copy is byte for byte what the export writes
 * for the same cells and separator.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { encodeCsv, neutralizeFormula } from '../../electron/main/export/csv.ts';
import { linesText, rowsText, type RowTextFormat } from '../../renderer/src/lib/rowText.ts';
import { formulaCells, HOSTILE_CELLS } from '../security/hostileCsv.ts';

const HEADER = ['Name', 'Company', 'City', 'Email'];
/** Each hostile cell first, in the middle, after ordinary text and last in a row. */
const ROWS = HOSTILE_CELLS.map((payload) => [payload, 'Harmless Name', `Springfield${payload}`, payload]);
const FORMATS: { format: RowTextFormat; separator: string; delimiter: 'tab' | 'comma' }[] = [
  { format: 'tsv', separator: '\t', delimiter: 'tab' },
  { format: 'csv', separator: ',', delimiter: 'comma' },
];

describe('no cell of any reading of copied rows starts a formula', () => {
  for (const { format, separator, delimiter } of FORMATS) {
    it(`rows copied as ${format}, read with , ; and TAB`, () => {
      const text = rowsText(HEADER, ROWS, { format, neutralizeFormulas: true });
      expect(formulaCells(text, false)).toEqual([]);
      const own = parse(text, { delimiter: separator, record_delimiter: '\r\n' }) as string[][];
      expect(own).toEqual([HEADER, ...ROWS.map((row) => row.map(neutralizeFormula))]);
    });

    it(`rows copied as ${format} are encoded as the export encodes them`, () => {
      const options = { format, neutralizeFormulas: true };
      expect(linesText(ROWS, options)).toBe(encodeCsv(null, ROWS, { delimiter, bom: false, neutralizeFormulas: true }));
      expect(linesText(ROWS, { ...options, neutralizeFormulas: false })).toBe(encodeCsv(null, ROWS, { delimiter, bom: false, neutralizeFormulas: false }));
    });
  }
});
