/**
 * The service query: every filter parameter of `service-api.md` §4.1 (contacts) and §4.2 (orders)
 * except `page` and `pageSize`, under the spec's own names, with their types. One definition for
 * the IPC contract, the saved views, the CLI's `--param NAME=VALUE`, the editor's form and the API
 * client, which puts it on the wire (electron/main/api/params.ts).
 *
 * Value types (docs/service-api-notes.md):
 *  - lists (`addressStatus`, `lastMailedStatus`, `tags`; `productTypes`, `sources`, `orderStatus`,
 *    `paymentStatus`, `createdBy`): non-empty arrays of non-empty strings without commas (the
 *    orders' lists travel comma-separated and the CLI separates items with commas). `addressStatus`
 *    takes Failed and Verified only (§3); `tags` takes label ids (§2.2: digits); the rest are free
 *    text, `orderStatus` included (§4.2 types it as a string);
 *  - date ranges (`lastMailedDate`; `createdDate`, `scheduledDate`, `processingDate`):
 *    `{ startDate?, endDate? }` as calendar days YYYY-MM-DD (checked against the calendar), at least
 *    one end, start not after end;
 *  - tri-state booleans (`withPropertyAddresses`, `isReturnAddress`): absent, true or false;
 *  - free text: `search` and `meta.<key>` (§4.1 names `meta.account_id`; §4.2 allows any key).
 */
import { z } from 'zod';
import { LetterdeskError } from './errors.ts';
import { clip, describeIssues } from './zodIssues.ts';

/** The two listings a service query runs against. */
export const SERVICE_RESOURCES = ['contacts', 'orders'] as const;
export type ServiceResource = (typeof SERVICE_RESOURCES)[number];

/** §3 contact address statuses: the whole vocabulary of `addressStatus`. */
export const ADDRESS_STATUSES = ['Failed', 'Verified'] as const;
export type AddressStatus = (typeof ADDRESS_STATUSES)[number];

/** §3 last-mailed statuses the spec names; it says further values exist, so any text is accepted. */
export const LAST_MAILED_STATUS_EXAMPLES = ['In Transit', 'Mailed', 'Scheduled'] as const;

const MAX_TEXT = 200;
const MAX_ITEM = 100;
const MAX_ITEMS = 100;
const MAX_META_KEYS = 20;

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

