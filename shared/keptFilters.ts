/**
 * Kept filters: the service's own filters (§4.1, §4.2) whose answers the cache keeps, one
 * membership per value, so that they work offline like the local filters. This module names which
 * parameters can be kept, the values each one is kept for by default, the date presets, and turns
 * a kept value into the service query that reads its membership.
 *
 * A list parameter is kept per item (`addressStatus` Failed), a date parameter per preset
 * (`lastMailedDate` last 30 days, computed from the day of the read so it rolls forward), a
 * boolean per answer (`isReturnAddress` yes / no).
 *
 * Pure module: other shared/ files only, no zod.
 */
import { LAST_MAILED_STATUS_EXAMPLES, addDays, type DateRange } from './serviceParams.ts';
import { ADDRESS_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES, VOCABULARIES, vocabularyName, type Vocabulary } from './vocabularies.ts';
import type { Resource } from './serviceRecords.ts';

/** Date presets, as the CLI writes them: the last 7, 30 or 90 days (today included), or this calendar year so far. */
export const DATE_PRESETS = ['7d', '30d', '90d', 'this-year'] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

/** How a preset is shown ("Last 30 days"). */
export const DATE_PRESET_NAMES: Readonly<Record<DatePreset, string>> = Object.freeze({
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  'this-year': 'This year',
});

/** The two answers of a boolean parameter kept as a filter. */
export const BOOLEAN_VALUES = ['yes', 'no'] as const;

/** What a kept parameter's values are: items of a list, date presets, or yes / no. */
export type KeptParamKind = 'list' | 'date' | 'boolean';

/** One parameter that can be kept. */
export interface KeptParamSpec {
  resource: Resource;
  /** The spec's parameter name. */
  param: string;
  kind: KeptParamKind;
  /** The filter pane's heading for it, in the mailer's words. */
  title: string;
  /** The values the service's documentation names (list), the presets (date) or yes / no. */
  known: readonly string[];
  /** Values kept when nothing else was chosen. */
  defaults: readonly string[];
  /** Whether a person may keep values outside `known` (typed by hand). */
  open: boolean;
  /** The CLI option that filters by it. */
  option: string;
  /** Where the spec defines the parameter. */
  section: '§4.1' | '§4.2';
}

const spec = (s: KeptParamSpec): KeptParamSpec => Object.freeze({ ...s, known: Object.freeze([...s.known]), defaults: Object.freeze([...s.defaults]) });

/** Every parameter that can be kept, per resource, in the order the filter pane lists them. */
export const KEPT_PARAMS: Readonly<Record<Resource, readonly KeptParamSpec[]>> = Object.freeze({
  contacts: Object.freeze([
    spec({ resource: 'contacts', param: 'addressStatus', kind: 'list', title: 'Address status', known: ADDRESS_STATUSES, defaults: ADDRESS_STATUSES, open: false, option: '--address-status', section: '§4.1' }),
    spec({ resource: 'contacts', param: 'lastMailedStatus', kind: 'list', title: 'Last mailed', known: LAST_MAILED_STATUS_EXAMPLES, defaults: [], open: true, option: '--last-mailed-status', section: '§4.1' }),
    spec({ resource: 'contacts', param: 'lastMailedDate', kind: 'date', title: 'Last mailed date', known: DATE_PRESETS, defaults: ['30d'], open: false, option: '--last-mailed-date', section: '§4.1' }),
    spec({ resource: 'contacts', param: 'isReturnAddress', kind: 'boolean', title: 'Return address', known: BOOLEAN_VALUES, defaults: [], open: false, option: '--return-address', section: '§4.1' }),
  ]),
  orders: Object.freeze([
    spec({ resource: 'orders', param: 'orderStatus', kind: 'list', title: 'Order status', known: ORDER_STATUSES, defaults: ORDER_STATUSES, open: true, option: '--order-status', section: '§4.2' }),
    spec({ resource: 'orders', param: 'paymentStatus', kind: 'list', title: 'Payment', known: PAYMENT_STATUSES, defaults: PAYMENT_STATUSES, open: true, option: '--payment-status', section: '§4.2' }),
    spec({ resource: 'orders', param: 'sources', kind: 'list', title: 'Source', known: VOCABULARIES.sources.values, defaults: [], open: true, option: '--source', section: '§4.2' }),
    spec({ resource: 'orders', param: 'createdDate', kind: 'date', title: 'Created', known: DATE_PRESETS, defaults: [], open: false, option: '--created', section: '§4.2' }),
    spec({ resource: 'orders', param: 'scheduledDate', kind: 'date', title: 'Scheduled', known: DATE_PRESETS, defaults: [], open: false, option: '--scheduled', section: '§4.2' }),
    spec({ resource: 'orders', param: 'processingDate', kind: 'date', title: 'Processed', known: DATE_PRESETS, defaults: [], open: false, option: '--processed', section: '§4.2' }),
    spec({ resource: 'orders', param: 'createdBy', kind: 'list', title: 'Created by', known: [], defaults: [], open: true, option: '--created-by', section: '§4.2' }),
  ]),
});

