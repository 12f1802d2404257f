/**
 * Formatting in the user's locale and time zone (the page's `navigator.language` and the OS zone).
 */

const numberFmt = new Intl.NumberFormat(undefined);
const dateTimeFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

/** "Contacts" or "Orders": a resource's name as a title (headings, cards, messages). */
export function resourceTitle(resource: 'contacts' | 'orders'): string {
  return resource === 'contacts' ? 'Contacts' : 'Orders';
}

/** 12345 → "12,345" in the user's locale. */
export function formatCount(n: number): string {
  return numberFmt.format(n);
}

/** "12,345 contacts", "10,000+ contacts" when the count is a lower bound. */
export function formatTotal(count: number, exact: boolean, noun: string, nounPlural = `${noun}s`): string {
  return `${numberFmt.format(count)}${exact ? '' : '+'} ${count === 1 && exact ? noun : nounPlural}`;
}

function parse(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** ISO timestamp → "Mar 4, 2025, 10:42 AM" (locale, local zone); "" for null/invalid. */
export function formatDateTime(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? dateTimeFmt.format(d) : '';
}

/** ISO timestamp or date → "Mar 4, 2025". A bare YYYY-MM-DD is a calendar day, shown as is. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) {
    const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
    return dateFmt.format(new Date(y, m - 1, d));
  }
  const d = parse(iso);
  return d ? dateFmt.format(d) : iso;
}

/** ISO timestamp → its local day, short: "Mar 4" this year, else "Mar 4, 2025"; "" for null/invalid. */
export function formatDay(iso: string | null | undefined): string {
  const d = parse(iso);
  if (!d) return '';
  return d.getFullYear() === new Date().getFullYear() ? dayFmt.format(d) : dateFmt.format(d);
}

/**
 * A short "when": "10:42" today, "Mar 4, 10:42" this year, else the full date and time.
 */
export function formatWhen(iso: string | null | undefined): string {
  const d = parse(iso);
  if (!d) return '';
  const now = new Date();
  if (d.toDateString() === now.toDateString()) return timeFmt.format(d);
  if (d.getFullYear() === now.getFullYear()) return `${dayFmt.format(d)}, ${timeFmt.format(d)}`;
  return dateTimeFmt.format(d);
}

/** Seconds → "0:42", "12:05", "1:02:03". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Milliseconds between two ISO timestamps as a short duration ("3.2 s", "1:05"). */
export function formatElapsed(fromIso: string, toIso: string | null): string {
  const a = parse(fromIso);
  const b = parse(toIso);
  if (!a || !b) return '';
  const ms = b.getTime() - a.getTime();
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms / 1000);
}

/** True for an absolute http(s) URL: the only kind the app loads as an image or opens externally. */
export function isHttpUrl(value: string | null | undefined): value is string {
  if (!value) return false;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Any JSON value as one line of text (tracking codes, meta values). */
export function jsonText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** A size in bytes in the largest unit under 1,000 of it, decimal like the OS's file sizes: "812 B", "4.1 kB", "2.3 MB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'] as const;
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

/** A time in milliseconds since the epoch as ISO 8601 UTC (what the formatters above take). */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
