/**
 * Query parameters of the sample API: parsing (every form the spec allows) and the filters.
 * A `+` and `%20` both mean a space (the query is read as a form would be).
 *
 * Lists (§4.1 `addressStatus`, `lastMailedStatus`, `tags`; §4.2 `productTypes`, `sources`,
 * `orderStatus`, `paymentStatus`, `createdBy`), each value in any of these forms, and the values of
 * repeated keys (`tags=1&tags=2`) and bracket keys (`tags[]=1`, `tags[0]=1`) added together:
 *  - the plain form, a JSON array: `addressStatus=["Verified"]`, `tags=[4,5,6]`;
 *  - the encoded form, quoted items: `lastMailedStatus=%22In%20Transit%22,%22Mailed%22`;
 *  - bare values, comma-separated: `productTypes=letter,postcard`, `addressStatus=Failed`;
 *  - any of them percent-encoded once more (decoded again when it starts with `%5B`, `%7B`, `%22`).
 * Dates are `YYYY-MM-DD` or `DD-MM-YYYY` (the two styles §4.1 says are in use); ranges are inclusive
 * UTC days, either end may be missing:
 *  - `lastMailedDate`: a JSON object `{"startDate":…,"endDate":…}` (also with bare keys, as the
 *    service's documentation writes it: `{startDate: "20-11-2023"}`), or bracket / dotted keys
 *    (`lastMailedDate[startDate]=…`); `/` is also taken as the separator;
 *  - §4.2 date filters: one day, `START,END`, or the same JSON object.
 * Booleans `true`/`false` (also `1`/`0`); contacts `page` default 0, `pageSize` default 10; orders
 * need both. `meta.<key>` (or `meta[<key>]`) filters on the record's `meta`. Every other filter
 * matches the row's hidden state (hidden.ts) or a field of the row, as the match functions say.
 * Anything malformed is a {@link QueryError} (answered 400 with a JSON body).
 */
import { ADDRESS_STATUSES } from '../../../shared/vocabularies.ts';
import type { ContactHidden, OrderHidden, SampleContact, SampleOrder } from './dataset.ts';
import { sampleStatusName } from './timeline.ts';

/** A malformed query parameter; the server answers 400 with `{ message, error: 'BAD_REQUEST', parameter }`. */
export class QueryError extends Error {
  override readonly name = 'QueryError';
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(message);
    this.parameter = parameter;
  }
}

const DAY_MS = 86_400_000;

/** Inclusive range of epoch milliseconds; null bound = open. */
export interface TimeRange {
  from: number | null;
  to: number | null;
}

/** Parsed contact query (§4.1). */
export interface ContactQueryParams {
  page: number;
  pageSize: number;
  search: string | null;
  addressStatus: string[] | null;
  lastMailedStatus: string[] | null;
  lastMailedDate: TimeRange | null;
  tags: string[] | null;
  withPropertyAddresses: boolean;
  isReturnAddress: boolean | null;
  meta: [string, string][];
}

/** Parsed order query (§4.2). */
export interface OrderQueryParams {
  page: number;
  pageSize: number;
  search: string | null;
  productTypes: string[] | null;
  sources: string[] | null;
  orderStatus: string[] | null;
  paymentStatus: string[] | null;
  createdBy: string[] | null;
  createdDate: TimeRange | null;
  scheduledDate: TimeRange | null;
  processingDate: TimeRange | null;
  meta: [string, string][];
}

function maybeDecodeAgain(value: string): string {
  if (/^%(5b|7b|22)/i.test(value)) {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return value;
}

function intParam(sp: URLSearchParams, name: string, fallback: number | null, min: number): number {
  const raw = sp.get(name);
  if (raw === null || raw === '') {
    if (fallback === null) throw new QueryError(name, `The query parameter "${name}" is required (a whole number ≥ ${min}).`);
    return fallback;
  }
  if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw) < min) {
    throw new QueryError(name, `The query parameter "${name}" must be a whole number ≥ ${min} (got "${raw.slice(0, 40)}").`);
  }
  return Number(raw);
}

function boolParam(sp: URLSearchParams, name: string): boolean | null {
  const raw = sp.get(name);
  if (raw === null || raw === '') return null;
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new QueryError(name, `The query parameter "${name}" must be true or false (got "${raw.slice(0, 40)}").`);
}

function textParam(sp: URLSearchParams, name: string): string | null {
  const raw = sp.get(name);
  if (raw === null) return null;
  const v = raw.trim();
  return v === '' ? null : v;
}

