/**
 * The benchmark's result table as it is being filled (test/bench/index.ts and its sections): the
 * rows measured so far, the raw figures behind them, and the rules that say at which scale a row
 * counts as met or missed.
 */
import { fmt, type Metric } from './lib.ts';

/** The rows of the table, in the order they were measured. */
export const metrics: Metric[] = [];
/** Every raw figure, by section (written to `.bench/latest.json`). */
export const raw: Record<string, unknown> = {};
/** Sections that could not run at all (the run then exits with status 1). */
export const errors = { count: 0 };

/** "1M", "100k" or the number itself: how a scale is named in keys and row names. */
export function label(n: number): string {
  return n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/** One line of progress on stderr, with the time of day. */
export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Records that a section could not run: a row saying why, and an error for the exit status. */
export function failed(key: string, name: string, error: unknown): void {
  errors.count += 1;
  const message = (error as Error).message.replace(/\|/g, '/').slice(0, 300);
  log(`${name}: ERROR ${message}`);
  metrics.push({ key, name, value: null, unit: '', pass: null, note: `could not run: ${message}` });
}

/**
 * Where each target is set: the sync rates at 100k and 1M, the sync against floor (c) and the page
 * at 1M, the slow server at 100k contacts, everything else at 1M. Elsewhere (the 10k quick run, the
 * 100k run's queries and export) the row is printed with what it would be, and not counted as met
 * or missed.
 */
const TARGET_SCALES: { pattern: RegExp; scales: readonly string[] }[] = [
  { pattern: /^[^.]+\.sync\.(contacts|orders)\.rate$/, scales: ['100k', '1M'] },
  { pattern: /^slow\.(hidden|distant)$/, scales: ['100k'] },
  { pattern: /^[^.]+\.kept\.reads$/, scales: ['100k'] },
  { pattern: /^[^.]+\.history\.(contacts|orders)\.(time|bytes)$/, scales: ['1M'] },
  // 10,000 labels: the contacts table of the 10k scale, printed whole.
  { pattern: /^[^.]+\.page\.labels$/, scales: ['10k'] },
  { pattern: /^[^.]+\.xlsx\.(time|memory)$/, scales: ['1M'] },
  { pattern: /^[^.]+\.duplicates\.(find|window)$/, scales: ['1M'] },
  { pattern: /^[^.]+\.(sync\.contacts\.physical|sync\.eventLoopDelay|sync\.peakRss|typeahead\.p95|view\.p95|window\.p95|coldOpen|export\.time|export\.memory|export\.eventLoopDelay|page\.[\w.]+)$/, scales: ['1M'] },
];

/** Adds a row; one with a target outside the scale the target names is printed only. */
export function add(m: Metric, scale = m.key.split('.')[0] ?? ''): void {
  const rule = TARGET_SCALES.find((r) => r.pattern.test(m.key));
  if (rule && m.pass !== null && !rule.scales.includes(scale)) {
    const verdict = `the target applies at ${rule.scales.join(' and ')}; here it would ${m.pass ? 'pass' : 'fail'}`;
    metrics.push({ ...m, pass: null, note: m.note ? `${verdict}; ${m.note}` : verdict });
    return;
  }
  metrics.push(m);
}

/** Adds a "value ≥ ratio × floor" row. */
export function addRatio(key: string, name: string, value: number | null, floor: number | null, unit: string, min: number, note?: string, scale?: string): void {
  const ratio = value !== null && floor !== null && floor > 0 ? value / floor : null;
  add({ key, name, value, floor, ratio, unit, target: `ratio ≥ ${min}`, pass: ratio === null ? null : ratio >= min, note }, scale);
}

/** Adds a "value ≤ limit" row. */
export function addMax(key: string, name: string, value: number | null, limit: number, unit: string, note?: string, floor?: number): void {
  add({ key, name, value, unit, target: `≤ ${fmt(limit, unit)}`, pass: value === null || Number.isNaN(value) ? null : value <= limit, note, ...(floor === undefined ? {} : { floor }) });
}