/** A calendar day as YYYY-MM-DD; the message of a refusal says why ({@link calendarDayProblem}). */
export const calendarDaySchema = z.string().check((ctx) => {
  const problem = calendarDayProblem(ctx.value);
  if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

/** A range of calendar days, both ends inclusive; either end may be left out, not both. */
export interface DateRange {
  startDate?: string;
  endDate?: string;
}

/** {@link DateRange}: at least one end, each a calendar day, start not after end. */
export const dateRangeSchema = z
  .object({ startDate: calendarDaySchema.optional(), endDate: calendarDaySchema.optional() })
  .strict()
  .check((ctx) => {
    const { startDate, endDate } = ctx.value;
    if (startDate === undefined && endDate === undefined) {
      ctx.issues.push({ code: 'custom', message: 'a date range needs a startDate, an endDate or both', input: ctx.value });
    } else if (startDate !== undefined && endDate !== undefined && startDate > endDate) {
      ctx.issues.push({ code: 'custom', message: `startDate ${startDate} is after endDate ${endDate}`, input: ctx.value });
    }
  });

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
  sources?: string[];
  /** Free text: §4.2 types it as a string (the §2.3 `status` codes are one possibility). */
  orderStatus?: string[];
  paymentStatus?: string[];
  createdDate?: DateRange;
  scheduledDate?: DateRange;
  processingDate?: DateRange;
  /** User ids. */
  createdBy?: string[];
  'meta.account_id'?: string;
  [name: MetaParamName]: string | undefined;
}

const textSchema = z.string().trim().min(1, 'must not be empty').max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`);
const itemSchema = z
  .string()
  .trim()
  .min(1, 'an item must not be empty')
  .max(MAX_ITEM, `an item must be at most ${MAX_ITEM} characters`)
  .refine((v) => !v.includes(','), 'an item cannot contain a comma (commas separate items)');
const listSchema = z.array(itemSchema).min(1, 'give at least one value, or leave the parameter out').max(MAX_ITEMS, `at most ${MAX_ITEMS} values`);
const labelIdsSchema = z
  .array(z.string().regex(/^\d{1,20}$/, 'a tag is a label id: digits (§2.2)'))
  .min(1, 'give at least one label id, or leave the parameter out')
  .max(MAX_ITEMS, `at most ${MAX_ITEMS} labels`);

const contactShape = {
  search: textSchema.optional(),
  addressStatus: z.array(z.enum(ADDRESS_STATUSES)).min(1, 'give Failed, Verified or both, or leave the parameter out').max(2).optional(),
  lastMailedStatus: listSchema.optional(),
  lastMailedDate: dateRangeSchema.optional(),
  tags: labelIdsSchema.optional(),
  withPropertyAddresses: z.boolean().optional(),
  isReturnAddress: z.boolean().optional(),
  'meta.account_id': textSchema.optional(),
};

const orderShape = {
  search: textSchema.optional(),
  productTypes: listSchema.optional(),
  sources: listSchema.optional(),
  orderStatus: listSchema.optional(),
  paymentStatus: listSchema.optional(),
  createdDate: dateRangeSchema.optional(),
  scheduledDate: dateRangeSchema.optional(),
  processingDate: dateRangeSchema.optional(),
  createdBy: listSchema.optional(),
  'meta.account_id': textSchema.optional(),
};

/** The named parameters of each resource (besides `meta.<key>`), in the spec's order. */
const NAMED: Record<ServiceResource, readonly string[]> = { contacts: Object.keys(contactShape), orders: Object.keys(orderShape) };

/** Checks the keys the shape does not name: each must be `meta.<key>` with a text value. */
function metaKeys(resource: ServiceResource) {
  return (ctx: z.core.ParsePayload<Record<string, unknown>>): void => {
    let metas = 0;
    for (const [key, value] of Object.entries(ctx.value)) {
      if (NAMED[resource].includes(key)) continue;
      if (value === undefined) {
        delete ctx.value[key]; // absent, as for the named parameters
        continue;
      }
      if (!isMetaParamName(key)) {
        ctx.issues.push({ code: 'custom', path: [key], message: unknownParamMessage(resource, key), input: value });
        continue;
      }
      metas++;
      const parsed = textSchema.safeParse(value);
      if (!parsed.success) ctx.issues.push({ code: 'custom', path: [key], message: `${key} takes text: ${parsed.error.issues[0]?.message ?? 'not text'}`, input: value });
      else ctx.value[key] = parsed.data;
    }
    if (metas > MAX_META_KEYS) ctx.issues.push({ code: 'custom', message: `at most ${MAX_META_KEYS} meta.<key> filters`, input: ctx.value });
  };
}

/** §4.1 filters ({@link ContactServiceQuery}); unknown names other than `meta.<key>` are refused. */
export const contactServiceQuerySchema: z.ZodType<ContactServiceQuery> = z
  .object(contactShape)
  .catchall(z.unknown())
  .check(metaKeys('contacts'))
  .transform((q) => q as ContactServiceQuery);

/** §4.2 filters ({@link OrderServiceQuery}); unknown names other than `meta.<key>` are refused. */
export const orderServiceQuerySchema: z.ZodType<OrderServiceQuery> = z
  .object(orderShape)
  .catchall(z.unknown())
  .check(metaKeys('orders'))
  .transform((q) => q as OrderServiceQuery);

/** A service query with the listing it runs against. */
export type ServiceQuery = { resource: 'contacts'; params: ContactServiceQuery } | { resource: 'orders'; params: OrderServiceQuery };

/** {@link ServiceQuery}, discriminated by `resource`. */
export const serviceQuerySchema: z.ZodType<ServiceQuery> = z.discriminatedUnion('resource', [
  z.object({ resource: z.literal('contacts'), params: contactServiceQuerySchema }).strict(),
  z.object({ resource: z.literal('orders'), params: orderServiceQuerySchema }).strict(),
]);

/** The query type of each resource. */
export type ServiceQueryOf<R extends ServiceResource> = R extends 'contacts' ? ContactServiceQuery : OrderServiceQuery;

/**
 * Validates a query for `resource` (trimming text) and returns it.
 * @throws LetterdeskError VALIDATION naming each parameter that is wrong and why
 */
export function checkServiceQuery<R extends ServiceResource>(resource: R, value: unknown): ServiceQueryOf<R> {
  const schema = resource === 'contacts' ? contactServiceQuerySchema : orderServiceQuerySchema;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `The ${resource} query is not valid: ${describeIssues(parsed.error)}.`);
  return parsed.data as ServiceQueryOf<R>;
}

// ---------------------------------------------------------------------------------------------
// How a query is sent (per profile)
// ---------------------------------------------------------------------------------------------

/**
 * How the client writes §4.1's list and date parameters (docs/service-api-notes.md):
 * `form` — `encoded`, percent-encoded quoted items and a percent-encoded JSON date object, or
 * `plain`, JSON text; `dateStyle` — `ymd` (2024-03-31) or `dmy` (31-03-2024) for every date sent.
 */
export const queryEncodingSchema = z.object({ form: z.enum(['encoded', 'plain']), dateStyle: z.enum(['ymd', 'dmy']) }).strict();
export type QueryEncoding = z.infer<typeof queryEncodingSchema>;

/** What a profile without the setting uses: the encoded form with year-month-day dates. */
export const DEFAULT_QUERY_ENCODING: Readonly<QueryEncoding> = Object.freeze({ form: 'encoded', dateStyle: 'ymd' });

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
  /** What `--param NAME=VALUE` takes, in words, e.g. "Failed, Verified (comma-separated)". */
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
    param('§4.2', 'sources', 'list', 'Where the order came from.'),
    param('§4.2', 'orderStatus', 'list', 'Order status.'),
    param('§4.2', 'paymentStatus', 'list', 'Payment status.'),
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

function unknownParamMessage(resource: ServiceResource, name: string): string {
  const rows = SERVICE_PARAMS[resource];
  const near = rows.find((p) => p.name.toLowerCase() === name.toLowerCase());
  const hint = near ? ` Did you mean "${near.name}"?` : name.startsWith('meta.') ? ' A meta key holds letters, digits, _ . or - (up to 64).' : '';
  return `unknown parameter "${clip(name, 60)}" for ${resource}.${hint} ${resource === 'contacts' ? 'Contacts' : 'Orders'} take ${rows.map((p) => p.name).join(', ')}`;
}

// ---------------------------------------------------------------------------------------------
// NAME=VALUE (the CLI's --param)
// ---------------------------------------------------------------------------------------------

/** A value of one parameter, as it sits in a query. */
export type ServiceParamValue = string | string[] | boolean | DateRange;

function refuse(spec: ServiceParamSpec, name: string, raw: string, why?: string): never {
  throw new LetterdeskError('VALIDATION', `${name} takes ${spec.accepts}; got "${clip(raw, 60)}"${why ? `: ${why}` : ''}.`);
}

function parseDateRange(spec: ServiceParamSpec, name: string, raw: string): DateRange {
  const v = raw.trim();
  const dots = v.indexOf('..');
  const [start, end] = dots < 0 ? [v, v] : [v.slice(0, dots).trim(), v.slice(dots + 2).trim()];
  if (start === '' && end === '') refuse(spec, name, raw, 'give at least one end');
  const range: DateRange = {};
  for (const [key, day] of [['startDate', start], ['endDate', end]] as const) {
    if (day === '') continue;
    const problem = calendarDayProblem(day);
    if (problem !== null) refuse(spec, name, raw, problem);
    range[key] = day;
  }
  if (range.startDate !== undefined && range.endDate !== undefined && range.startDate > range.endDate) refuse(spec, name, raw, 'the start is after the end');
  return range;
}

function parseValue(spec: ServiceParamSpec, name: string, raw: string): ServiceParamValue {
  switch (spec.kind) {
    case 'text':
    case 'meta': {
      const parsed = textSchema.safeParse(raw);
      if (!parsed.success) refuse(spec, name, raw, parsed.error.issues[0]?.message);
      return parsed.data;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === 'true') return true;
      if (v === 'false') return false;
      return refuse(spec, name, raw);
    }
    case 'dateRange':
      return parseDateRange(spec, name, raw);
    case 'list':
    case 'labelIds': {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (items.length === 0) refuse(spec, name, raw, 'no value');
      if (items.length > MAX_ITEMS) refuse(spec, name, raw, `at most ${MAX_ITEMS} values`);
      return items.map((item) => {
        if (spec.kind === 'labelIds' && !/^\d{1,20}$/.test(item)) refuse(spec, name, raw, `"${clip(item, 40)}" is not a label id; use the label's id, not its title`);
        if (item.length > MAX_ITEM) refuse(spec, name, raw, `an item is longer than ${MAX_ITEM} characters`);
        // Known values are written as the spec writes them ("in transit" → "In Transit").
        const known = spec.values.find((k) => k.toLowerCase() === item.toLowerCase());
        if (known !== undefined) return known;
        if (!spec.open) refuse(spec, name, raw, `"${clip(item, 40)}" is not one of them`);
        return item;
      });
    }
  }
}

