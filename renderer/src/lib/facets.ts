/**
 * Filter options built from facet answers.
 */
import type { FacetOption } from '../../../shared/query.ts';

/** One group of checkable filter options with their counts (the filter pane draws them). */
export interface FilterSection {
  key: string;
  title: string;
  options: FacetOption<string | number>[];
  selected: readonly (string | number)[];
  /** Options shown before "Show all". */
  limit?: number;
  /** Option labels wrap onto more lines instead of ending in an ellipsis (a sentence, not a value). */
  wrap?: boolean;
  /** A short line under the options (where the counts come from, as of when). */
  note?: string;
  /** Toggles an option in place of the list's own (a yes/no filter such as "Only records kept as invalid"). */
  toggle?: (value: string | number) => void;
  /**
   * How the ticked options combine, when the person may choose: a row with any of them, or with
   * all of them (a label filter). Shown as a small Any / All toggle in the group.
   */
  mode?: { value: 'any' | 'all'; onchange: (mode: 'any' | 'all') => void };
  /** Values whose count is not known yet (a kept value never read from the service): shown as "—", not 0. */
  unknownCounts?: readonly (string | number)[];
  /** A link under the options that opens more than a tick can say ("Custom range…"). */
  action?: { label: string; run: () => void };
}

type Value = string | number;

/**
 * The options with one entry per value, in their first order. The cache can answer one value
 * twice (a field without a value and one with empty text both offer ""), and a filter offers each
 * value once, with the counts added up.
 */
export function uniqueOptions<V extends Value>(options: readonly FacetOption<V>[]): FacetOption<V>[] {
  const byValue = new Map<V, FacetOption<V>>();
  for (const o of options) {
    const seen = byValue.get(o.value);
    byValue.set(o.value, seen ? { ...seen, count: seen.count + o.count } : o);
  }
  return [...byValue.values()];
}

/**
 * The options plus each selected value they lack (count 0), so a filter the current result no
 * longer contains can still be unchecked.
 */
export function withSelected<V extends Value>(options: readonly FacetOption<V>[], selected: readonly V[]): FacetOption<V>[] {
  const present = new Set(options.map((o) => o.value));
  const missing = [...new Set(selected)].filter((v) => !present.has(v)).map((v) => ({ value: v, label: String(v), count: 0 }));
  return [...options, ...missing];
}

/**
 * The options in the order the person saw them before ticking one: facet counts change with every
 * ticked value (and the cache sorts by count), but an option must not jump away from under the
 * pointer. With nothing ticked the cache's order is taken as is; once something is ticked, options
 * keep their earlier places and new ones follow.
 * @param previous the values in the order shown last time (undefined the first time)
 * @returns the options in order, and the order to remember for next time
 */
export function stableOrder<V extends Value>(
  previous: readonly V[] | undefined,
  options: readonly FacetOption<V>[],
  selected: readonly V[],
): { options: FacetOption<V>[]; order: V[] } {
  if (selected.length === 0 || !previous) return { options: [...options], order: options.map((o) => o.value) };
  const byValue = new Map(options.map((o) => [o.value, o]));
  const out: FacetOption<V>[] = [];
  for (const v of previous) {
    const o = byValue.get(v);
    if (o) {
      out.push(o);
      byValue.delete(v);
    }
  }
  out.push(...byValue.values());
  return { options: out, order: out.map((o) => o.value) };
}
