/**
 * The query string of the two endpoints: a service query (shared/serviceQuery.ts) plus the page,
 * written exactly as it goes on the wire. Written by hand, not by URLSearchParams, because a space
 * must be `%20` (URLSearchParams writes `+`) and §4.1's two forms need literal `,` `[` `{`.
 *
 * Rules (docs/service-api-notes.md "Parameter encoding"):
 *  - order: `page`, `pageSize`, then the parameters in the spec's order, then other `meta.<key>`
 *    by key; absent parameters are left out;
 *  - text (`search`, `meta.<key>`, list items): percent-encoded as a form would be, but a space is
 *    `%20`; so `page=0&pageSize=100&meta.account_id=acct-1` is what it always was;
 *  - §4.1 `addressStatus`, `lastMailedStatus`: `encoded` form, the items as percent-encoded JSON
 *    strings joined by `,` (`%22In%20Transit%22,%22Mailed%22`); `plain` form, the JSON array
 *    (`[%22Verified%22]`: a `"` can only travel as `%22`);
 *  - §4.1 `lastMailedDate`: `encoded`, the percent-encoded JSON object (`%7B%22startDate%22%3A…`);
 *    `plain`, the JSON object (`{%22startDate%22:%2220-11-2023%22}`); only the ends given;
 *  - §4.1 `tags`: the JSON array of ids the spec's documentation shows (`[4,5,6]`) in both forms
 *    (§4.1 gives `tags` no encoded form);
 *  - §4.2 lists: items joined by `,`; §4.2 date ranges: `START,END` (either side may be empty), one
 *    day alone when both ends are that day;
 *  - booleans `true`/`false`; every date in the profile's `dateStyle` (2024-03-31 or 31-03-2024).
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import {
  checkServiceQuery,
  canonicalServiceQuery,
  DEFAULT_QUERY_ENCODING,
  type ContactServiceQuery,
  type DateRange,
  type OrderServiceQuery,
  type QueryEncoding,
  type ServiceResource,
} from '../../../shared/serviceQuery.ts';

/** §4.1 `GET /contacts`: the service query and the page (service defaults: page 0, 10 rows). */
export type ContactListParams = ContactServiceQuery & { page?: number; pageSize?: number };

/** §4.2 `GET /orders/`: the service query and the page, both required by the service. */
export type OrderListParams = OrderServiceQuery & { page: number; pageSize: number };

/**
 * Percent-encodes text as application/x-www-form-urlencoded does (only letters, digits and
 * `* - . _` stay), except that a space is `%20`, never `+`.
 */
