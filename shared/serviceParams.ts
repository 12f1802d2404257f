/**
 * The service query's parameter table and the pure rules around it, without any schema library:
 * what the editor's form is built from (in the page, which must not load zod under its strict
 * CSP), what the CLI's help and `--param` parsing read, and what serviceQuery.ts's schemas check
 * against. serviceQuery.ts re-exports everything here.
 *
 * Pure module: other shared/ files only, no zod.
 */
import { ADDRESS_STATUSES, ORDER_SOURCES, ORDER_STATUSES, PAYMENT_STATUSES, type AddressStatus } from './vocabularies.ts';
import { clip } from './zodIssues.ts';

export { ADDRESS_STATUSES, type AddressStatus } from './vocabularies.ts';

/** The two listings a service query runs against. */
export const SERVICE_RESOURCES = ['contacts', 'orders'] as const;
export type ServiceResource = (typeof SERVICE_RESOURCES)[number];

/** §3 last-mailed statuses the spec names; it says further values exist, so any text is accepted. */
export const LAST_MAILED_STATUS_EXAMPLES = ['In Transit', 'Mailed', 'Scheduled'] as const;

/** Longest text value (`search`, `meta.<key>`), in characters. */
export const MAX_PARAM_TEXT = 200;
/** Longest item of a list, in characters. */
export const MAX_LIST_ITEM = 100;
/** Most items of a list. */
export const MAX_LIST_ITEMS = 100;
/** Most `meta.<key>` filters of one query. */
export const MAX_META_KEYS = 20;

// ---------------------------------------------------------------------------------------------
// Calendar days
// ---------------------------------------------------------------------------------------------

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

/** Days in `month` (1–12) of `year` in the Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * What is wrong with a day written as YYYY-MM-DD, or null when it is a real calendar day.
 * @returns e.g. `2024-02-30 is not a date: February 2024 has 29 days`
 */
export function calendarDayProblem(text: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return `"${clip(text, 40)}" is not a date as YYYY-MM-DD (e.g. 2024-03-31)`;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12) return `${text} is not a date: there is no month ${m[2]} (months are 01 to 12)`;
  const max = daysInMonth(year, month);
  if (day < 1 || day > max) return `${text} is not a date: ${MONTH_NAMES[month - 1]} ${m[1]} has ${max} days`;
  return null;
}

/** True when `text` is a real calendar day written YYYY-MM-DD (2024-02-29 yes, 2023-02-29 no). */
export function isCalendarDay(text: string): boolean {
  return calendarDayProblem(text) === null;
}

/** The calendar day `n` days after `day` (both YYYY-MM-DD; `n` may be negative). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** A range of calendar days, both ends inclusive; either end may be left out, not both. */
export interface DateRange {
  startDate?: string;
  endDate?: string;
}

// ---------------------------------------------------------------------------------------------
// The two queries
// ---------------------------------------------------------------------------------------------

