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
 *    takes Failed, Verified (§3) and Corrected (the service's documentation) only; `tags` takes
 *    label ids (§2.2: digits); the rest are free text: `orderStatus`, `paymentStatus` and `sources`
 *    have known values (shared/vocabularies.ts) but take any other, as §4.2 types them as strings;
 *  - date ranges (`lastMailedDate`; `createdDate`, `scheduledDate`, `processingDate`):
 *    `{ startDate?, endDate? }` as calendar days YYYY-MM-DD (checked against the calendar), at least
 *    one end, start not after end;
 *  - tri-state booleans (`withPropertyAddresses`, `isReturnAddress`): absent, true or false;
 *  - free text: `search` and `meta.<key>` (§4.1 names `meta.account_id`; §4.2 allows any key).
 */
import { z } from 'zod';
import { LetterdeskError } from './errors.ts';
import {
  ADDRESS_STATUSES,
  calendarDayProblem,
  isMetaParamName,
  MAX_LIST_ITEM as MAX_ITEM,
  MAX_LIST_ITEMS as MAX_ITEMS,
  MAX_META_KEYS,
  MAX_PARAM_TEXT as MAX_TEXT,
  SERVICE_PARAMS,
  serviceParamSpec,
  type ContactServiceQuery,
  type DateRange,
  type OrderServiceQuery,
  type ServiceParamSpec,
  type ServiceParamValue,
  type ServiceQueryOf,
  type ServiceResource,
} from './serviceParams.ts';
import { clip, describeIssues } from './zodIssues.ts';

// The parameter table and the pure rules (no zod) live in serviceParams.ts, which the page can load.
export * from './serviceParams.ts';

// ---------------------------------------------------------------------------------------------
// Calendar days
// ---------------------------------------------------------------------------------------------

/** A calendar day as YYYY-MM-DD; the message of a refusal says why ({@link calendarDayProblem}). */
export const calendarDaySchema = z.string().check((ctx) => {
  const problem = calendarDayProblem(ctx.value);
  if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

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
  addressStatus: z
    .array(z.enum(ADDRESS_STATUSES, { error: `an address status is ${ADDRESS_STATUSES.join(', ')}` }))
    .min(1, `give one or more of ${ADDRESS_STATUSES.join(', ')}, or leave the parameter out`)
    .max(ADDRESS_STATUSES.length, `at most ${ADDRESS_STATUSES.length} address statuses (${ADDRESS_STATUSES.join(', ')})`)
    .optional(),
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
// Names the table does not hold
// ---------------------------------------------------------------------------------------------

function unknownParamMessage(resource: ServiceResource, name: string): string {
  const rows = SERVICE_PARAMS[resource];
  const near = rows.find((p) => p.name.toLowerCase() === name.toLowerCase());
  const hint = near ? ` Did you mean "${near.name}"?` : name.startsWith('meta.') ? ' A meta key holds letters, digits, _ . or - (up to 64).' : '';
  return `unknown parameter "${clip(name, 60)}" for ${resource}.${hint} ${resource === 'contacts' ? 'Contacts' : 'Orders'} take ${rows.map((p) => p.name).join(', ')}`;
}

// ---------------------------------------------------------------------------------------------
// NAME=VALUE (the CLI's --param)
// ---------------------------------------------------------------------------------------------

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
 *   names the parameter and what it accepts ("addressStatus takes Failed, Verified, Corrected (comma-separated)")
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

