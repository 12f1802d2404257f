/**
 * The state behind one virtualized list view (contacts or orders): search text, filters, sort,
 * column widths, a small cache of row pages, the total, facets, the selection and the open detail.
 *
 * Queries never flicker: while a new search or filter is being answered, the old rows stay on screen
 * and are replaced in one step when the first page of the new result arrives.
 */
import type { RowCount, RowPage, RowWindow } from '../../../shared/query.ts';
import { errorText, toDisplayError, type DisplayError } from '../lib/api.ts';
import { loadSetting, profileKey, saveSetting } from '../lib/storage.ts';

/** Rows per page request. */
export const PAGE_SIZE = 100;
/** Pages kept in memory per view (least recently used are dropped). */
const MAX_PAGES = 60;
/** Search debounce in milliseconds. */
export const SEARCH_DEBOUNCE_MS = 120;

/** The calls a list view needs; the two views plug in their contract calls. */
export interface ListSource<Row, Query, Facets> {
  /** Which view: also the localStorage key of its settings. */
  name: 'contacts' | 'orders';
  page(query: Query, window: RowWindow): Promise<RowPage<Row>>;
  count(query: Query): Promise<RowCount>;
  facets(query: Query): Promise<Facets>;
}

/** Sort state of a view. */
export interface SortState<Column extends string> {
  column: Column;
  direction: 'asc' | 'desc';
}

interface Persisted<Filters, Column extends string> {
  filters: Filters;
  sort: SortState<Column> | null;
  widths: Record<string, number>;
}

/**
 * One list view's state.
 * @typeParam Filters the query minus `search` and `sort` (every field optional)
 */
export class ListModel<Row extends { id: string }, Filters extends object, Column extends string, Facets> {
  readonly source: ListSource<Row, Filters & { search?: string; sort?: SortState<Column> }, Facets>;

  /** Text in the search box (applied after the debounce). */
  searchText = $state('');
  /** The search the rows on screen answer. */
  appliedSearch = $state('');
  filters = $state.raw<Filters>({} as Filters);
  sort = $state.raw<SortState<Column> | null>(null);
  widths = $state<Record<string, number>>({});

  /** Row count of the result on screen; null before the first answer. */
  total = $state.raw<RowCount | null>(null);
  facets = $state.raw<Facets | null>(null);
  /** A query is being answered (old rows stay on screen meanwhile). */
  loading = $state(false);
  /** Why the last query failed, or null (the view shows its text and offers the action that fixes it). */
  failure = $state.raw<DisplayError | null>(null);
  /** Text of {@link failure}: what happened and what to do. */
  get error(): string | null {
    return this.failure ? errorText(this.failure) : null;
  }

  selectedIndex = $state(-1);
  /** Id of the record whose detail panel is open. */
  detailId = $state<string | null>(null);

  /** Bumped whenever rows arrive, so the table re-reads {@link rowAt}. */
  version = $state(0);
  /** Bumped when a new result replaces the old one: the table scrolls back to the top. */
  resetToken = $state(0);

