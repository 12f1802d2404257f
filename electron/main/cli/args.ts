/**
 * Argument parsers and the filter options the `contacts`, `orders` and `export` commands share.
 * commander calls the parsers; an InvalidArgumentError becomes a usage error (exit 2).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { LetterdeskError } from '../../../shared/errors.ts';
import { deliveredSinceStart } from '../../../shared/keptFilters.ts';
import { CONTACT_SORT_COLUMNS, ORDER_SORT_COLUMNS, RECORD_CHANGES, contactQuerySchema, orderQuerySchema, verifiedState, type ContactQuery, type OrderQuery, type RecordChange } from '../../../shared/query.ts';

/** A parser of a whole number from `min` to `max` for the option `name`. */
export function intArg(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max.toLocaleString('en-US')}.`);
    }
    return n;
  };
}

/** A parser of a rate from 0 to 1. */
export function rateArg(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('a rate is a number from 0 to 1 (0.1 = 10% of requests).');
  return n;
}

/** A parser of a repeatable option: each occurrence is parsed and appended. */
export function collect<T>(parse: (value: string) => T): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => [...(previous ?? []), parse(value)];
}

/** The identity parser (for `collect`). */
export const asText = (value: string): string => value;

/** A parser that accepts one of `allowed` (commander's `.choices` is not checked once an option has its own parser). */
export function oneOf(name: string, allowed: readonly string[]): (value: string) => string {
  return (value: string) => {
    if (!allowed.includes(value)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(', ')}.`);
    return value;
  };
}

/** A parser of `COLUMN` or `COLUMN:desc` with COLUMN one of `columns`. */
export function sortArg(columns: readonly string[]): (value: string) => { column: string; direction: 'asc' | 'desc' } {
  return (value: string) => {
    const [column = '', direction = 'asc', ...rest] = value.split(':');
    if (!columns.includes(column) || !['asc', 'desc'].includes(direction) || rest.length > 0) {
      throw new InvalidArgumentError(`use COLUMN or COLUMN:desc with COLUMN one of ${columns.join(', ')}.`);
    }
    return { column, direction: direction as 'asc' | 'desc' };
  };
}

/** A parser of `--changed`: a comma-separated list of added, changed, removed. */
export function changesArg(value: string): RecordChange[] {
  const kinds = value.split(',').map((k) => k.trim()).filter(Boolean);
  const wrong = kinds.filter((k) => !(RECORD_CHANGES as readonly string[]).includes(k));
  if (kinds.length === 0 || wrong.length > 0) throw new InvalidArgumentError(`use a comma-separated list of ${RECORD_CHANGES.join(', ')}${wrong.length ? ` (not ${wrong.join(', ')})` : ''}.`);
  return [...new Set(kinds)] as RecordChange[];
}

/** The filters both tables share, as commander parses them. */
interface RecordFilterOptions {
  /** `--invalid-only`: only records kept as invalid. */
  invalidOnly?: boolean;
  /** `--changed`: how the records changed in the last sync. */
  changed?: RecordChange[];
}

/** Adds `--invalid-only` and `--changed` (both tables) to `cmd`. */
function addRecordFilters(cmd: Command): Command {
  return cmd
    .option('--invalid-only', 'only records kept as invalid (they do not match the service’s description; kept with their reason)')
    .option('--changed <kinds>', `only records the last sync ${RECORD_CHANGES.join(', ')} (comma-separated; removed ones are their kept copies)`, changesArg);
}

/** The query fields of {@link addRecordFilters}' options. */
const recordFilters = (o: RecordFilterOptions): { invalidOnly?: true; changed?: RecordChange[] } => ({
  ...(o.invalidOnly ? { invalidOnly: true as const } : {}),
  ...(o.changed ? { changed: o.changed } : {}),
});

/** The contact filter options as commander parses them. */
export interface ContactFilterOptions extends RecordFilterOptions {
  search?: string;
  label?: string[];
  /** `--labels-all`: the contacts with every `--label`, not any of them. */
  labelsAll?: boolean;
  state?: string[];
  verified?: ('yes' | 'no' | 'unknown')[];
  /** `--mailed-at-least N`: contacts that N or more cached orders list. */
  mailedAtLeast?: number;
  /** `--never-mailed`: contacts no cached order lists. */
  neverMailed?: boolean;
  sort?: { column: string; direction: 'asc' | 'desc' };
}

/** The order filter options as commander parses them. */
export interface OrderFilterOptions extends RecordFilterOptions {
  search?: string;
  /** `--delivered-since`: 7d, 30d or a day YYYY-MM-DD (shared/keptFilters.ts `deliveredSinceStart`). */
  deliveredSince?: string;
  status?: number[];
  productType?: string[];
  sort?: { column: string; direction: 'asc' | 'desc' };
}

/** Adds `--search --label --labels-all --state --verified --mailed-at-least --never-mailed --invalid-only --changed --sort` (contacts) to `cmd`. */
export function addContactFilters(cmd: Command): Command {
  return addRecordFilters(cmd)
    .option('--search <q>', 'free-text search (names, company, email, phone, address, labels; prefix match)')
    .option('--label <id>', 'only contacts with this label id or title (repeatable: any of them)', collect(asText))
    .option('--labels-all', 'with several --label: only contacts with all of them')
    .option('--state <s>', 'only contacts in this state, full name (repeatable)', collect(asText))
    .addOption(
      new Option('--verified <v>', 'verified state: yes, no or unknown (repeatable)').argParser(
        collect((v: string) => {
          const parsed = verifiedState.safeParse(v);
          if (!parsed.success) throw new InvalidArgumentError('use yes, no or unknown.');
          return parsed.data;
        }),
      ),
    )
    .option('--mailed-at-least <n>', 'only contacts that at least n cached orders list as a recipient', intArg('--mailed-at-least', 1, 1_000_000))
    .option('--never-mailed', 'only contacts that no cached order lists as a recipient')
    .option('--sort <col[:desc]>', `sort column: ${CONTACT_SORT_COLUMNS.join(', ')}; add :desc to reverse`, sortArg(CONTACT_SORT_COLUMNS));
}

