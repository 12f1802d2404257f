/**
 * Typed query parameters of the two endpoints and their one encoding on the wire.
 *
 * Encoding (the same rule for every array and object parameter; docs/service-api-notes.md):
 *  - §4.1 array parameters (`addressStatus`, `lastMailedStatus`, `tags`) and the JSON-object
 *    parameter `lastMailedDate` are sent in the spec's URL-encoded form: the value is JSON text
 *    (`["Failed","Verified"]`, `{"startDate":"2024-01-01","endDate":"2024-03-31"}`), which
 *    URLSearchParams percent-encodes. One item stays an array (no "is it a string?" ambiguity) and
 *    dates are year-month-day, as §4.1 asks for the encoded form. Empty arrays are left out.
 *  - §4.2 multi-value string filters (`productTypes`, `sources`, `orderStatus`, `paymentStatus`,
 *    `createdBy`) are one comma-separated string; date filters are `YYYY-MM-DD` (one UTC day) or
 *    `YYYY-MM-DD,YYYY-MM-DD` (inclusive range, either side may be empty).
 *  - booleans are `true`/`false`; `meta` entries become `meta.<key>=<value>`.
 *  - undefined and null values are left out.
 */
import { LetterdeskError } from '../../../shared/errors.ts';

/** §3 address statuses. */
export type AddressStatus = 'Failed' | 'Verified';

/** A `YYYY-MM-DD` day range; either bound may be left out. */
export interface DayRange {
  startDate?: string;
  endDate?: string;
}

/** §4.1 query parameters of `GET /contacts` (all optional). */
export interface ContactListParams {
  /** Zero-based page. Service default 0. */
  page?: number;
  /** Rows per page. Service default 10. */
  pageSize?: number;
  /** Free-text filter. */
  search?: string;
  addressStatus?: AddressStatus[];
  /** Items such as "In Transit", "Mailed", "Scheduled". */
  lastMailedStatus?: string[];
  /** `{startDate, endDate}` as `YYYY-MM-DD`. */
  lastMailedDate?: DayRange;
  /** Label ids. */
  tags?: string[];
  withPropertyAddresses?: boolean;
  isReturnAddress?: boolean;
  /** `meta.<key>` filters; §4.1 names `account_id`. */
  meta?: Record<string, string>;
  /** The spec's own name for `meta: { account_id }` (§4.1); either form works. */
  'meta.account_id'?: string;
}

/** A day (`YYYY-MM-DD`) or an inclusive day range for the §4.2 date filters. */
export type DayFilter = string | { from?: string; to?: string };

/** §4.2 query parameters of `GET /orders/`; `page` and `pageSize` are required by the service. */
export interface OrderListParams {
  page: number;
  pageSize: number;
  /** Order id or name ("arriving in a later release" on the real service). */
  search?: string;
  productTypes?: string[];
  sources?: string[];
  /** §2.3 `status` codes. */
  orderStatus?: number[];
  paymentStatus?: string[];
  createdDate?: DayFilter;
  scheduledDate?: DayFilter;
  processingDate?: DayFilter;
  /** User ids. */
  createdBy?: string[];
  /** `meta.<key>` filters, e.g. `{ account_id: 'acct-1' }`. */
  meta?: Record<string, string>;
  /** The spec's own name for `meta: { account_id }` (§4.2); either form works. */
  'meta.account_id'?: string;
}

const YMD = /^\d{4}-\d{2}-\d{2}$/;

function bad(message: string): never {
  throw new LetterdeskError('VALIDATION', message);
}

function pageParams(sp: URLSearchParams, page: number | undefined, pageSize: number | undefined): void {
  if (page !== undefined) {
    if (!Number.isInteger(page) || page < 0) bad(`page must be a whole number ≥ 0 (got ${page}).`);
    sp.set('page', String(page));
  }
  if (pageSize !== undefined) {
    if (!Number.isInteger(pageSize) || pageSize < 1) bad(`pageSize must be a whole number ≥ 1 (got ${pageSize}).`);
    sp.set('pageSize', String(pageSize));
  }
}