/** The names of the parameters that can be kept, per resource. */
export const KEPT_PARAM_NAMES: Readonly<Record<Resource, readonly string[]>> = Object.freeze({
  contacts: Object.freeze(KEPT_PARAMS.contacts.map((p) => p.param)),
  orders: Object.freeze(KEPT_PARAMS.orders.map((p) => p.param)),
});

/** The spec of `param` of `resource`, or null when it cannot be kept. */
export function keptParamSpec(resource: Resource, param: string): KeptParamSpec | null {
  return KEPT_PARAMS[resource].find((p) => p.param === param) ?? null;
}

/** Longest kept value, in characters (a typed status or user id). */
export const MAX_KEPT_VALUE = 100;

/**
 * What is wrong with keeping `value` for `param` of `resource`, or null when it can be kept.
 * @returns a sentence that says what is accepted
 */
export function keptValueProblem(resource: Resource, param: string, value: string): string | null {
  const p = keptParamSpec(resource, param);
  if (!p) return `${resource} cannot keep "${param}"; these can be kept: ${KEPT_PARAM_NAMES[resource].join(', ')}.`;
  const trimmed = value.trim();
  if (trimmed === '' || trimmed !== value) return `A kept value of ${p.title} is text without leading or trailing spaces, not "${value.slice(0, 40)}".`;
  if (value.length > MAX_KEPT_VALUE) return `A kept value of ${p.title} is at most ${MAX_KEPT_VALUE} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return `A kept value of ${p.title} cannot hold control characters.`;
  if (!p.open && !p.known.includes(value)) return `${p.title} is kept for ${p.known.join(', ')}, not "${value.slice(0, 40)}".`;
  if (p.kind === 'list' && value.includes(',')) return `A kept value of ${p.title} cannot hold a comma: the service's lists are comma-separated. Keep each value on its own.`;
  return null;
}

/** The local calendar day of `at` (the person's time zone, where presets are counted), YYYY-MM-DD. */
export function localDay(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** What "delivered since" takes: the last 7 or 30 local days, or a local day on (YYYY-MM-DD). */
export const DELIVERED_SINCE_PRESETS = ['7d', '30d'] as const;
export type DeliveredSincePreset = (typeof DELIVERED_SINCE_PRESETS)[number];

/**
 * The start (ISO 8601 UTC) of what "delivered since `spec`" covers at `now`, in the person's local
 * days: `7d` and `30d` start at the local midnight that opens the last 7 or 30 days (today
 * included), a day `YYYY-MM-DD` at its local midnight. Compared with an observation's `atOrBefore`,
 * so a delivery counts on the day the sync saw it.
 * @returns null when `spec` is neither a preset nor a valid day
 */
export function deliveredSinceStart(spec: string, now: Date): string | null {
  let day: string;
  if ((DELIVERED_SINCE_PRESETS as readonly string[]).includes(spec)) day = addDays(localDay(now), 1 - Number(spec.slice(0, -1)));
  else if (/^\d{4}-\d{2}-\d{2}$/.test(spec) && addDays(spec, 0) === spec) day = spec;
  else return null;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).toISOString();
}

