/**
 * The kept filters' cost as the Profiles page says it ("about 150 requests · ≈ 2 min"), and the
 * draft of which values each filter keeps, compared with what the cache keeps.
 */
import { KEPT_PARAMS, keptParamCost, type KeptFilter, type KeptParamCost, type KeptParamSpec, type KeptSettings } from '../../../shared/keptFilters.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';

/** Seconds as the cost says them: "under 1 min", "≈ 4 min", "≈ 1 h 20 min". */
export function costDuration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes < 1) return 'under 1 min';
  if (minutes < 60) return `≈ ${minutes} min`;
  const rest = minutes % 60;
  return `≈ ${Math.floor(minutes / 60)} h${rest === 0 ? '' : ` ${rest} min`}`;
}

/** A parameter's (or a total's) cost per sync in words. */
export function costText(cost: KeptParamCost): string {
  if (cost.requests === null) return 'Cost known after the first sync';
  if (cost.requests === 0) return 'Nothing kept';
  const requests = `${cost.estimated ? 'about ' : ''}${cost.requests.toLocaleString()} ${cost.requests === 1 ? 'request' : 'requests'}`;
  return cost.seconds === null ? requests : `${requests} · ${costDuration(cost.seconds)}`;
}

/** Every parameter that can be kept, contacts' first, in the filter pane's order. */
export const KEPT_SPECS: readonly KeptParamSpec[] = [...KEPT_PARAMS.contacts, ...KEPT_PARAMS.orders];

/** The values `settings` keeps of `spec`'s parameter, as kept. */
export function keptOf(settings: KeptSettings, spec: KeptParamSpec): KeptFilter[] {
  return settings.kept.filter((k) => k.resource === spec.resource && k.param === spec.param);
}

/** The key of a parameter in a draft. */
export const draftKey = (resource: Resource, param: string): string => `${resource}.${param}`;

/** The values each parameter keeps in `settings`, by {@link draftKey}. */
export function draftOf(settings: KeptSettings): Record<string, string[]> {
  const draft: Record<string, string[]> = {};
  for (const p of KEPT_SPECS) draft[draftKey(p.resource, p.param)] = [];
  for (const k of settings.kept) draft[draftKey(k.resource, k.param)]?.push(k.value);
  return draft;
}

/** Whether `values` differs from what `settings` keeps for `param` (order aside). */
export function draftChanged(settings: KeptSettings, spec: KeptParamSpec, values: readonly string[]): boolean {
  const kept = keptOf(settings, spec).map((k) => k.value);
  return kept.length !== values.length || kept.some((v) => !values.includes(v));
}

/** The cost of keeping `values` of `spec`: a value kept already counts its last read. */
export function draftCost(settings: KeptSettings, spec: KeptParamSpec, values: readonly string[]): KeptParamCost {
  const read = new Map<string, KeptFilter>(keptOf(settings, spec).map((k) => [k.value, k]));
  return keptParamCost(spec, values.map((v) => ({ serverCount: read.get(v)?.serverCount ?? null })), settings.basis[spec.resource]);
}

/** The sum of several costs (unknown when any is). */
export function totalCost(costs: readonly KeptParamCost[]): KeptParamCost {
  if (costs.some((c) => c.requests === null)) return { requests: null, estimated: true, seconds: null };
  return {
    requests: costs.reduce((sum, c) => sum + c.requests!, 0),
    estimated: costs.some((c) => c.estimated),
    seconds: costs.some((c) => c.seconds === null && c.requests !== 0) ? null : costs.reduce((sum, c) => sum + (c.seconds ?? 0), 0),
  };
}