  /** The query the next fetch sends (a plain object, safe to pass across IPC). */
  query = $derived.by(() => {
    const q: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.filters)) {
      if (v === undefined || v === null || v === '') continue;
      if (Array.isArray(v) && v.length === 0) continue;
      q[k] = Array.isArray(v) ? [...v] : v;
    }
    const search = this.appliedSearch.trim();
    if (search) q.search = search;
    if (this.sort) q.sort = { column: this.sort.column, direction: this.sort.direction };
    return q as Filters & { search?: string; sort?: SortState<Column> };
  });

  /** Number of active filters (not counting search). */
  activeFilterCount = $derived(
    Object.values(this.filters).filter((v) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)).length,
  );

  // Deliberately not reactive: the table re-reads rows when `version` changes, so one bump covers
  // a whole page instead of one signal per row.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #pages = new Map<number, Row[]>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #inflight = new Set<number>();
  #gen = 0;
  #debounce: ReturnType<typeof setTimeout> | undefined;
  #profileId: string | null = null;
  #visible: [number, number] = [0, 40];
  /** The open detail follows the selection onto a row whose page is still loading. */
  #followSelection = false;
  /** After the cache changed: the selected record, to select again where its page puts it now. */
  #reselectId: string | null = null;

  constructor(source: ListModel<Row, Filters, Column, Facets>['source']) {
    this.source = source;
  }

  /** Switches to a profile: loads its remembered filters, sort and widths, then queries. */
  useProfile(profileId: string | null): void {
    this.#profileId = profileId;
    const saved = loadSetting<Persisted<Filters, Column>>(profileKey(profileId, this.source.name), {
      filters: {} as Filters,
      sort: null,
      widths: {},
    });
    this.filters = (saved.filters ?? {}) as Filters;
    this.sort = saved.sort ?? null;
    this.widths = saved.widths ?? {};
    this.searchText = '';
    this.appliedSearch = '';
    this.detailId = null;
    this.selectedIndex = -1;
    this.#followSelection = false;
    this.#reselectId = null;
    this.total = null;
    this.facets = null;
    this.#pages.clear();
    this.version++;
    if (profileId) void this.refresh();
  }

  #persist(): void {
    saveSetting(profileKey(this.#profileId, this.source.name), {
      filters: $state.snapshot(this.filters),
      sort: this.sort,
      widths: $state.snapshot(this.widths),
    });
  }

  /** Updates the search box; the query runs after {@link SEARCH_DEBOUNCE_MS}. */
  setSearch(text: string): void {
    this.searchText = text;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      if (this.appliedSearch === this.searchText) return;
      this.appliedSearch = this.searchText;
      void this.refresh();
    }, SEARCH_DEBOUNCE_MS);
  }

  /** Applies the search box immediately (Enter in the box). */
  flushSearch(): void {
    clearTimeout(this.#debounce);
    if (this.appliedSearch === this.searchText) return;
    this.appliedSearch = this.searchText;
    void this.refresh();
  }

  /** Replaces one filter field (an empty list or undefined removes it). */
  setFilter<K extends keyof Filters>(key: K, value: Filters[K] | undefined): void {
    const next = { ...this.filters } as Filters;
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[key];
    else next[key] = value;
    this.filters = next;
    this.#persist();
    void this.refresh();
  }

  /** Adds or removes one value of a list filter. */
  toggleFilterValue<K extends keyof Filters>(key: K, value: unknown): void {
    const current = (this.filters[key] as unknown[] | undefined) ?? [];
    const next = current.includes(value) ? current.filter((v) => v !== value) : [...current, value];
    this.setFilter(key, next as Filters[K]);
  }

  /** Removes every filter and the search. */
  clearFilters(): void {
    this.filters = {} as Filters;
    this.searchText = '';
    this.appliedSearch = '';
    this.#persist();
    void this.refresh();
  }

  /** Click on a column header: ascending → descending → default order. */
  cycleSort(column: Column): void {
    if (!this.sort || this.sort.column !== column) this.sort = { column, direction: 'asc' };
    else if (this.sort.direction === 'asc') this.sort = { column, direction: 'desc' };
    else this.sort = null;
    this.#persist();
    void this.refresh();
  }

  /** Remembers a column width (px). */
  setWidth(key: string, width: number): void {
    this.widths[key] = Math.round(width);
    this.#persist();
  }

  /** The row at `index`, or undefined while its page is loading. Reactive via {@link version}. */
  rowAt(index: number): Row | undefined {
    void this.version;
    const page = this.#pages.get(Math.floor(index / PAGE_SIZE));
    return page?.[index % PAGE_SIZE];
  }

  /** The selected row, when loaded. */
  selectedRow = $derived.by(() => (this.selectedIndex >= 0 ? this.rowAt(this.selectedIndex) : undefined));

  /** The table reports its visible range; missing pages are fetched. */
  ensureRange(start: number, end: number): void {
    this.#visible = [start, end];
    const total = this.total?.count ?? 0;
    if (total === 0) return;
    const last = Math.min(end, total - 1);
    for (let p = Math.floor(Math.max(0, start) / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) {
      if (this.#pages.has(p) || this.#inflight.has(p)) continue;
      void this.#fetchPage(p, this.#gen);
    }
  }

  async #fetchPage(p: number, gen: number): Promise<void> {
    this.#inflight.add(p);
    try {
      const page = await this.source.page($state.snapshot(this.query) as typeof this.query, { offset: p * PAGE_SIZE, limit: PAGE_SIZE });
      if (gen !== this.#gen) return;
      this.#store(p, page.rows);
      if (page.total.exact || !this.total?.exact) this.total = page.total;
      // A page arrived, so reading works again: an earlier page's error no longer applies.
      this.failure = null;
      this.#placeSelection(p, page.rows);
      this.version++;
    } catch (error) {
      if (gen === this.#gen) this.failure = toDisplayError(error);
    } finally {
      if (gen === this.#gen) this.#inflight.delete(p);
    }
  }

  /** Resolves, with a page that arrived, a selection waiting for its row (see the two fields). */
  #placeSelection(p: number, rows: Row[]): void {
    if (this.#reselectId !== null) {
      const at = rows.findIndex((r) => r.id === this.#reselectId);
      if (at >= 0) {
        this.selectedIndex = p * PAGE_SIZE + at;
        this.#reselectId = null;
      }
    }
    if (this.#followSelection && this.detailId !== null) {
      const row = this.rowAt(this.selectedIndex);
      if (row) {
        this.detailId = row.id;
        this.#followSelection = false;
      }
    }
  }

  #store(p: number, rows: Row[]): void {
    this.#pages.delete(p);
    this.#pages.set(p, rows);
    while (this.#pages.size > MAX_PAGES) {
      const oldest = this.#pages.keys().next().value;
      if (oldest === undefined) break;
      this.#pages.delete(oldest);
    }
  }

  /**
   * Runs the current query. The old rows stay until the first page of the answer arrives.
   * @param keepPosition re-read the rows around the current scroll position (cache changed) instead
   *   of starting from the top
   */
  async refresh(keepPosition = false): Promise<void> {
    const gen = ++this.#gen;
    this.#inflight.clear();
    this.loading = true;
    const query = $state.snapshot(this.query) as typeof this.query;
    const firstPage = keepPosition ? Math.floor(this.#visible[0] / PAGE_SIZE) : 0;
    // The rows may have moved (a sync published new records): the selection stays on its record,
    // not on its old row number.
    const selectedId = keepPosition ? (this.#reselectId ?? this.selectedRow?.id ?? null) : null;
    try {
      const page = await this.source.page(query, { offset: firstPage * PAGE_SIZE, limit: PAGE_SIZE });
      if (gen !== this.#gen) return;
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      this.#pages = new Map([[firstPage, page.rows]]);
      this.total = page.total;
      this.failure = null;
      this.#followSelection = false;
      this.#reselectId = null;
      if (!keepPosition) {
        this.selectedIndex = -1;
        this.resetToken++;
      } else if (selectedId !== null) {
        // Until its page arrives (or for good, when it is gone) no row is highlighted.
        this.selectedIndex = -1;
        this.#reselectId = selectedId;
        this.#placeSelection(firstPage, page.rows);
      }
      this.version++;
      this.loading = false;
      this.ensureRange(keepPosition ? this.#visible[0] : 0, keepPosition ? this.#visible[1] : 60);
      if (!page.total.exact) void this.#exactCount(query, gen);
      void this.#loadFacets(query, gen);
    } catch (error) {
      if (gen !== this.#gen) return;
      this.loading = false;
      this.failure = toDisplayError(error);
    }
  }

  async #exactCount(query: typeof this.query, gen: number): Promise<void> {
    try {
      const count = await this.source.count(query);
      if (gen === this.#gen) this.total = count;
    } catch {
      // The lower bound stays on screen.
    }
  }

  async #loadFacets(query: typeof this.query, gen: number): Promise<void> {
    try {
      const facets = await this.source.facets(query);
      if (gen === this.#gen) this.facets = facets;
    } catch {
      // Facet counts are secondary; the filter options keep their last counts.
    }
  }

  /** Moves the selection by `delta` rows (clamped); opens the detail of the new row if one is open. */
  moveSelection(delta: number): void {
    const total = this.total?.count ?? 0;
    if (total === 0) return;
    const next = Math.max(0, Math.min(total - 1, (this.selectedIndex < 0 ? (delta > 0 ? -1 : total) : this.selectedIndex) + delta));
    this.select(next);
  }

  /** Selects a row; the open detail panel follows the selection. */
  select(index: number): void {
    this.selectedIndex = index;
    this.#reselectId = null;
    if (this.detailId !== null) {
      const row = this.rowAt(index);
      if (row) this.detailId = row.id;
      this.#followSelection = row === undefined;
    }
  }

  /** Opens the detail of the selected row (Enter). */
  openSelected(): void {
    const row = this.rowAt(this.selectedIndex);
    if (row) this.detailId = row.id;
  }

  /** Opens a record's detail by id (it need not be on screen). */
  openDetail(id: string): void {
    this.detailId = id;
    this.#followSelection = false;
  }

  closeDetail(): void {
    this.detailId = null;
    this.#followSelection = false;
  }
}