/**
 * The range of days a preset covers on `today` (YYYY-MM-DD), both ends inclusive: the last N days
 * end today ("last 7 days" on 2026-12-02 is 2026-11-26..2026-12-02); this year starts on 1 January.
 */
export function presetRange(preset: DatePreset, today: string): Required<DateRange> {
  if (preset === 'this-year') return { startDate: `${today.slice(0, 4)}-01-01`, endDate: today };
  const days = Number(preset.slice(0, -1));
  return { startDate: addDays(today, 1 - days), endDate: today };
}

/**
 * The service query that reads the membership of `value` of `param` on `today` (§4.1 / §4.2
 * parameters by the spec's names): one item for a list, the preset's range for a date, true or
 * false for a boolean.
 * @throws Error when the value cannot be kept ({@link keptValueProblem})
 */
export function keptServiceQuery(resource: Resource, param: string, value: string, today: string): Record<string, string[] | DateRange | boolean> {
  const problem = keptValueProblem(resource, param, value);
  if (problem) throw new Error(problem);
  const p = keptParamSpec(resource, param)!;
  if (p.kind === 'date') return { [param]: presetRange(value as DatePreset, today) };
  if (p.kind === 'boolean') return { [param]: value === 'yes' };
  return { [param]: [value] };
}

const VOCABULARY_OF: Readonly<Record<string, Vocabulary>> = { addressStatus: VOCABULARIES.addressStatus, orderStatus: VOCABULARIES.orderStatus, paymentStatus: VOCABULARIES.paymentStatus, sources: VOCABULARIES.sources };

/**
 * How a kept value is shown: its vocabulary's name ("Payment failed"), a preset's name, Yes / No,
 * or the value as typed.
 */
export function keptValueName(param: string, value: string): string {
  if ((DATE_PRESETS as readonly string[]).includes(value)) return DATE_PRESET_NAMES[value as DatePreset];
  if (value === 'yes' || value === 'no') return value === 'yes' ? 'Yes' : 'No';
  const vocabulary = VOCABULARY_OF[param];
  return vocabulary ? vocabularyName(vocabulary, value) : value;
}

/** The kept filters a new cache starts with: address status, last mailed in the last 30 days, order status and payment. */
export function defaultKeptValues(): { resource: Resource; param: string; value: string }[] {
  return (['contacts', 'orders'] as const).flatMap((resource) => KEPT_PARAMS[resource].flatMap((p) => p.defaults.map((value) => ({ resource, param: p.param, value }))));
}

/** A kept filter as the cache reports it. */
export interface KeptFilter {
  resource: Resource;
  param: string;
  value: string;
  /** How the value is shown ({@link keptValueName}). */
  name: string;
  /** Members the mirror holds (the rows the filter selects now), or null before the first read. */
  members: number | null;
  /** `count` the service reported for the last read, or null before it. */
  serverCount: number | null;
  /** When the last successful read began, ISO 8601 UTC; null before the first. */
  readAt: string | null;
  /** A date preset: the local day its range was computed from (YYYY-MM-DD); null otherwise. */
  asOfDay: string | null;
  /** The last read's failure (the previous members are kept), or null. */
  lastError: { code: string; message: string; at: string } | null;
}

/** A selection of kept values of one parameter, as a query carries it: the rows of any of them (OR), under the other filters (AND). */
export interface KeptSelection {
  param: string;
  values: string[];
}

