/**
 * Remembered UI settings in localStorage (last view, column widths, sort, filters, export options).
 * Settings that belong to a profile are keyed by profile id. Damaged entries are ignored.
 */

const PREFIX = 'letterdesk:';

/** Reads a JSON value; `fallback` when missing, unreadable or not an object of the expected kind. */
export function loadSetting<T>(key: string, fallback: T): T {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    if (raw === null) return fallback;
    const value = JSON.parse(raw) as unknown;
    if (typeof fallback === 'object' && fallback !== null && (typeof value !== 'object' || value === null)) return fallback;
    if (typeof fallback !== 'object' && typeof value !== typeof fallback) return fallback;
    return value as T;
  } catch {
    return fallback;
  }
}

/** Writes a JSON value; storage errors (quota, private mode) are ignored — settings are a nicety. */
export function saveSetting(key: string, value: unknown): void {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // Not worth bothering the user about.
  }
}

/** The key of a per-profile setting. */
export function profileKey(profileId: string | null, name: string): string {
  return `profile:${profileId ?? 'none'}:${name}`;
}
