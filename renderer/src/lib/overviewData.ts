/**
 * The Overview page's numbers as its charts and their tables show them (shared/contract.ts
 * `Overview`): periods of local days, the rows of each chart, and a chart's table as CSV.
 */
import { timeDay, timeMonday, timeMonth, type CountableTimeInterval } from 'd3-time';
import { encodeTextCell, needsNeutralizing } from '../../../shared/csvCell.ts';
import type { OverviewDay } from '../../../shared/contract.ts';
import { localDay } from '../../../shared/keptFilters.ts';
import { USPS_STATE_CODES } from '../../../shared/usStates.ts';

/** How the time charts group local days. */
export const PERIODS = ['day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** Most bars a time chart shows: the latest ones (the table view lists the same). */
export const MAX_PERIODS: Readonly<Record<Period, number>> = Object.freeze({ day: 60, week: 52, month: 36 });
/** Fewest bars a time chart shows, ending with today's period, so that a first day has its weeks around it. */
export const MIN_PERIODS: Readonly<Record<Period, number>> = Object.freeze({ day: 14, week: 8, month: 6 });

const INTERVAL: Readonly<Record<Period, CountableTimeInterval>> = { day: timeDay, week: timeMonday, month: timeMonth };

/** One bar of a time chart: the local days from `from` to `to` (both included, YYYY-MM-DD) and their count. */
export interface PeriodCount {
  from: string;
  to: string;
  count: number;
}

/** A local day YYYY-MM-DD as the Date of its local midnight. */
function dayDate(day: string): Date {
  const [y = 1970, m = 1, d = 1] = day.split('-').map(Number);
  return new Date(y, m - 1, d);
}

/**
 * Sums counts per local day into periods (Monday weeks, calendar months), with the periods
 * between that hold nothing as zeros, up to the period of `today`: at least {@link MIN_PERIODS}
 * (the earlier ones zeros when the days start later), at most the latest {@link MAX_PERIODS}.
 * @param days counts per local day, any order
 * @param today the person's local day (YYYY-MM-DD)
 * @returns the periods oldest first; empty when no day has a count
 */
export function periodCounts(days: readonly OverviewDay[], period: Period, today: string): PeriodCount[] {
  if (days.length === 0) return [];
  const interval = INTERVAL[period];
  const sums = new Map<string, number>();
  let first = days[0]!.day;
  let last = today;
  for (const { day, count } of days) {
    const start = localDay(interval.floor(dayDate(day)));
    sums.set(start, (sums.get(start) ?? 0) + count);
    if (day < first) first = day;
    if (day > last) last = day;
  }
  const end = interval.floor(dayDate(last));
  const start = new Date(Math.min(interval.floor(dayDate(first)).getTime(), interval.offset(end, 1 - MIN_PERIODS[period]).getTime()));
  const starts = interval.range(start, interval.offset(end, 1));
  return starts.slice(-MAX_PERIODS[period]).map((start) => ({
    from: localDay(start),
    to: localDay(timeDay.offset(interval.offset(start, 1), -1)),
    count: sums.get(localDay(start)) ?? 0,
  }));
}

const dayFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const monthFmt = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric' });

/** A period as its bar and table name it: "Dec 2", "Week of Nov 30", "Dec 2026". */
export function periodName(p: PeriodCount, period: Period): string {
  const start = dayDate(p.from);
  if (period === 'day') return dayFmt.format(start);
  if (period === 'week') return `Week of ${dayFmt.format(start)}`;
  return monthFmt.format(start);
}

/** A period's short axis label: "2", "Nov 30", "Dec" (the table and the tooltip give the full name). */
export function periodTick(p: PeriodCount, period: Period): string {
  const start = dayDate(p.from);
  if (period === 'month') return new Intl.DateTimeFormat(undefined, { month: 'short' }).format(start);
  return dayFmt.format(start);
}

/** USPS code → the state's full name ("IL" → "Illinois"); the code itself when it has none here. */
const STATE_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries(USPS_STATE_CODES)
    .filter(([name]) => name !== 'Virgin Islands')
    .map(([name, code]) => [code, name] as const),
);

/** A USPS code's full name ("IL" → "Illinois"), or "Other / outside the US" for `other`. */
export function stateName(code: string): string {
  return code === 'other' ? 'Other / outside the US' : (STATE_NAMES.get(code) ?? code);
}

/** The numeric FIPS code of each state and territory as us-atlas keys its shapes ("17" → "IL"). */
export const STATE_BY_FIPS: Readonly<Record<string, string>> = Object.freeze({
  '01': 'AL', '02': 'AK', '04': 'AZ', '05': 'AR', '06': 'CA', '08': 'CO', '09': 'CT', '10': 'DE', '11': 'DC', '12': 'FL',
  '13': 'GA', '15': 'HI', '16': 'ID', '17': 'IL', '18': 'IN', '19': 'IA', '20': 'KS', '21': 'KY', '22': 'LA', '23': 'ME',
  '24': 'MD', '25': 'MA', '26': 'MI', '27': 'MN', '28': 'MS', '29': 'MO', '30': 'MT', '31': 'NE', '32': 'NV', '33': 'NH',
  '34': 'NJ', '35': 'NM', '36': 'NY', '37': 'NC', '38': 'ND', '39': 'OH', '40': 'OK', '41': 'OR', '42': 'PA', '44': 'RI',
  '45': 'SC', '46': 'SD', '47': 'TN', '48': 'TX', '49': 'UT', '50': 'VT', '51': 'VA', '53': 'WA', '54': 'WV', '55': 'WI',
  '56': 'WY', '60': 'AS', '66': 'GU', '69': 'MP', '72': 'PR', '78': 'VI',
});

/**
 * The class of a count on the map's scale: 0 for none, then 1–5 by equal fifths of the largest
 * count (the legend names each class's range).
 */
export function mapClass(count: number, max: number): number {
  if (count <= 0 || max <= 0) return 0;
  return Math.min(5, Math.max(1, Math.ceil((count / max) * 5)));
}

/** A chart's table: its column headers and its rows of cells (numbers as numbers). */
export interface ChartTable {
  columns: readonly string[];
  rows: readonly (readonly (string | number)[])[];
}

/**
 * A chart's table as CSV (RFC 4180, comma, CRLF), text cells that a spreadsheet would read as a
 * formula neutralized as the exports do (shared/csvCell.ts).
 */
export function tableCsv(table: ChartTable): string {
  const cell = (v: string | number): string => (typeof v === 'number' ? String(v) : encodeTextCell(v, needsNeutralizing(v)));
  return [table.columns, ...table.rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** `part` of `whole` as a percentage with one decimal ("83.4 %"), or "—" when there is no whole. */
export function share(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '—';
}