/** Collects a list parameter from every accepted form (see module comment). */
function arrayParam(sp: URLSearchParams, name: string): string[] | null {
  const values: string[] = [];
  for (const [key, raw] of sp) {
    if (key !== name && key !== `${name}[]` && !(key.startsWith(`${name}[`) && /^\[\d+\]$/.test(key.slice(name.length)))) continue;
    const value = maybeDecodeAgain(raw).trim();
    if (value.startsWith('[') || value.startsWith('"')) {
      const form = value.startsWith('[') ? 'a JSON array' : 'quoted items';
      let parsed: unknown;
      try {
        parsed = JSON.parse(value.startsWith('[') ? value : `[${value}]`);
      } catch {
        throw new QueryError(name, `The query parameter "${name}" looks like ${form} but is not valid JSON (got "${value.slice(0, 40)}").`);
      }
      if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string' || typeof x === 'number')) {
        throw new QueryError(name, `The query parameter "${name}" must be a list of strings.`);
      }
      for (const x of parsed) if (String(x).trim() !== '') values.push(String(x).trim());
    } else {
      for (const item of value.split(',')) if (item.trim() !== '') values.push(item.trim());
    }
  }
  return values.length > 0 ? values : null;
}

/** Parses `YYYY-MM-DD`, `DD-MM-YYYY` (or with `/`) into the epoch ms of that UTC day; null if malformed. */
export function parseDay(text: string): number | null {
  const t = text.trim();
  let y: number;
  let m: number;
  let d: number;
  let match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(t);
  if (match) {
    y = Number(match[1]);
    m = Number(match[2]);
    d = Number(match[3]);
  } else {
    match = /^(\d{1,2})[-/](\d{1,2})[-/](\d{4})$/.exec(t);
    if (!match) return null;
    d = Number(match[1]);
    m = Number(match[2]);
    y = Number(match[3]);
  }
  const ms = Date.UTC(y, m - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) return null;
  return ms;
}

function rangeOf(name: string, start: string | undefined, end: string | undefined): TimeRange | null {
  const bound = (value: string | undefined, which: string): number | null => {
    if (value === undefined || value.trim() === '') return null;
    const ms = parseDay(value);
    if (ms === null) throw new QueryError(name, `The ${which} of "${name}" must be a date as YYYY-MM-DD or DD-MM-YYYY (got "${value.slice(0, 40)}").`);
    return ms;
  };
  const from = bound(start, 'startDate');
  const toDay = bound(end, 'endDate');
  if (from === null && toDay === null) return null;
  const to = toDay === null ? null : toDay + DAY_MS - 1;
  if (from !== null && to !== null && from > to) throw new QueryError(name, `The startDate of "${name}" is after its endDate.`);
  return { from, to };
}

/** A `{startDate, endDate}` JSON object (keys quoted or bare) as a range. */
function dateObject(name: string, value: string): TimeRange | null {
  let parsed: unknown;
  try {
    // The service's documentation writes the keys bare: `{startDate: "20-11-2023", endDate: …}`.
    parsed = JSON.parse(value.replace(/([{,]\s*)([A-Za-z_]\w*)\s*:/g, '$1"$2":'));
  } catch {
    throw new QueryError(name, `The query parameter "${name}" must be a JSON object {"startDate","endDate"} or bracket keys ${name}[startDate]/${name}[endDate].`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new QueryError(name, `The query parameter "${name}" must be an object with startDate and endDate.`);
  const o = parsed as Record<string, unknown>;
  const str = (v: unknown, key: string): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new QueryError(name, `The ${key} of "${name}" must be a string date.`);
    return v;
  };
  return rangeOf(name, str(o.startDate, 'startDate'), str(o.endDate, 'endDate'));
}

/** `lastMailedDate` in every accepted form (see module comment). */
function lastMailedDateParam(sp: URLSearchParams): TimeRange | null {
  const name = 'lastMailedDate';
  const raw = sp.get(name);
  if (raw !== null && raw.trim() !== '') return dateObject(name, maybeDecodeAgain(raw).trim());
  const start = sp.get(`${name}[startDate]`) ?? sp.get(`${name}.startDate`) ?? undefined;
  const end = sp.get(`${name}[endDate]`) ?? sp.get(`${name}.endDate`) ?? undefined;
  return rangeOf(name, start, end);
}

function metaParams(sp: URLSearchParams): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of sp) {
    let metaKey: string | null = null;
    if (key.startsWith('meta.')) metaKey = key.slice(5);
    else if (/^meta\[[^\]]+\]$/.test(key)) metaKey = key.slice(5, -1);
    if (metaKey) out.push([metaKey, value]);
  }
  return out;
}