/**
 * Parses one `NAME=VALUE` of the CLI's `--param` for `resource`: lists comma-separated
 * (`addressStatus=Failed,Verified`), date ranges `START..END` in YYYY-MM-DD with either end
 * optional (one date alone is that day), booleans `true`/`false`, `meta.<key>=text`.
 * @returns the parameter's name (as the spec spells it) and its value
 * @throws LetterdeskError VALIDATION for a missing `=`, an unknown name or a bad value; the message
 *   names the parameter and what it accepts ("addressStatus takes Failed, Verified (comma-separated)")
 */
export function parseServiceParam(resource: ServiceResource, text: string): { name: string; value: ServiceParamValue } {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new LetterdeskError('VALIDATION', `Write a service parameter as NAME=VALUE, e.g. addressStatus=Failed (got "${clip(text, 60)}").`);
  const name = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  const spec = serviceParamSpec(resource, name);
  if (spec === null) {
    const message = unknownParamMessage(resource, name);
    throw new LetterdeskError('VALIDATION', `${message.charAt(0).toUpperCase()}${message.slice(1)}.`);
  }
  return { name, value: parseValue(spec, name, raw) };
}

/**
 * Parses every `--param NAME=VALUE` of one command into a query for `resource`.
 * @throws LetterdeskError VALIDATION as {@link parseServiceParam}, and for a name given twice
 */