/** Adds `--search --status --product-type --invalid-only --changed --sort` (orders) to `cmd`. */
export function addOrderFilters(cmd: Command): Command {
  return addRecordFilters(cmd)
    .option('--search <q>', 'free-text search (order id, campaign, product, template, recipients)')
    .option('--status <n>', 'only orders with this status code (repeatable)', collect(intArg('--status', 0, 2 ** 31 - 1)))
    .option('--product-type <t>', 'only orders of this product type (repeatable)', collect(asText))
    .option('--delivered-since <7d|30d|YYYY-MM-DD>', 'only orders with a recipient a sync observed delivered in the last 7 or 30 local days, or since that local day (the observed history)', deliveredSinceArg)
    .option('--sort <col[:desc]>', `sort column: ${ORDER_SORT_COLUMNS.join(', ')}; add :desc to reverse`, sortArg(ORDER_SORT_COLUMNS));
}

/**
 * The contacts view query of the options.
 * @throws LetterdeskError VALIDATION when the query schema refuses them
 */
export function contactQuery(o: ContactFilterOptions): ContactQuery {
  if (o.neverMailed && o.mailedAtLeast !== undefined) throw new LetterdeskError('VALIDATION', 'Choose one of --never-mailed and --mailed-at-least: no contact is both.');
  const parsed = contactQuerySchema.safeParse({
    ...(o.search !== undefined ? { search: o.search } : {}),
    ...(o.label ? { labels: o.label } : {}),
    ...(o.labelsAll ? { labelsMode: 'all' } : {}),
    ...(o.state ? { states: o.state } : {}),
    ...(o.verified ? { verified: o.verified } : {}),
    ...(o.neverMailed || o.mailedAtLeast !== undefined ? { timesMailed: { ...(o.mailedAtLeast !== undefined ? { min: o.mailedAtLeast } : {}), ...(o.neverMailed ? { max: 0 } : {}) } } : {}),
    ...recordFilters(o),
    ...(o.sort ? { sort: o.sort } : {}),
  });
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `Invalid filter: ${parsed.error.issues[0]?.message ?? 'check the options'}.`);
  return parsed.data;
}

/**
 * The orders view query of the options.
 * @throws LetterdeskError VALIDATION when the query schema refuses them
 */
export function orderQuery(o: OrderFilterOptions): OrderQuery {
  const parsed = orderQuerySchema.safeParse({
    ...(o.search !== undefined ? { search: o.search } : {}),
    ...(o.status ? { statuses: o.status } : {}),
    ...(o.productType ? { productTypes: o.productType } : {}),
    ...(o.deliveredSince !== undefined ? { deliveredSince: o.deliveredSince } : {}),
    ...recordFilters(o),
    ...(o.sort ? { sort: o.sort } : {}),
  });
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `Invalid filter: ${parsed.error.issues[0]?.message ?? 'check the options'}.`);
  return parsed.data;
}

/** Checks `--delivered-since`: 7d, 30d or a day (counted in this computer's time zone when the query runs). */
function deliveredSinceArg(value: string): string {
  const spec = value.trim();
  if (deliveredSinceStart(spec, new Date()) === null) throw new InvalidArgumentError(`"${value}" is not 7d, 30d or a day written YYYY-MM-DD (e.g. 2026-11-01).`);
  return spec;
}

/**
 * Adds the filters of both tables to a command that serves either (`export`, `view add`): the
 * contact filters, `--status` and `--product-type`, and a `--sort` that knows both tables' columns
 * (checked per table by {@link localQueryFor}).
 */
export function addBothFilters(cmd: Command): Command {
  addContactFilters(cmd);
  cmd
    .option('--status <n>', 'orders/recipients: only orders with this status code (repeatable)', collect(intArg('--status', 0, 2 ** 31 - 1)))
    .option('--product-type <t>', 'orders/recipients: only orders of this product type (repeatable)', collect(asText));
  cmd.options.find((o) => o.long === '--sort')?.argParser(sortArg([...new Set<string>([...CONTACT_SORT_COLUMNS, ...ORDER_SORT_COLUMNS])]));
  return cmd;
}

/**
 * The local query of `table` from the options of {@link addBothFilters}.
 * @param what how the command names the kind in messages (`contacts`, `orders`, `recipients`)
 * @throws LetterdeskError VALIDATION when a filter of the other table is given
 */
export function localQueryFor(table: 'contacts' | 'orders', what: string, opts: ContactFilterOptions & OrderFilterOptions): ContactQuery | OrderQuery {
  if (table === 'contacts') {
    if (opts.status || opts.productType) throw new LetterdeskError('VALIDATION', '--status and --product-type filter orders; contacts take --search, --label, --state, --verified.');
    return contactQuery(opts);
  }
  if (opts.label || opts.labelsAll || opts.state || opts.verified) throw new LetterdeskError('VALIDATION', `--label, --labels-all, --state and --verified filter contacts; ${what} take --search, --status, --product-type.`);
  return orderQuery(opts);
}