function dateFilter(sp: URLSearchParams, name: string): TimeRange | null {
  const raw = sp.get(name);
  if (raw === null || raw.trim() === '') return null;
  const value = maybeDecodeAgain(raw).trim();
  if (value.startsWith('{')) return dateObject(name, value);
  const parts = value.split(',');
  const day = /^\s*(\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4})\s*$/;
  const ok = (p: string | undefined) => p === undefined || p.trim() === '' || day.test(p);
  if (parts.length > 2 || !ok(parts[0]) || !ok(parts[1]) || (parts.length === 1 && !day.test(value))) {
    throw new QueryError(name, `The query parameter "${name}" must be a day (YYYY-MM-DD or DD-MM-YYYY), START,END with either side empty, or {"startDate","endDate"} (got "${raw.slice(0, 40)}").`);
  }
  if (parts.length === 1) return rangeOf(name, parts[0], parts[0]);
  return rangeOf(name, parts[0], parts[1]);
}

/**
 * Parses the §4.1 query.
 * @throws QueryError for a malformed value
 */
export function parseContactQuery(sp: URLSearchParams, maxPageSize: number): ContactQueryParams {
  const addressStatus = arrayParam(sp, 'addressStatus');
  if (addressStatus) {
    for (const s of addressStatus) {
      if (!ADDRESS_STATUSES.some((known) => known.toLowerCase() === s.toLowerCase())) {
        throw new QueryError('addressStatus', `addressStatus items must be ${ADDRESS_STATUSES.join(', ')} (got "${s.slice(0, 40)}").`);
      }
    }
  }
  return {
    page: intParam(sp, 'page', 0, 0),
    pageSize: Math.min(intParam(sp, 'pageSize', 10, 1), maxPageSize),
    search: textParam(sp, 'search'),
    addressStatus: addressStatus?.map((s) => s.toLowerCase()) ?? null,
    lastMailedStatus: arrayParam(sp, 'lastMailedStatus')?.map((s) => s.toLowerCase()) ?? null,
    lastMailedDate: lastMailedDateParam(sp),
    tags: arrayParam(sp, 'tags'),
    withPropertyAddresses: boolParam(sp, 'withPropertyAddresses') ?? false,
    isReturnAddress: boolParam(sp, 'isReturnAddress'),
    meta: metaParams(sp),
  };
}

/**
 * Parses the §4.2 query.
 * @throws QueryError for a malformed value or a missing page/pageSize
 */
export function parseOrderQuery(sp: URLSearchParams, maxPageSize: number): OrderQueryParams {
  const lower = (name: string) => arrayParam(sp, name)?.map((s) => s.toLowerCase()) ?? null;
  return {
    page: intParam(sp, 'page', null, 0),
    pageSize: Math.min(intParam(sp, 'pageSize', null, 1), maxPageSize),
    search: textParam(sp, 'search'),
    productTypes: lower('productTypes'),
    sources: lower('sources'),
    orderStatus: lower('orderStatus'),
    paymentStatus: lower('paymentStatus'),
    createdBy: arrayParam(sp, 'createdBy'),
    createdDate: dateFilter(sp, 'createdDate'),
    scheduledDate: dateFilter(sp, 'scheduledDate'),
    processingDate: dateFilter(sp, 'processingDate'),
    meta: metaParams(sp),
  };
}

function inRange(range: TimeRange, iso: string | null | undefined): boolean {
  if (!iso) return false;
  const ms = Date.parse(iso.length === 10 ? `${iso}T00:00:00.000Z` : iso);
  if (Number.isNaN(ms)) return false;
  return (range.from === null || ms >= range.from) && (range.to === null || ms <= range.to);
}

function metaMatches(meta: unknown, filters: [string, string][]): boolean {
  if (filters.length === 0) return true;
  if (typeof meta !== 'object' || meta === null) return false;
  const m = meta as Record<string, unknown>;
  return filters.every(([key, value]) => m[key] !== undefined && m[key] !== null && String(m[key]) === value);
}

/** True when the query has any filter (as opposed to paging only). */
export function hasContactFilter(q: ContactQueryParams): boolean {
  return !!(q.search || q.addressStatus || q.lastMailedStatus || q.lastMailedDate || q.tags || q.isReturnAddress !== null || q.meta.length);
}

