/**
 * Calendar days relative to a sample dataset's day (`SampleDataset.asOf`), for tests that filter
 * the sample API by date: its data is laid out relative to its clock, so a test's dates are too.
 */

const DAY_MS = 86_400_000;

/** The UTC day `n` days before `asOf` (0 = that day), as YYYY-MM-DD. */
export function dayBefore(asOf: Date, n: number): string {
  return new Date(asOf.getTime() - n * DAY_MS).toISOString().slice(0, 10);
}

/** The same day written DD-MM-YYYY (the other style the service's documentation shows). */
export function dmy(ymd: string): string {
  const [y, m, d] = ymd.split('-');
  return `${d}-${m}-${y}`;
}

/** The first and last day (YYYY-MM-DD) of the calendar month `n` months before `asOf`'s month. */
export function monthBefore(asOf: Date, n: number): { start: string; end: string } {
  const first = Date.UTC(asOf.getUTCFullYear(), asOf.getUTCMonth() - n, 1);
  const last = Date.UTC(asOf.getUTCFullYear(), asOf.getUTCMonth() - n + 1, 1) - DAY_MS;
  return { start: new Date(first).toISOString().slice(0, 10), end: new Date(last).toISOString().slice(0, 10) };
}

/** True when the ISO timestamp `iso` falls on a UTC day from `start` to `end` (YYYY-MM-DD, inclusive). */
export function onDays(iso: string | null, start: string, end: string): boolean {
  return iso !== null && iso.slice(0, 10) >= start && iso.slice(0, 10) <= end;
}
