/**
 * The table's pure decisions, table-tested: row selections as ranges, column layouts, the pane
 * layout that keeps the table usable, clipboard text, and filter options that keep their places.
 */
import { describe, expect, it } from 'vitest';
import { linesText, neutralize, rowsText } from '../../renderer/src/lib/rowText.ts';
import { moveColumn, normaliseLayout, orderedColumns, setHidden, visibleColumns, type ColumnLayout } from '../../renderer/src/lib/columns.ts';
import { stableOrder } from '../../renderer/src/lib/facets.ts';
import { MIN_TABLE_WIDTH, paneLayout } from '../../renderer/src/lib/paneLayout.ts';
import { ALL, clamp, count, has, isOpenEnded, NONE, normalise, span, toggle, union, windows } from '../../renderer/src/lib/selection.ts';

describe('row selections', () => {
  it('spans either way, toggles rows in and out, and merges touching ranges', () => {
    expect(span(5, 2)).toEqual([[2, 6]]);
    const sel = toggle(toggle(span(2, 5), 8), 3);
    expect(sel).toEqual([
      [2, 3],
      [4, 6],
      [8, 9],
    ]);
    expect(toggle(sel, 3)).toEqual([
      [2, 6],
      [8, 9],
    ]);
    expect(normalise([[7, 9], [1, 3], [3, 4], [5, 5]])).toEqual([
      [1, 4],
      [7, 9],
    ]);
    expect(union(span(0, 1), span(2, 3))).toEqual([[0, 4]]);
    expect([has(sel, 2), has(sel, 3), has(sel, 5), has(sel, 6), has(sel, 8)]).toEqual([true, false, true, false, true]);
  });

  it('selects every row of a result whose size is not known yet', () => {
    expect(isOpenEnded(ALL)).toBe(true);
    expect(isOpenEnded(span(0, 9))).toBe(false);
    expect(count(ALL, 287)).toBe(287);
    expect(count(NONE, 287)).toBe(0);
    expect(clamp(ALL, 10)).toEqual([[0, 10]]);
    expect(toggle(ALL, 4)).toEqual([
      [0, 4],
      [5, Infinity],
    ]);
    expect(count(toggle(ALL, 4), 10)).toBe(9);
  });

  it('reads a selection in windows of at most the contract’s size', () => {
    expect(windows([[0, 2500], [3000, 3001]], 10_000, 1000)).toEqual([
      { offset: 0, limit: 1000 },
      { offset: 1000, limit: 1000 },
      { offset: 2000, limit: 500 },
      { offset: 3000, limit: 1 },
    ]);
    expect(windows(ALL, 1500, 1000)).toEqual([
      { offset: 0, limit: 1000 },
      { offset: 1000, limit: 500 },
    ]);
    expect(windows(span(5, 9), 3, 1000)).toEqual([]);
  });
});

describe('column layouts', () => {
  const columns = ['name', 'company', 'email', 'phone'].map((key) => ({ key }));
  const keys = (layout: ColumnLayout) => visibleColumns(columns, layout).map((c) => c.key);

  it('keep the first column first and shown, whatever was saved', () => {
    const saved = normaliseLayout({ order: ['email', 'name', 'email', 7], hidden: ['name', 'phone'], widths: { email: 5000, phone: 'x', zip: 10 } });
    expect(saved).toEqual({ order: ['email', 'name'], hidden: ['name', 'phone'], widths: { email: 800, zip: 48 } });
    expect(keys(saved)).toEqual(['name', 'email', 'company']);
    expect(normaliseLayout('damaged')).toEqual({ order: [], hidden: [], widths: {} });
  });

  it('move a column among the others, never before the first', () => {
    const base = normaliseLayout({});
    expect(orderedColumns(columns, moveColumn(columns, base, 'phone', 1)).map((c) => c.key)).toEqual(['name', 'phone', 'company', 'email']);
    expect(orderedColumns(columns, moveColumn(columns, base, 'company', 0)).map((c) => c.key)).toEqual(['name', 'company', 'email', 'phone']);
    expect(moveColumn(columns, base, 'name', 3)).toBe(base);
    expect(keys(setHidden(columns, base, 'email', true))).toEqual(['name', 'company', 'phone']);
    expect(setHidden(columns, base, 'name', true)).toBe(base);
  });
});

describe('pane layout', () => {
  const at = (width: number, extra: Partial<Parameters<typeof paneLayout>[0]> = {}) =>
    paneLayout({ width, filtersOpen: true, filterWidth: 216, detailOpen: true, detailWidth: 340, ...extra });

  it.each([
    // content width (window less the sidebar): where the filters and the detail go
    [1160, { filters: 'docked', detail: 'docked' }],
    [824, { filters: 'folded', detail: 'docked' }], // 1024 px window, sidebar open
    [848, { filters: 'folded', detail: 'docked' }], // 900 px window, sidebar collapsed
    [700, { filters: 'folded', detail: 'overlay' }],
  ] as const)('at %i px the table keeps %s', (width, expected) => {
    const layout = at(width);
    expect(layout).toEqual(expected);
    const table = width - (layout.filters === 'docked' ? 216 : 0) - (layout.detail === 'docked' ? 340 : 0);
    expect(table).toBeGreaterThanOrEqual(layout.detail === 'overlay' ? 0 : MIN_TABLE_WIDTH);
  });

  it('docks the filters beside the table when no detail is open, folds them when there is no room', () => {
    expect(at(700, { detailOpen: false })).toEqual({ filters: 'docked', detail: 'none' });
    expect(at(600, { detailOpen: false })).toEqual({ filters: 'folded', detail: 'none' });
    expect(at(1400, { filtersOpen: false })).toEqual({ filters: 'hidden', detail: 'docked' });
  });
});

describe('clipboard text', () => {
  it('quotes every cell and neutralises formulas like the export', () => {
    const options = { format: 'tsv', neutralizeFormulas: true } as const;
    expect(linesText([['a', 'b\tc', 'say "hi"', 'two\nlines']], options)).toBe('"a"\t"b\tc"\t"say ""hi"""\t"two\nlines"\r\n');
    expect(linesText([['=1+1', ' +cmd', '-5', 'a=b', 'a\t=1']], options)).toBe(`"'=1+1"\t"' +cmd"\t"'-5"\t"a=b"\t"a\t'=1"\r\n`);
    expect(linesText([['=1+1']], { ...options, neutralizeFormulas: false })).toBe('"=1+1"\r\n');
    expect(rowsText(['=Header', 'B'], [['1,2', ';x']], { format: 'csv', neutralizeFormulas: true })).toBe(`"=Header","B"\r\n"1,2","';x"\r\n`);
    expect(neutralize('\uFF1Dcmd')).toBe("'\uFF1Dcmd");
  });
});

describe('filter options while ticking', () => {
  const opts = (...values: string[]) => values.map((value, i) => ({ value, label: value, count: 10 - i }));

  it('keep their places once one is ticked, and take the cache’s order when none is', () => {
    const first = stableOrder(undefined, opts('VIP', 'Donor', 'Press'), []);
    expect(first.order).toEqual(['VIP', 'Donor', 'Press']);
    // Ticking "Donor" changes the counts and the cache's order: the places stay.
    const ticked = stableOrder(first.order, opts('Donor', 'Press', 'VIP', 'New'), ['Donor']);
    expect(ticked.options.map((o) => o.value)).toEqual(['VIP', 'Donor', 'Press', 'New']);
    expect(stableOrder(ticked.order, opts('Press', 'VIP'), []).order).toEqual(['Press', 'VIP']);
  });
});
