/**
 * The filter pane's groups of the kept service filters (shared/keptFilters.ts): Address status,
 * Last mailed date, Order status, Payment … each value with its count within the view, and a note
 * that says these answers are the service's, as of its last read ("From the service, as of
 * 10:42"; a date preset also says the day it was counted from, as it does not roll offline).
 */
import type { KeptFacet, KeptSelection } from '../../../shared/keptFilters.ts';
import type { FilterSection } from './facets.ts';
import { formatDate, formatWhen } from './format.ts';

/** The note under a kept group: when it was read, or why it has nothing yet. */
export function keptNote(facet: KeptFacet): string {
  const read = facet.options.map((o) => o.readAt).filter((t): t is string => t !== null).sort();
  if (read.length === 0) return 'Not read from the service yet: it is read after the next sync.';
  const failed = facet.options.some((o) => o.lastError !== null);
  const day = facet.kind === 'date' ? facet.options.map((o) => o.asOfDay).find((d) => d !== null) : null;
  const asOf = `From the service, as of ${formatWhen(read[0])}${day ? `; days counted to ${formatDate(day)}` : ''}.`;
  return failed ? `${asOf} The last read failed: these are the answers read before.` : asOf;
}

/** `selections` with `value` of `param` ticked or unticked; undefined when nothing is left. */
export function toggleKept(selections: readonly KeptSelection[] | undefined, param: string, value: string): KeptSelection[] | undefined {
  const own = selections?.find((s) => s.param === param)?.values ?? [];
  const values = own.includes(value) ? own.filter((v) => v !== value) : [...own, value];
  const rest = (selections ?? []).filter((s) => s.param !== param);
  const next = values.length > 0 ? [...rest, { param, values }] : rest;
  return next.length > 0 ? next : undefined;
}

/**
 * The groups of `facets` with their ticked values from `selections`; ticking calls `onchange`
 * with the new selections. A date group also offers "Custom range…", which calls `oncustom` with
 * the parameter and its heading (a range that is not kept asks the service).
 */
export function keptSections(
  facets: readonly KeptFacet[] | undefined,
  selections: readonly KeptSelection[] | undefined,
  onchange: (next: KeptSelection[] | undefined) => void,
  oncustom?: (param: string, title: string) => void,
): FilterSection[] {
  return (facets ?? []).map((f) => ({
    ...(f.kind === 'date' && oncustom ? { action: { label: 'Custom range…', run: () => oncustom(f.param, f.title) } } : {}),
    key: `kept.${f.param}`,
    title: f.title,
    options: f.options.map((o) => ({ value: o.value, label: o.label, count: o.count ?? 0 })),
    unknownCounts: f.options.filter((o) => o.count === null).map((o) => o.value),
    selected: selections?.find((s) => s.param === f.param)?.values ?? [],
    limit: 8,
    note: keptNote(f),
    toggle: (value) => onchange(toggleKept(selections, f.param, String(value))),
  }));
}
