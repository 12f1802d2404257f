/**
 * The Overview's chart data (renderer/src/lib/overviewData.ts): local days summed into days, Monday
 * weeks and calendar months, with the empty periods between them as zeros; a chart's table as
 * CSV; the map's classes. Checked on hand-made days and, for any days, against the invariants a
 * person reads off the chart (every day in exactly one bar, bars back to back, nothing lost).
 */
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { MAP_HEIGHT, MAP_WIDTH, stateOutlines } from '../../renderer/src/lib/usMap.ts';
import { MAX_PERIODS, MIN_PERIODS, PERIODS, STATE_BY_FIPS, mapClass, periodCounts, stateName, tableCsv, type Period } from '../../renderer/src/lib/overviewData.ts';

const day = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const dateOf = (s: string): Date => {
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d);
};
const nextDay = (s: string): string => {
  const d = dateOf(s);
  d.setDate(d.getDate() + 1);
  return day(d);
};

describe('periodCounts', () => {
  it('sums days into Monday weeks, with a week that saw nothing as zero, up to today’s week', () => {
    const days = [
      { day: '2026-11-30', count: 2 }, // a Monday
      { day: '2026-12-06', count: 3 }, // the Sunday of the same week
      { day: '2026-12-21', count: 5 },
    ];
    const weeks = periodCounts(days, 'week', '2026-12-29');
    // At least eight weeks: the three before the first day's week are zeros.
    expect(weeks.slice(0, 3)).toEqual([
      { from: '2026-11-09', to: '2026-11-15', count: 0 },
      { from: '2026-11-16', to: '2026-11-22', count: 0 },
      { from: '2026-11-23', to: '2026-11-29', count: 0 },
    ]);
    expect(weeks.slice(3)).toEqual([
      { from: '2026-11-30', to: '2026-12-06', count: 5 },
      { from: '2026-12-07', to: '2026-12-13', count: 0 },
      { from: '2026-12-14', to: '2026-12-20', count: 0 },
      { from: '2026-12-21', to: '2026-12-27', count: 5 },
      { from: '2026-12-28', to: '2027-01-03', count: 0 },
    ]);
  });

  it('sums days into calendar months and keeps days as they are', () => {
    const days = [
      { day: '2026-01-31', count: 1 },
      { day: '2026-03-01', count: 4 },
      { day: '2026-03-31', count: 1 },
    ];
    const months = periodCounts(days, 'month', '2026-03-15');
    expect(months.map((m) => m.from).slice(0, 3)).toEqual(['2025-10-01', '2025-11-01', '2025-12-01']);
    expect(months.slice(3)).toEqual([
      { from: '2026-01-01', to: '2026-01-31', count: 1 },
      { from: '2026-02-01', to: '2026-02-28', count: 0 },
      { from: '2026-03-01', to: '2026-03-31', count: 5 },
    ]);
    expect(periodCounts([{ day: '2026-03-01', count: 4 }], 'day', '2026-03-02').map((p) => p.count)).toEqual([...Array<number>(12).fill(0), 4, 0]);
    expect(periodCounts([], 'day', '2026-03-02')).toEqual([]);
  });

  it('for any days: each day in exactly one bar, bars back to back, the latest ones kept, nothing else lost', () => {
    const dayArb = fc.date({ min: new Date(2024, 0, 1), max: new Date(2027, 11, 31), noInvalidDate: true }).map(day);
    fc.assert(
      fc.property(fc.array(fc.record({ day: dayArb, count: fc.integer({ min: 1, max: 1000 }) }), { minLength: 1, maxLength: 40 }), fc.constantFrom(...PERIODS), (days, period: Period) => {
        const today = days.reduce((max, d) => (d.day > max ? d.day : max), days[0]!.day);
        const bars = periodCounts(days, period, today);
        expect(bars.length).toBeLessThanOrEqual(MAX_PERIODS[period]);
        expect(bars.length).toBeGreaterThanOrEqual(MIN_PERIODS[period]);
        for (let i = 1; i < bars.length; i++) expect(bars[i]!.from).toBe(nextDay(bars[i - 1]!.to));
        for (const b of bars) {
          const from = dateOf(b.from);
          if (period === 'week') expect(from.getDay()).toBe(1);
          if (period === 'month') expect(from.getDate()).toBe(1);
          if (period === 'day') expect(b.to).toBe(b.from);
        }
        // Every day inside the bars is counted in the one bar that holds it; the days before the
        // first bar are the ones cut off by the limit.
        const first = bars[0]!.from;
        const inside = days.filter((d) => d.day >= first);
        for (const b of bars) expect(b.count).toBe(inside.filter((d) => d.day >= b.from && d.day <= b.to).reduce((s, d) => s + d.count, 0));
        expect(bars.at(-1)!.to >= today).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a chart’s table as CSV', () => {
  it('reads back with a CSV parser cell for cell, formulas neutralized', () => {
    const table = { columns: ['Campaign', 'Delivered', 'Share'], rows: [['Spring "open house", 2026', 12, '80.0 %'], ['=HYPERLINK("x")', 0, '—']] };
    const rows = parse(tableCsv(table)) as string[][];
    expect(rows).toEqual([
      ['Campaign', 'Delivered', 'Share'],
      ['Spring "open house", 2026', '12', '80.0 %'],
      [`'=HYPERLINK("x")`, '0', '—'],
    ]);
  });
});

describe('the map', () => {
  it('draws the 50 states and DC once each, inside its box; the territories are listed, not drawn', () => {
    const outlines = stateOutlines();
    expect(outlines.map((o) => o.code).sort()).toEqual(Object.values(STATE_BY_FIPS).filter((c) => !['AS', 'GU', 'MP', 'PR', 'VI'].includes(c)).sort());
    for (const { code, d } of outlines) {
      const numbers = (d.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
      expect(numbers.length, code).toBeGreaterThan(6);
      // Each state's middle point lies in the box (Alaska's westernmost islands reach past its edge).
      const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
      const x = median(numbers.filter((_, i) => i % 2 === 0));
      const y = median(numbers.filter((_, i) => i % 2 === 1));
      expect(x > 0 && x < MAP_WIDTH && y > 0 && y < MAP_HEIGHT, `${code} at ${x}, ${y}`).toBe(true);
    }
    expect(stateOutlines()).toBe(outlines);
  });

  it('puts a count in one of five classes of equal width, none in class 0', () => {
    expect([0, 1, 20, 21, 99, 100].map((n) => mapClass(n, 100))).toEqual([0, 1, 1, 2, 5, 5]);
    expect(mapClass(3, 0)).toBe(0);
    expect(stateName('IL')).toBe('Illinois');
    expect(stateName('other')).toBe('Other / outside the US');
  });
});