/** The name of a metadata filter: `meta.` and a key of letters, digits, `_`, `.` or `-`. */
export type MetaParamName = `meta.${string}`;
const META_NAME = /^meta\.[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** True when `name` is a well-formed `meta.<key>` parameter name. */
export function isMetaParamName(name: string): name is MetaParamName {
  return META_NAME.test(name);
}

/** §4.1 `GET /contacts` filters. Absent = not sent. */
export interface ContactServiceQuery {
  /** Free text filter on contacts. */
  search?: string;
  addressStatus?: AddressStatus[];
  /** Items such as In Transit, Mailed, Scheduled, or any other. */
  lastMailedStatus?: string[];
  lastMailedDate?: DateRange;
  /** Label ids (§2.2 ContactLabel `id`). */
  tags?: string[];
  withPropertyAddresses?: boolean;
  isReturnAddress?: boolean;
  'meta.account_id'?: string;
  [name: MetaParamName]: string | undefined;
}

/** §4.2 `GET /orders/` filters. Absent = not sent. */
export interface OrderServiceQuery {
  /** Order identifier or name ("arriving in a later release" on the service). */
  search?: string;
  productTypes?: string[];
  /** The SDK's names (vocabularies.ts `ORDER_SOURCES`) or any other text. */
  sources?: string[];
  /** The SDK's names (vocabularies.ts `ORDER_STATUSES`) or any other text: §4.2 types it as a string. */
  orderStatus?: string[];
  /** The SDK's names (vocabularies.ts `PAYMENT_STATUSES`) or any other text. */
  paymentStatus?: string[];
  createdDate?: DateRange;
  scheduledDate?: DateRange;
  processingDate?: DateRange;
  /** User ids. */
  createdBy?: string[];
  'meta.account_id'?: string;
  [name: MetaParamName]: string | undefined;
}

/** The query type of each resource. */
export type ServiceQueryOf<R extends ServiceResource> = R extends 'contacts' ? ContactServiceQuery : OrderServiceQuery;

// ---------------------------------------------------------------------------------------------
// The parameter table
// ---------------------------------------------------------------------------------------------

/**
 * The kind of a parameter's value: `text`; `list` (comma-separated on the command line);
 * `labelIds` (a list of label ids); `dateRange`; `boolean` (tri-state: absent, true, false);
 * `meta` (the `meta.<key>` row: any key, a text value).
 */
export type ServiceParamKind = 'text' | 'list' | 'labelIds' | 'dateRange' | 'boolean' | 'meta';

/** One parameter of a listing, for building a form or the CLI's help and parsing. */
export interface ServiceParamSpec {
  /** The spec's name; `meta.<key>` stands for every other metadata key. */
  readonly name: string;
  readonly kind: ServiceParamKind;
  /** Known values: the whole vocabulary when `open` is false, suggestions when true; empty when the spec lists none. */
  readonly values: readonly string[];
  /** Whether values outside `values` are accepted. */
  readonly open: boolean;
  /** What `--param NAME=VALUE` takes, in words, e.g. "Failed, Verified, Corrected (comma-separated)". */
  readonly accepts: string;
  /** What the parameter filters on, from the spec. */
  readonly help: string;
  /** Where the spec defines it. */
  readonly section: '§4.1' | '§4.2';
}

const DATE_RANGE_ACCEPTS = 'a date range START..END as YYYY-MM-DD, either end optional (2024-03-01..2024-03-31, 2024-03-01.., ..2024-03-31; one date alone is that day)';
const BOOLEAN_ACCEPTS = 'true or false';
const TEXT_ACCEPTS = 'any text';
const LIST_ACCEPTS = 'one or more values, comma-separated';
/** What an open list with known values takes, e.g. "values such as PENDING, PAID, or any other (comma-separated)". */
const knownOrAny = (values: readonly string[]): string => `values such as ${values.join(', ')}, or any other (comma-separated)`;

const param = (section: ServiceParamSpec['section'], name: string, kind: ServiceParamKind, help: string, extra: Partial<Pick<ServiceParamSpec, 'values' | 'open' | 'accepts'>> = {}): ServiceParamSpec => {
  const accepts = { text: TEXT_ACCEPTS, list: LIST_ACCEPTS, labelIds: 'label ids (digits), comma-separated, e.g. 7001,7002', dateRange: DATE_RANGE_ACCEPTS, boolean: BOOLEAN_ACCEPTS, meta: TEXT_ACCEPTS }[kind];
  return Object.freeze({ name, kind, values: Object.freeze([...(extra.values ?? [])]), open: extra.open ?? true, accepts: extra.accepts ?? accepts, help, section });
};

/** Every parameter of each listing, in the spec's order (`meta.<key>` last). */
export const SERVICE_PARAMS: Readonly<Record<ServiceResource, readonly ServiceParamSpec[]>> = Object.freeze({
  contacts: Object.freeze([
    param('§4.1', 'search', 'text', 'Free text filter on contacts.'),
    param('§4.1', 'addressStatus', 'list', "The contact's address status.", { values: ADDRESS_STATUSES, open: false, accepts: `${ADDRESS_STATUSES.join(', ')} (comma-separated)` }),
    param('§4.1', 'lastMailedStatus', 'list', 'The status of the last letter mailed to the contact.', {
      values: LAST_MAILED_STATUS_EXAMPLES,
      accepts: `statuses such as ${LAST_MAILED_STATUS_EXAMPLES.join(', ')}, or any other (comma-separated)`,
    }),
    param('§4.1', 'lastMailedDate', 'dateRange', 'When the contact was last mailed.'),
    param('§4.1', 'tags', 'labelIds', 'Contacts with any of these labels.'),
    param('§4.1', 'withPropertyAddresses', 'boolean', 'Whether property addresses are included in the records.'),
    param('§4.1', 'isReturnAddress', 'boolean', 'Whether the contact is a return address.'),
    param('§4.1', 'meta.account_id', 'text', 'Account identifier set by the caller in metadata.'),
    param('§4.1', 'meta.<key>', 'meta', 'Another metadata entry set by the caller.'),
  ]),
  orders: Object.freeze([
    param('§4.2', 'search', 'text', 'Order identifier or order name (arriving in a later release of the service).'),
    param('§4.2', 'productTypes', 'list', 'Product types.'),
    param('§4.2', 'sources', 'list', 'Where the order came from.', { values: ORDER_SOURCES, accepts: knownOrAny(ORDER_SOURCES) }),
    param('§4.2', 'orderStatus', 'list', 'Order status.', { values: ORDER_STATUSES, accepts: knownOrAny(ORDER_STATUSES) }),
    param('§4.2', 'paymentStatus', 'list', 'Payment status.', { values: PAYMENT_STATUSES, accepts: knownOrAny(PAYMENT_STATUSES) }),
    param('§4.2', 'createdDate', 'dateRange', 'When the order was created.'),
    param('§4.2', 'scheduledDate', 'dateRange', 'When the order is scheduled.'),
    param('§4.2', 'processingDate', 'dateRange', 'When the order was processed.'),
    param('§4.2', 'createdBy', 'list', 'Identifier of the user who created the order.'),
    param('§4.2', 'meta.account_id', 'text', "The account_id entry of the order's meta."),
    param('§4.2', 'meta.<key>', 'meta', "Another entry of the order's meta."),
  ]),
});

/** The table row for `name` (any `meta.<key>` resolves to the `meta.<key>` row), or null. */
export function serviceParamSpec(resource: ServiceResource, name: string): ServiceParamSpec | null {
  const rows = SERVICE_PARAMS[resource];
  return rows.find((p) => p.name === name && p.kind !== 'meta') ?? (isMetaParamName(name) ? (rows.find((p) => p.kind === 'meta') ?? null) : null);
}

/** The named parameters of each listing (every row of the table but `meta.<key>`), in the spec's order. */
export const NAMED_SERVICE_PARAMS: Readonly<Record<ServiceResource, readonly string[]>> = Object.freeze({
  contacts: Object.freeze(SERVICE_PARAMS.contacts.filter((p) => p.kind !== 'meta').map((p) => p.name)),
  orders: Object.freeze(SERVICE_PARAMS.orders.filter((p) => p.kind !== 'meta').map((p) => p.name)),
});

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/** A value of one parameter, as it sits in a query. */
export type ServiceParamValue = string | string[] | boolean | DateRange;

/** Writes a date range as the CLI takes it: `START..END`, `START..`, `..END`, or one day. */
export function formatDateRange(range: DateRange): string {
  if (range.startDate !== undefined && range.startDate === range.endDate) return range.startDate;
  return `${range.startDate ?? ''}..${range.endDate ?? ''}`;
}

/**
 * The query in the table's order (named parameters as the spec lists them, then `meta.<key>` by
 * key), leaving out absent values: equal queries give equal JSON.
 */
export function canonicalServiceQuery<R extends ServiceResource>(resource: R, query: ServiceQueryOf<R>): ServiceQueryOf<R> {
  const source = query as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of NAMED_SERVICE_PARAMS[resource]) if (source[name] !== undefined) out[name] = source[name];
  for (const name of Object.keys(source).filter((k) => !NAMED_SERVICE_PARAMS[resource].includes(k) && source[k] !== undefined).sort()) out[name] = source[name];
  return out as ServiceQueryOf<R>;
}

/**
 * The query as `NAME=VALUE` texts that {@link parseServiceParams} reads back to the same query
 * (for `view list`, the view header's chips, and a command line to copy).
 */
export function formatServiceParams<R extends ServiceResource>(resource: R, query: ServiceQueryOf<R>): string[] {
  return Object.entries(canonicalServiceQuery(resource, query) as Record<string, ServiceParamValue>).map(([name, value]) => {
    if (Array.isArray(value)) return `${name}=${value.join(',')}`;
    if (typeof value === 'object') return `${name}=${formatDateRange(value)}`;
    return `${name}=${String(value)}`;
  });
}