export function encodeText(text: string): string {
  return encodeURIComponent(text).replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** JSON text in the plain form: encoded as {@link encodeText}, but JSON's `[ ] { } : ,` stay. */
function encodeJsonPlain(json: string): string {
  return encodeText(json).replace(/%5B|%5D|%7B|%7D|%3A|%2C/g, (e) => decodeURIComponent(e));
}

function styled(day: string, encoding: QueryEncoding): string {
  return encoding.dateStyle === 'dmy' ? `${day.slice(8, 10)}-${day.slice(5, 7)}-${day.slice(0, 4)}` : day;
}

function styledRange(range: DateRange, encoding: QueryEncoding): DateRange {
  const out: DateRange = {};
  if (range.startDate !== undefined) out.startDate = styled(range.startDate, encoding);
  if (range.endDate !== undefined) out.endDate = styled(range.endDate, encoding);
  return out;
}

/** Label ids as JSON numbers where that keeps them exact, else as strings (`007`, 20 digits). */
function tagsJson(ids: readonly string[]): string {
  return `[${ids.map((id) => (/^(0|[1-9]\d{0,14})$/.test(id) ? id : JSON.stringify(id))).join(',')}]`;
}

function pageParts(page: number | undefined, pageSize: number | undefined): string[] {
  const parts: string[] = [];
  if (page !== undefined) {
    if (!Number.isInteger(page) || page < 0) throw new LetterdeskError('VALIDATION', `page must be a whole number ≥ 0 (got ${page}).`);
    parts.push(`page=${page}`);
  }
  if (pageSize !== undefined) {
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new LetterdeskError('VALIDATION', `pageSize must be a whole number ≥ 1 (got ${pageSize}).`);
    parts.push(`pageSize=${pageSize}`);
  }
  return parts;
}

/** One parameter of either resource, as `name=value` (the value already encoded). */
function encodeParam(resource: ServiceResource, name: string, value: unknown, encoding: QueryEncoding): string {
  let text: string;
  if (typeof value === 'boolean') text = String(value);
  else if (typeof value === 'string') text = encodeText(value);
  else if (Array.isArray(value)) {
    const items = value as string[];
    if (name === 'tags') text = encodeJsonPlain(tagsJson(items));
    else if (resource === 'orders') text = items.map(encodeText).join(',');
    else if (encoding.form === 'plain') text = encodeJsonPlain(JSON.stringify(items));
    else text = items.map((item) => encodeText(JSON.stringify(item))).join(',');
  } else {
    const range = styledRange(value as DateRange, encoding);
    if (resource === 'orders') text = range.startDate !== undefined && range.startDate === range.endDate ? range.startDate : `${range.startDate ?? ''},${range.endDate ?? ''}`;
    else if (encoding.form === 'plain') text = encodeJsonPlain(JSON.stringify(range));
    else text = encodeText(JSON.stringify(range));
  }
  return `${name}=${text}`;
}

function encodeQuery(resource: ServiceResource, params: ContactListParams | OrderListParams, encoding: QueryEncoding): string {
  const { page, pageSize, ...rest } = params as { page?: number; pageSize?: number; [name: string]: unknown };
  const parts = pageParts(page, pageSize);
  const query = canonicalServiceQuery(resource, checkServiceQuery(resource, rest));
  for (const [name, value] of Object.entries(query)) parts.push(encodeParam(resource, name, value, encoding));
  return parts.join('&');
}

/**
 * The query string (without `?`) of a §4.1 request (rules in the module comment).
 * @param encoding the profile's setting @default {@link DEFAULT_QUERY_ENCODING}
 * @throws LetterdeskError VALIDATION for a bad page or pageSize, or a query the schema refuses
 *   (an impossible date, an unknown parameter, …), naming the parameter
 */
export function encodeContactParams(params: ContactListParams, encoding: QueryEncoding = DEFAULT_QUERY_ENCODING): string {
  return encodeQuery('contacts', params, encoding);
}

/**
 * The query string (without `?`) of a §4.2 request (rules in the module comment).
 * @throws LetterdeskError VALIDATION as {@link encodeContactParams}, and when page or pageSize is missing
 */
export function encodeOrderParams(params: OrderListParams, encoding: QueryEncoding = DEFAULT_QUERY_ENCODING): string {
  if (params.page === undefined || params.pageSize === undefined) throw new LetterdeskError('VALIDATION', 'The order history needs page and pageSize (§4.2).');
  return encodeQuery('orders', params, encoding);
}

/** The path of each listing under the base URL (§4.1, §4.2). */
export const LISTING_PATHS = { contacts: 'contacts', orders: 'orders/' } as const satisfies Record<ServiceResource, string>;

/**
 * The exact path and query string a request would have, relative to the base URL
 * (`/contacts?page=0&pageSize=10&addressStatus=%22Failed%22`): what the editor shows as "the exact
 * request". Holds no tokens (they travel in headers).
 * @throws LetterdeskError VALIDATION as {@link encodeContactParams}
 */
export function describeRequest(resource: 'contacts', query: ContactServiceQuery, page: number, pageSize: number, encoding?: QueryEncoding): string;
export function describeRequest(resource: 'orders', query: OrderServiceQuery, page: number, pageSize: number, encoding?: QueryEncoding): string;
export function describeRequest(resource: ServiceResource, query: ContactServiceQuery | OrderServiceQuery, page: number, pageSize: number, encoding?: QueryEncoding): string;
export function describeRequest(resource: ServiceResource, query: ContactServiceQuery | OrderServiceQuery, page: number, pageSize: number, encoding: QueryEncoding = DEFAULT_QUERY_ENCODING): string {
  const qs = encodeQuery(resource, { ...query, page, pageSize }, encoding);
  return `/${LISTING_PATHS[resource]}${qs === '' ? '' : `?${qs}`}`;
}