export function parseServiceParams<R extends ServiceResource>(resource: R, texts: readonly string[]): ServiceQueryOf<R> {
  const query: Record<string, ServiceParamValue> = {};
  for (const text of texts) {
    const { name, value } = parseServiceParam(resource, text);
    if (Object.hasOwn(query, name)) throw new LetterdeskError('VALIDATION', `${name} is given twice; give it once (lists take comma-separated values).`);
    query[name] = value;
  }
  return checkServiceQuery(resource, query);
}

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
  for (const name of NAMED[resource]) if (source[name] !== undefined) out[name] = source[name];
  for (const name of Object.keys(source).filter((k) => !NAMED[resource].includes(k) && source[k] !== undefined).sort()) out[name] = source[name];
  return out as ServiceQueryOf<R>;
}

/**
 * The query as `NAME=VALUE` texts that {@link parseServiceParams} reads back to the same query
 * (for `view list`, the editor's summary, and a command line to copy).
 */
export function formatServiceParams<R extends ServiceResource>(resource: R, query: ServiceQueryOf<R>): string[] {
  return Object.entries(canonicalServiceQuery(resource, query) as Record<string, ServiceParamValue>).map(([name, value]) => {
    if (Array.isArray(value)) return `${name}=${value.join(',')}`;
    if (typeof value === 'object') return `${name}=${formatDateRange(value)}`;
    return `${name}=${String(value)}`;
  });
}
