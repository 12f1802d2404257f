/**
 * The service's filters on the `contacts` and `orders` commands (shared/keptFilters.ts):
 * `--address-status Failed`, `--last-mailed-date 30d`, `--order-status ON_HOLD`, … Each value the
 * cache keeps is answered offline from its last read; any other value (a status the profile does
 * not keep, a range of days such as 2026-03-01..2026-03-31) is read from the service, and offline
 * it is a clear error with the service's exit code.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Profile } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { DATE_PRESETS, KEPT_PARAMS, keptValueName, type KeptSelection } from '../../../shared/keptFilters.ts';
import { MAX_QUERY_IDS, type ContactQuery, type OrderQuery } from '../../../shared/query.ts';
import { formatDateRange, type DateRange } from '../../../shared/serviceParams.ts';
import { parseServiceParams } from '../../../shared/serviceQuery.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../../shared/views.ts';
import { collect } from './args.ts';
import { withInterrupt, type CliContext } from './context.ts';

/** One option's value as parsed: kept-able values, or a range of days (never kept). */
type Wanted = { values: string[] } | { range: DateRange };

/** The commander attribute name of an option (`--last-mailed-date` → `lastMailedDate`). */
function attributeOf(option: string): string {
  return option.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A list value: one or more items, comma-separated. */
function listArg(value: string): Wanted {
  const values = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.length === 0) throw new InvalidArgumentError('give one or more values, comma-separated.');
  return { values };
}

/**
 * A parser of a date value of `param`: a preset (7d, 30d, 90d, this-year), or a range of days as
 * `--param` takes it (START..END, either end optional, or one day).
 */
function dateArg(resource: Resource, param: string): (value: string) => Wanted {
  return (value) => {
    const text = value.trim();
    if ((DATE_PRESETS as readonly string[]).includes(text)) return { values: [text] };
    try {
      return { range: (parseServiceParams(resource, [`${param}=${text}`]) as unknown as Record<string, DateRange>)[param]! };
    } catch (error) {
      if (!isLetterdeskError(error)) throw error;
      throw new InvalidArgumentError(`use ${DATE_PRESETS.join(', ')}, or a range: ${error.message}`);
    }
  };
}

/** A boolean value: yes or no. */
function booleanArg(value: string): Wanted {
  if (value !== 'yes' && value !== 'no') throw new InvalidArgumentError('use yes or no.');
  return { values: [value] };
}

/** Adds the service-filter options of `resource` to `cmd` (repeatable; lists also comma-separated). */
export function addKeptOptions(cmd: Command, resource: Resource): Command {
  for (const p of KEPT_PARAMS[resource]) {
    const known = p.known.length ? ` (${p.known.join(', ')}${p.open ? ', or any other' : ''})` : '';
    if (p.kind === 'list') cmd.option(`${p.option} <values>`, `${p.title}: any of these values${known}, as the service answered at the last sync (repeatable)`, collect(listArg));
    else if (p.kind === 'date') cmd.option(`${p.option} <when>`, `${p.title}: ${DATE_PRESETS.join(', ')} (kept offline) or START..END as YYYY-MM-DD (asks the service)`, collect(dateArg(resource, p.param)));
    else cmd.option(`${p.option} <yes|no>`, `${p.title}: yes or no`, collect(booleanArg));
  }
  return cmd;
}

/** Whether any service-filter option of `resource` was given. */
export function hasKeptOptions(resource: Resource, opts: Record<string, unknown>): boolean {
  return KEPT_PARAMS[resource].some((p) => opts[attributeOf(p.option)] !== undefined);
}

/**
 * `local` with the service-filter options of `opts` applied: the values the cache keeps (and has
 * read) as kept selections, every other value read from the service now and applied as the ids it
 * returned.
 * @returns the query, or null when the service returned nothing for the values it was asked
 * @throws LetterdeskError VALIDATION for two ranges of one parameter, or more matches than a
 *   query can name; the service's error (with its code) when a value that is not kept cannot be
 *   read, saying which value needed the service
 */
export async function withKeptOptions<Q extends ContactQuery | OrderQuery>(ctx: CliContext, profile: Profile, resource: Resource, opts: Record<string, unknown>, local: Q): Promise<Q | null> {
  const kept = (await ctx.core.caches.keptFilters(profile)).filter((k) => k.resource === resource && k.readAt !== null);
  const selections: KeptSelection[] = [];
  const live: ViewServiceQuery = {};
  const needsService: string[] = [];
  for (const p of KEPT_PARAMS[resource]) {
    const given = opts[attributeOf(p.option)] as Wanted[] | undefined;
    if (!given) continue;
    const values = given.flatMap((w) => ('values' in w ? w.values : []));
    const ranges = given.flatMap((w) => ('range' in w ? [w.range] : []));
    if (ranges.length > 1 || (ranges.length === 1 && values.length > 0)) throw new LetterdeskError('VALIDATION', `Give ${p.option} once with a range of days, or one or more presets.`);
    const isKept = (v: string) => kept.some((k) => k.param === p.param && k.value === v);
    if (ranges.length === 1) {
      live[p.param] = ranges[0] as ViewServiceQuery[string];
      needsService.push(`${p.option} ${formatDateRange(ranges[0]!)}`);
    } else if (values.every(isKept)) selections.push({ param: p.param, values: [...new Set(values)] });
    else if (p.kind === 'list') {
      live[p.param] = [...new Set(values)];
      needsService.push(`${p.option} ${values.filter((v) => !isKept(v)).map((v) => keptValueName(p.param, v)).join(', ')}`);
    } else throw notKept(p.option, values.filter((v) => !isKept(v)));
  }
  const query = { ...local, ...(selections.length ? { kept: [...(local.kept ?? []), ...selections] } : {}) } as Q;
  if (needsService.length === 0) return query;
  const ids = await liveIds(ctx, profile, resource, live, needsService);
  return ids.length === 0 ? null : ({ ...query, ids } as Q);
}

function notKept(option: string, values: string[]): LetterdeskError {
  return new LetterdeskError('VALIDATION', `${option} ${values.join(', ')} is not kept by this profile, and a preset or yes/no is only answered from the kept reads. Sync again to read it.`);
}

/**
 * The ids the service returns for `params`, read live with the sync's paging.
 * @throws the service's error, its message naming the options that needed the service
 */
async function liveIds(ctx: CliContext, profile: Profile, resource: Resource, params: ViewServiceQuery, needsService: readonly string[]): Promise<string[]> {
  let result;
  try {
    result = await withInterrupt((signal) => ctx.core.views.readLive(profile, resource, params, { signal }));
  } catch (error) {
    if (!isLetterdeskError(error)) throw error;
    throw new LetterdeskError(error.code, `${needsService.join('; ')}: not kept offline, so the service was asked, and ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`);
  }
  try {
    if (result.count > MAX_QUERY_IDS) throw new LetterdeskError('VALIDATION', `The service has ${result.count} ${resource} for ${needsService.join('; ')}; a listing can narrow to at most ${MAX_QUERY_IDS}. Add another filter.`);
    const ids: string[] = [];
    await result.cache.records(resource, { view: result.viewId }, MAX_QUERY_IDS, (raws) => {
      for (const raw of raws) ids.push(String((JSON.parse(raw) as { id: unknown }).id));
    });
    return ids;
  } finally {
    await result.close();
  }
}