function metaParams(sp: URLSearchParams, meta: Record<string, string> | undefined, accountId: string | undefined): void {
  const all: Record<string, string> = { ...meta };
  if (accountId !== undefined && accountId !== null && accountId !== '') all.account_id = accountId;
  for (const [key, value] of Object.entries(all)) {
    if (value === undefined || value === null) continue;
    if (!/^[A-Za-z0-9_.-]+$/.test(key)) bad(`meta key "${key}" may only hold letters, digits, _ . -.`);
    sp.set(`meta.${key}`, String(value));
  }
}

function day(value: string | undefined, what: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!YMD.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) bad(`${what} must be a date as YYYY-MM-DD (got "${value}").`);
  return value;
}

function commaList(sp: URLSearchParams, name: string, values: readonly (string | number)[] | undefined): void {
  if (!values || values.length === 0) return;
  for (const v of values) if (String(v).includes(',')) bad(`${name} values cannot contain a comma ("${v}").`);
  sp.set(name, values.map(String).join(','));
}

function dayFilter(sp: URLSearchParams, name: string, value: DayFilter | undefined): void {
  if (value === undefined) return;
  if (typeof value === 'string') {
    sp.set(name, day(value, name) ?? '');
    return;
  }
  const from = day(value.from, `${name}.from`);
  const to = day(value.to, `${name}.to`);
  if (from === undefined && to === undefined) return;
  sp.set(name, `${from ?? ''},${to ?? ''}`);
}

/**
 * Encodes §4.1 parameters (rules in the module comment).
 * @throws LetterdeskError VALIDATION for a negative page, a malformed date or meta key
 */
export function encodeContactParams(params: ContactListParams): URLSearchParams {
  const sp = new URLSearchParams();
  pageParams(sp, params.page, params.pageSize);
  if (params.search !== undefined && params.search !== '') sp.set('search', params.search);
  for (const name of ['addressStatus', 'lastMailedStatus', 'tags'] as const) {
    const values = params[name];
    if (values && values.length > 0) sp.set(name, JSON.stringify(values.map(String)));
  }
  if (params.lastMailedDate) {
    const startDate = day(params.lastMailedDate.startDate, 'lastMailedDate.startDate');
    const endDate = day(params.lastMailedDate.endDate, 'lastMailedDate.endDate');
    if (startDate !== undefined || endDate !== undefined) sp.set('lastMailedDate', JSON.stringify({ startDate, endDate }));
  }
  if (params.withPropertyAddresses !== undefined) sp.set('withPropertyAddresses', String(params.withPropertyAddresses));
  if (params.isReturnAddress !== undefined) sp.set('isReturnAddress', String(params.isReturnAddress));
  metaParams(sp, params.meta, params['meta.account_id']);
  return sp;
}

/**
 * Encodes §4.2 parameters (rules in the module comment).
 * @throws LetterdeskError VALIDATION for a missing/negative page or pageSize, a malformed date, a
 *   comma inside a list value
 */
export function encodeOrderParams(params: OrderListParams): URLSearchParams {
  const sp = new URLSearchParams();
  if (params.page === undefined || params.pageSize === undefined) bad('The order history needs page and pageSize (§4.2).');
  pageParams(sp, params.page, params.pageSize);
  if (params.search !== undefined && params.search !== '') sp.set('search', params.search);
  commaList(sp, 'productTypes', params.productTypes);
  commaList(sp, 'sources', params.sources);
  if (params.orderStatus?.some((s) => !Number.isInteger(s))) bad('orderStatus items must be whole numbers.');
  commaList(sp, 'orderStatus', params.orderStatus);
  commaList(sp, 'paymentStatus', params.paymentStatus);
  dayFilter(sp, 'createdDate', params.createdDate);
  dayFilter(sp, 'scheduledDate', params.scheduledDate);
  dayFilter(sp, 'processingDate', params.processingDate);
  commaList(sp, 'createdBy', params.createdBy);
  metaParams(sp, params.meta, params['meta.account_id']);
  return sp;
}