/** One value of a kept parameter in the filter pane: the rows it would select within the current view. */
export interface KeptFacetOption {
  value: string;
  /** {@link keptValueName}. */
  label: string;
  /** Rows of the view (this parameter's own selection left out) among its members; null before its first read. */
  count: number | null;
  /** When its members were read (ISO 8601 UTC), or null before the first read. */
  readAt: string | null;
  /** A date preset: the local day its range was computed from (YYYY-MM-DD); null otherwise. */
  asOfDay: string | null;
  /** The last read's failure (the previous members are used), or null. */
  lastError: { code: string; message: string; at: string } | null;
}

/** A kept parameter in the filter pane, with its kept values. */
export interface KeptFacet {
  param: string;
  /** The pane's heading ({@link KeptParamSpec.title}). */
  title: string;
  kind: KeptParamKind;
  options: KeptFacetOption[];
}

/** The most values one parameter keeps (each is one read after every sync). */
export const MAX_KEPT_VALUES_PER_PARAM = 50;

/** What the cost of a kept parameter is estimated from, per resource. */
export interface KeptCostBasis {
  /** Rows per request of the profile's sync (its `pageSize`). */
  pageSize: number;
  /** Records the cache holds of the resource, or null before its first sync. */
  rows: number | null;
  /** Seconds per request of the resource's last sync that succeeded (its length over its pages), or null before one. */
  secondsPerRequest: number | null;
}

/** The estimated cost of reading a parameter's kept values after each sync. */
export interface KeptParamCost {
  /** Requests per sync; null when the resource was never synced (nothing to estimate from). */
  requests: number | null;
  /** Whether any value was never read, so its share is estimated rather than counted. */
  estimated: boolean;
  /** `requests` at the last sync's pace, in seconds; null without a sync to measure. */
  seconds: number | null;
}

/** Requests that read `count` records: page 0 even when it is empty (§3 paging). */
const pagesOf = (count: number, pageSize: number): number => Math.max(1, Math.ceil(count / pageSize));

/**
 * Estimates the requests one refresh of the kept `values` of parameter `spec` costs after a sync,
 * and their seconds at the last sync's pace. A value read before costs its last `count` in pages. A
 * value never read is estimated: a list or yes / no parameter gives each record one value, so its
 * values partition the resource and the unread ones share what the read ones leave (together about
 * one read of it); a date preset may select the whole resource, so each unread one counts as a
 * whole read.
 * @param values the values to keep, with the `count` the service reported for their last read (null: never read)
 */
export function keptParamCost(spec: Pick<KeptParamSpec, 'kind'>, values: readonly { serverCount: number | null }[], basis: KeptCostBasis): KeptParamCost {
  if (values.length === 0) return { requests: 0, estimated: false, seconds: 0 };
  const read = values.filter((v) => v.serverCount !== null).map((v) => v.serverCount!);
  const unread = values.length - read.length;
  let requests = read.reduce((sum, count) => sum + pagesOf(count, basis.pageSize), 0);
  if (unread > 0) {
    if (basis.rows === null) return { requests: null, estimated: true, seconds: null };
    if (spec.kind === 'date') requests += unread * pagesOf(basis.rows, basis.pageSize);
    else {
      const left = Math.max(0, basis.rows - read.reduce((sum, count) => sum + count, 0));
      requests += Math.ceil(left / basis.pageSize) + unread - (left > 0 ? 1 : 0);
    }
  }
  return { requests, estimated: unread > 0, seconds: basis.secondsPerRequest === null ? null : requests * basis.secondsPerRequest };
}

/** A profile's kept filters with what their costs are estimated from (the Profiles page's setting). */
export interface KeptSettings {
  profileId: string;
  /** Whether the kept filters are read after each sync (the profile's `keptFilters`, absent meaning on). */
  enabled: boolean;
  /** The kept values with their last reads; the defaults ({@link defaultKeptValues}) unread before the cache exists. */
  kept: KeptFilter[];
  basis: Record<Resource, KeptCostBasis>;
}
