/**
 * A list view's query: the search box and the search applied, the filters, the sort keys and the
 * saved view the list is limited to; the query they make; and the full list's own settings as
 * remembered per profile (filters, sort and column layout, never the search).
 */
import { MAX_THEN_BY } from '../../../../shared/queryLimits.ts';
import type { ViewLocalSettings } from '../../../../shared/views.ts';
import { normaliseLayout, type ColumnLayout } from '../../lib/columns.ts';
import { profileKey } from '../../lib/storage.ts';
import { Persisted } from '../persisted.svelte.ts';
import type { ListQueryShape, ListSource, SortState } from './types.ts';

/** The full list's settings as stored under `profile:<id>:<view>` (written by any version). */
interface Remembered<Filters, Column extends string> {
  filters: Filters;
  sort: SortState<Column> | null;
  thenBy?: SortState<Column>[];
  layout?: unknown;
  /** Column widths as remembered before layouts existed. */
  widths?: Record<string, number>;
}

/** One list view's query state. */
export class ListQuery<Filters extends object, Column extends string> {
  readonly #source: ListSource<unknown, unknown, unknown, Filters>;
  readonly #remembered: Persisted<Remembered<Filters, Column>>;

  /** Text in the search box (applied at once by the list). */
  searchText = $state('');
  /** The search the rows on screen answer. */
  appliedSearch = $state('');
  filters = $state.raw<Filters>({} as Filters);
  sort = $state.raw<SortState<Column> | null>(null);
  /** Further sort keys (Shift+click on a header), applied in turn among rows the keys before leave equal. */
  thenBy = $state.raw<SortState<Column>[]>([]);
  /**
   * The saved view the list is limited to (its members; every record for a view without a service
   * query), or null. Changes made while it is open are not remembered for the full list.
   */
  viewId = $state<string | null>(null);
  /** The open view's settings as saved (JSON with sorted keys), to tell when the list differs from them. */
  savedSettings = $state<string | null>(null);

