/**
 * The filter groups both tables share: "Changed in the last sync" (added, changed, removed: the
 * query's `changed`) and "Only records kept as invalid" (the query's `invalidOnly`).
 */
import type { FacetOption, RecordChange } from '../../../shared/query.ts';
import type { FilterSection } from './facets.ts';

const CHANGE_LABEL: Record<RecordChange, string> = { added: 'Added', changed: 'Changed', removed: 'Removed' };
/** shared/query.ts `RECORD_CHANGES`, not imported: that module loads zod, which the page must not (its CSP refuses zod's eval check). */
const RECORD_CHANGES = Object.keys(CHANGE_LABEL) as RecordChange[];

/** What the two groups read from a view's facets and filters. */
interface Facets {
  changed: FacetOption<RecordChange>[];
  invalid: number;
}
interface Filters {
  changed?: RecordChange[];
  invalidOnly?: boolean;
}

/**
 * The two groups, each kind of change always offered (a count of 0 when the last sync had none).
 * @param setInvalidOnly turns the "kept as invalid" filter on or off
 */
export function recordFilterSections(facets: Facets | null, filters: Filters, setInvalidOnly: (on: boolean) => void): FilterSection[] {
  const counts = new Map((facets?.changed ?? []).map((o) => [o.value, o.count]));
  return [
    {
      key: 'changed',
      title: 'Changed in the last sync',
      // Before the first facet answer only the ticked kinds are listed (with their words, not their keys).
      options: RECORD_CHANGES.filter((value) => facets || filters.changed?.includes(value)).map((value) => ({ value, label: CHANGE_LABEL[value], count: counts.get(value) ?? 0 })),
      selected: filters.changed ?? [],
    },
    {
      key: 'invalidOnly',
      title: 'Kept as invalid',
      options: facets || filters.invalidOnly ? [{ value: 'yes', label: 'Only records kept as invalid', count: facets?.invalid ?? 0 }] : [],
      selected: filters.invalidOnly ? ['yes'] : [],
      wrap: true,
      toggle: () => setInvalidOnly(!filters.invalidOnly),
    },
  ];
}