/** True when the query has any filter. */
export function hasOrderFilter(q: OrderQueryParams): boolean {
  return !!(q.search || q.productTypes || q.sources || q.orderStatus || q.paymentStatus || q.createdBy || q.createdDate || q.scheduledDate || q.processingDate || q.meta.length);
}

/** A stable text key of the filters (not the paging) for result caching. */
export function filterKey(q: ContactQueryParams | OrderQueryParams): string {
  return JSON.stringify({ ...q, page: undefined, pageSize: undefined, withPropertyAddresses: undefined });
}

/**
 * The §4.1 filters: AND across parameters, OR within a list. `row` generates the record, and is
 * called only when a filter needs it (search, tags, meta), so hidden-state filters scan quickly.
 *  - addressStatus, lastMailedStatus (case-insensitive), lastMailedDate, isReturnAddress: the
 *    contact's hidden state (a contact never mailed matches no lastMailed filter);
 *  - search: case-insensitive substring of first/last/full name, company, email, phone or city;
 *  - tags: the contact has at least one of the label ids; meta.<key>: equals `meta[key]`.
 */
export function contactMatches(q: ContactQueryParams, hidden: ContactHidden, row: () => SampleContact): boolean {
  if (q.addressStatus && (hidden.addressStatus === null || !q.addressStatus.includes(hidden.addressStatus.toLowerCase()))) return false;
  if (q.lastMailedStatus && (hidden.lastMailedStatus === null || !q.lastMailedStatus.includes(hidden.lastMailedStatus.toLowerCase()))) return false;
  if (q.lastMailedDate && !inRange(q.lastMailedDate, hidden.lastMailedDate)) return false;
  if (q.isReturnAddress !== null && hidden.isReturnAddress !== q.isReturnAddress) return false;
  if (!q.tags && q.meta.length === 0 && !q.search) return true;
  const c = row();
  if (q.tags && !c.ContactLabels.some((l) => q.tags!.includes(l.id))) return false;
  if (!metaMatches(c.meta, q.meta)) return false;
  if (q.search) {
    const needle = q.search.toLowerCase();
    const hay = [c.firstName, c.lastName, c.fullName, c.companyName, c.email, c.phoneNo, c.city];
    if (!hay.some((h) => typeof h === 'string' && h.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/**
 * The §4.2 filters (formats in the module comment), AND across parameters, OR within a list,
 * text compared case-insensitively; `row` as for {@link contactMatches}:
 *  - sources, paymentStatus, createdBy, createdDate, processingDate: the order's hidden state;
 *  - orderStatus: the status name of the §2.3 `status` code (timeline.ts `SAMPLE_STATUS_CODES`:
 *    `MAILED` matches code 4), or the code itself as text (`4`); other text matches nothing;
 *  - productTypes: `product.productType`; scheduledDate: `campaign.deliveryDate` (null never
 *    matches); search: substring of the order id or the campaign name ("order name");
 *    meta.<key>: equals `meta[key]`.
 */
export function orderMatches(q: OrderQueryParams, hidden: OrderHidden, row: () => SampleOrder): boolean {
  if (q.sources && !q.sources.includes(hidden.source.toLowerCase())) return false;
  if (q.paymentStatus && !q.paymentStatus.includes(hidden.paymentStatus.toLowerCase())) return false;
  if (q.createdBy && !q.createdBy.includes(hidden.createdBy)) return false;
  if (q.createdDate && !inRange(q.createdDate, hidden.createdAt)) return false;
  if (q.processingDate && !inRange(q.processingDate, hidden.processedAt)) return false;
  if (!q.orderStatus && !q.productTypes && !q.scheduledDate && q.meta.length === 0 && !q.search) return true;
  const o = row();
  if (q.orderStatus) {
    const name = typeof o.status === 'number' ? sampleStatusName(o.status) : null;
    if (!q.orderStatus.includes(String(o.status)) && (name === null || !q.orderStatus.includes(name.toLowerCase()))) return false;
  }
  if (q.productTypes && !q.productTypes.includes(String(o.product?.productType).toLowerCase())) return false;
  if (q.scheduledDate && !inRange(q.scheduledDate, o.campaign?.deliveryDate)) return false;
  if (!metaMatches(o.meta, q.meta)) return false;
  if (q.search) {
    const needle = q.search.toLowerCase();
    if (!o.id.includes(needle) && !String(o.campaign?.name).toLowerCase().includes(needle)) return false;
  }
  return true;
}