  /** Filter values that cannot match as they stand, or null. */
  filterProblem = $derived.by(() => this.#source.check?.(this.filters) ?? null);

  /** The query the next fetch sends (a plain object, safe to pass across IPC). */
  query = $derived.by(() => {
    const q: Record<string, unknown> = {};
    const dropped: PropertyKey[] = this.filterProblem?.drop ?? [];
    for (const [k, v] of Object.entries(this.filters)) {
      if (v === undefined || v === null || v === '' || dropped.includes(k)) continue;
      if (Array.isArray(v) && v.length === 0) continue;
      q[k] = Array.isArray(v) ? [...v] : v;
    }
    const search = this.appliedSearch.trim();
    if (search) q.search = search;
    if (this.sort) q.sort = { column: this.sort.column, direction: this.sort.direction };
    if (this.sort && this.thenBy.length > 0) q.thenBy = this.thenBy.map((k) => ({ column: k.column, direction: k.direction }));
    if (this.viewId !== null) q.view = this.viewId;
    return q as ListQueryShape<Filters, Column>;
  });

  /** Number of active filters (not counting search). */
  activeFilterCount = $derived(
    Object.entries(this.filters).filter(([k, v]) => !this.#source.modeKeys?.includes(k as keyof Filters & string) && v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)).length,
  );

  constructor(source: ListSource<unknown, unknown, unknown, Filters>) {
    this.#source = source;
    this.#remembered = new Persisted<Remembered<Filters, Column>>(profileKey(null, source.name), () => ({ filters: {} as Filters, sort: null }));
  }

  /** Every sort key in order: the first, then {@link thenBy} (empty for the default order). */
  get sortKeys(): SortState<Column>[] {
    return this.sort ? [this.sort, ...this.thenBy] : [];
  }

  /** A snapshot of {@link query} (safe to pass across IPC). */
  snapshotQuery(): ListQueryShape<Filters, Column> {
    return $state.snapshot(this.query) as ListQueryShape<Filters, Column>;
  }

  /**
   * Reads a profile's remembered filters and sort (again) and applies them with no search.
   * @returns the column layout remembered with them
   */
  recall(profileId: string | null): ColumnLayout {
    this.#remembered.use(profileKey(profileId, this.#source.name));
    const saved = this.#remembered.current;
    this.filters = (saved.filters ?? {}) as Filters;
    this.sort = saved.sort ?? null;
    this.thenBy = validKeys(saved.thenBy);
    this.searchText = '';
    this.appliedSearch = '';
    return normaliseLayout(saved.layout ?? { widths: saved.widths ?? {}, hidden: this.#source.defaultHidden ?? [] });
  }

  /** Remembers the full list's filters, sort and `layout`; a saved view's settings change only when the person saves them to it. */
  remember(layout: ColumnLayout): void {
    if (this.viewId !== null) return;
    this.#remembered.current = { filters: $state.snapshot(this.filters) as Filters, sort: this.sort, thenBy: this.thenBy, layout };
  }

  /** Replaces one filter field (an empty list or undefined removes it). */
  setFilter<K extends keyof Filters>(key: K, value: Filters[K] | undefined): void {
    const next = { ...this.filters } as Filters;
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[key];
    else next[key] = value;
    this.filters = next;
  }

  /**
   * Click on a column header: ascending → descending → default order, by this column alone. After
   * a multi-column sort a click on one of its keys sorts by that column alone, reversed.
   * With `add` (Shift+click) the column becomes the next sort key instead (at most
   * {@link MAX_THEN_BY} after the first; the last one is replaced when full), or, already a key,
   * turns ascending → descending → off, keeping the other keys.
   */
  cycleSort(column: Column, add: boolean): void {
    if (!add || !this.sort) {
      const key = this.sortKeys.find((k) => k.column === column);
      if (!key) this.sort = { column, direction: 'asc' };
      else if (key.direction === 'asc') this.sort = { column, direction: 'desc' };
      else this.sort = this.thenBy.length > 0 ? { column, direction: 'asc' } : null;
      this.thenBy = [];
    } else if (this.sort.column === column) {
      if (this.sort.direction === 'asc') this.sort = { column, direction: 'desc' };
      else {
        // The first key goes; the next one takes its place.
        const [next, ...rest] = this.thenBy;
        this.sort = next ?? null;
        this.thenBy = rest;
      }
    } else {
      const at = this.thenBy.findIndex((k) => k.column === column);
      const key = this.thenBy[at];
      if (!key) this.thenBy = [...this.thenBy.slice(0, MAX_THEN_BY - 1), { column, direction: 'asc' }];
      else if (key.direction === 'asc') this.thenBy = this.thenBy.map((k, i) => (i === at ? { column, direction: 'desc' } : k));
      else this.thenBy = this.thenBy.filter((_, i) => i !== at);
    }
  }

  /**
   * Limits the query to a saved view and applies its settings' search, filters and sort (as far as
   * they are understood: settings written by another version may have unknown fields).
   */
  applyView(id: string, settings: ViewLocalSettings): void {
    const query = (typeof settings.query === 'object' && settings.query !== null && !Array.isArray(settings.query) ? settings.query : {}) as Record<string, unknown>;
    const filters: Record<string, unknown> = {};
    for (const key of this.#source.filterKeys) if (query[key] !== undefined && query[key] !== null) filters[key] = query[key];
    const sort = query.sort as Partial<SortState<Column>> | undefined;
    this.viewId = id;
    this.filters = filters as Filters;
    this.sort = sort && typeof sort.column === 'string' && (sort.direction === 'asc' || sort.direction === 'desc') ? { column: sort.column, direction: sort.direction } : null;
    this.thenBy = this.sort ? validKeys(query.thenBy) : [];
    this.searchText = typeof query.search === 'string' ? query.search : '';
    this.appliedSearch = this.searchText;
  }
}

/** Sort keys as kept in settings (written by any version): the well-formed ones, at most {@link MAX_THEN_BY}. */
function validKeys<Column extends string>(value: unknown): SortState<Column>[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((k): k is SortState<Column> => typeof k === 'object' && k !== null && typeof k.column === 'string' && (k.direction === 'asc' || k.direction === 'desc'))
    .slice(0, MAX_THEN_BY)
    .map((k) => ({ column: k.column, direction: k.direction }));
}
