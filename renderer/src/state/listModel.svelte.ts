/**
 * The state behind one virtualized list view (contacts or orders): search text, filters, sort, the
 * column layout, a small cache of row pages, the total, facets, the selection and the open detail;
 * and the saved view it is limited to, if any (its members, with its own settings applied).
 *
 * Queries never flicker: while a new search or filter is being answered, the old rows stay on screen
 * and are replaced in one step when the first page of the new result arrives. What the person does
 * with the keyboard meanwhile waits for that page and then acts on the new rows ({@link act}).
 *
 * A search is sent as it is typed, without waiting for the typing to pause. Each list keeps at most
 * one first-page read out at a time: a query asked meanwhile waits for it, a query superseded
 * while waiting is never sent, and an answer to a superseded query is dropped. The counts that
 * follow a result (facets, the exact total) go out only once it has stayed current for a moment,
 * so the database worker never works through a queue of searches nobody looks at any more.
 */
import { MAX_THEN_BY } from '../../../shared/queryLimits.ts';
import type { RowCount, RowPage, RowWindow } from '../../../shared/query.ts';
import type { ViewLocalSettings } from '../../../shared/views.ts';
import { errorText, toDisplayError, type DisplayError } from '../lib/api.ts';
import { clampWidth, defaultLayout, normaliseLayout, type ColumnLayout } from '../lib/columns.ts';
import { ALL, count, has, isOpenEnded, NONE, span, toggle, union, windows, type RowSelection } from '../lib/selection.ts';
import { loadSetting, profileKey, saveSetting } from '../lib/storage.ts';

/** Rows per page request. */
export const PAGE_SIZE = 100;
/** Pages kept in memory per view (least recently used are dropped). */
const MAX_PAGES = 60;
/**
 * Reads of rows on screen a view keeps out at once. While the table scrolls faster than the
 * answers come, the next read asks for what is on screen when the last one answers, not for every
 * page scrolled past.
 */
const PAGE_READS_OUT = 1;
/**
 * Milliseconds a result must stay current before its facet counts and exact total are asked for:
 * longer than the time between two keys of someone typing, so typing asks for none of them.
 */
export const SECONDARY_DELAY_MS = 250;
/** Most rows one read of a selection asks the cache for (the contract's window limit). */
export const READ_CHUNK = 1000;
/** Windows of a selection read ahead while the previous one is handed on. */
const READ_AHEAD = 3;
/** How far into the result a followed link looks for its record before narrowing the view. */
const REVEAL_SCAN = 5000;

/** The calls a list view needs; the two views plug in their contract calls. */
export interface ListSource<Row, Query, Facets, Filters> {
  /** Which view: also the localStorage key of its settings. */
  name: 'contacts' | 'orders';
  page(query: Query, window: RowWindow): Promise<RowPage<Row>>;
  count(query: Query): Promise<RowCount>;
  facets(query: Query): Promise<Facets>;
  /**
   * Filters that cannot match anything by their nature (a date range that ends before it starts):
   * what to tell the person and which filter fields to leave out of the query meanwhile.
   */
  check?(filters: Filters): FilterProblem<Filters> | null;
  /** The query's filter fields: what a saved view's settings may set (anything else in them is ignored). */
  filterKeys: readonly (keyof Filters & string)[];
  /** Filter fields that say how another filter combines (labels: any or all), not filters of their own: never counted as active. */
  modeKeys?: readonly (keyof Filters & string)[];
}

/**
 * A saved view's local settings as the list keeps them (shared/views.ts `ViewLocalSettings`): the
 * list's query without `view` — search, filters, sort, as the command line's `--view` reads it —
 * and the column layout.
 */
export interface ListSettings {
  query: Record<string, unknown>;
  layout: ColumnLayout;
}

/** Filter values that cannot be meant as they stand. */
export interface FilterProblem<Filters> {
  message: string;
  /** Fields left out of the query until they are fixed. */
  drop: (keyof Filters)[];
}

/** Sort state of a view. */
export interface SortState<Column extends string> {
  column: Column;
  direction: 'asc' | 'desc';
}

/** How a key press or click moves the current row: alone, extending the selection, or without selecting. */
export type CursorMode = 'select' | 'extend' | 'move';

/** Where the table should scroll: a row at the top, at the nearest edge, or in the middle. */
export interface ScrollRequest {
  index: number;
  align: 'top' | 'nearest' | 'center';
}

/**
 * Where a person was in a view: what Back returns to. Plain data (the selection's open end is
 * `Infinity`, so it is kept in memory, not serialised).
 */
export interface ListSnapshot<Filters, Column extends string> {
  searchText: string;
  filters: Filters;
  sort: SortState<Column> | null;
  thenBy: SortState<Column>[];
  selection: RowSelection;
  anchor: number;
  cursor: number;
  detailId: string | null;
  /** The scroll position: the row at the top of the table, with the fraction of it scrolled past. */
  top: number;
  /** The saved view the list was limited to, or null. */
  viewId: string | null;
  layout: ColumnLayout;
  /** The settings that view had when it was opened or last saved (JSON), or null. */
  savedSettings: string | null;
}

interface Persisted<Filters, Column extends string> {
  filters: Filters;
  sort: SortState<Column> | null;
  thenBy?: SortState<Column>[];
  layout?: unknown;
  /** Column widths as remembered before layouts existed. */
  widths?: Record<string, number>;
}

/**
 * One list view's state.
 * @typeParam Filters the query minus `search` and `sort` (every field optional)
 */
export class ListModel<Row extends { id: string }, Filters extends object, Column extends string, Facets> {
  readonly source: ListSource<Row, Filters & { search?: string; sort?: SortState<Column> }, Facets, Filters>;

  /** Text in the search box (applied at once, see {@link setSearch}). */
  searchText = $state('');
  /** The search the rows on screen answer. */
  appliedSearch = $state('');
  filters = $state.raw<Filters>({} as Filters);
  sort = $state.raw<SortState<Column> | null>(null);
  /** Further sort keys (Shift+click on a header), applied in turn among rows the keys before leave equal. */
  thenBy = $state.raw<SortState<Column>[]>([]);
  /** Which columns show, in which order and width. */
  layout = $state.raw<ColumnLayout>(defaultLayout());
  /**
   * The saved view the list is limited to (its members; every record for a view without a service
   * query), or null. Changes made while it is open are not remembered for the full list.
   */
  viewId = $state<string | null>(null);
  /** The open view's settings as saved (JSON with sorted keys), to tell when the list differs from them. */
  #savedSettings = $state<string | null>(null);

  /** Row count of the result on screen; null before the first answer. */
  total = $state.raw<RowCount | null>(null);
  facets = $state.raw<Facets | null>(null);
  /** The facet counts belong to the result on screen (false while a new result's counts are read). */
  facetsCurrent = $state(true);
  /** A query is being answered (old rows stay on screen meanwhile). */
  loading = $state(false);
  /** Why the last query failed, or null (the view shows its text and offers the action that fixes it). */
  failure = $state.raw<DisplayError | null>(null);
  /** Text of {@link failure}: what happened and what to do. */
  get error(): string | null {
    return this.failure ? errorText(this.failure) : null;
  }

  /** The current row (keyboard focus inside the table), or -1. */
  cursor = $state(-1);
  /** Where Shift+click and Shift+arrows extend the selection from. */
  anchor = $state(-1);
  /** The selected rows, by index in the result. */
  selection = $state.raw<RowSelection>(NONE);
  /** Id of the record whose detail panel is open. */
  detailId = $state<string | null>(null);

  /** Bumped whenever rows arrive, so the table re-reads {@link rowAt}. */
  version = $state(0);
  /** Where the table should scroll next (a new object each time). */
  scrollRequest = $state.raw<ScrollRequest | null>(null);

  /** Filter values that cannot match as they stand, or null. */
  filterProblem = $derived.by(() => this.source.check?.(this.filters) ?? null);

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
    return q as Filters & { search?: string; sort?: SortState<Column>; thenBy?: SortState<Column>[] };
  });

  /** The list's settings differ from those its open saved view was saved with. */
  settingsChanged = $derived(this.viewId !== null && this.#savedSettings !== null && stableJson(this.settings()) !== this.#savedSettings);

  /** Number of active filters (not counting search). */
  activeFilterCount = $derived(
    Object.entries(this.filters).filter(([k, v]) => !this.source.modeKeys?.includes(k as keyof Filters & string) && v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)).length,
  );

  /** Rows selected (with an open-ended selection, counted against the total on screen). */
  selectedCount = $derived(count(this.selection, this.total?.count ?? 0));

  // Deliberately not reactive: the table re-reads rows when `version` changes, so one bump covers
  // a whole page instead of one signal per row.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #pages = new Map<number, Row[]>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #inflight = new Set<number>();
  /** Reads of {@link ensureRange}'s pages out for the current result. */
  #pageReads = 0;
  #gen = 0;
  /** Settles when the first-page read that is out (one per list) has its answer; null when none is out. */
  #firstRead: Promise<void> | null = null;
  /** The next refresh only changes the sort: the facet counts and the exact total stay what they are. */
  #sortOnly = false;
  /** The query, without its sort, whose facet counts are on screen (null after any other change). */
  #facetsFor: string | null = null;
  /** The exact total of that query, once counted. */
  #exactFor: { key: string; total: RowCount } | null = null;
  #profileId: string | null = null;
  #visible: [number, number] = [0, 40];
  #top = 0;
  /** The open detail follows the selection onto a row whose page is still loading. */
  #followSelection = false;
  /** After the cache changed: the current record, to select again where its page puts it now. */
  #reselectId: string | null = null;
  /** A new result's first page is on its way. */
  #pendingResult = false;
  /** Actions that wait for the new result, in the order they came. */
  #queued: (() => void)[] = [];
  /** Resolvers of {@link whenSettled}. */
  #settledWaiters: (() => void)[] = [];
  /** End was pressed while the total was a lower bound: the last row is selected once it is counted. */
  #endWanted: CursorMode | null = null;

  constructor(source: ListModel<Row, Filters, Column, Facets>['source']) {
    this.source = source;
  }

  /** Switches to a profile: loads its remembered filters, sort and layout, then queries. */
  useProfile(profileId: string | null): void {
    this.#profileId = profileId;
    this.viewId = null;
    this.#savedSettings = null;
    this.#loadRemembered();
    this.detailId = null;
    this.#clearSelection();
    this.#followSelection = false;
    this.#reselectId = null;
    this.total = null;
    this.facets = null;
    this.#pages.clear();
    this.#queued = [];
    this.version++;
    if (profileId) void this.refresh();
  }

  /** The full list's remembered filters, sort and layout, and no search. */
  #loadRemembered(): void {
    const saved = loadSetting<Persisted<Filters, Column>>(profileKey(this.#profileId, this.source.name), { filters: {} as Filters, sort: null });
    this.filters = (saved.filters ?? {}) as Filters;
    this.sort = saved.sort ?? null;
    this.thenBy = validKeys(saved.thenBy);
    this.layout = normaliseLayout(saved.layout ?? { widths: saved.widths ?? {} });
    this.searchText = '';
    this.appliedSearch = '';
  }

  /** A new result is on its way (search typed, query sent): key presses wait for it. */
  get #awaiting(): boolean {
    return this.#pendingResult;
  }

  #persist(): void {
    // A saved view's settings change only when the person saves them to it.
    if (this.viewId !== null) return;
    saveSetting(profileKey(this.#profileId, this.source.name), {
      filters: $state.snapshot(this.filters),
      sort: this.sort,
      thenBy: this.thenBy,
      layout: this.layout,
    });
  }

  // ---- search, filters, sort ----------------------------------------------------------------

  /**
   * Updates the search box and asks for its result at once; a search typed on while it is being
   * answered supersedes it ({@link refresh}).
   */
  setSearch(text: string): void {
    this.searchText = text;
    this.flushSearch();
  }

  /** Applies the search box (Enter in the box; {@link setSearch} does on every change). */
  flushSearch(): void {
    if (this.appliedSearch === this.searchText) {
      this.#settle();
      return;
    }
    this.appliedSearch = this.searchText;
    void this.refresh();
  }

  /** Sets the search and applies it at once (a link, "Search for this value"). */
  searchFor(text: string): Promise<void> {
    this.searchText = text;
    this.appliedSearch = text;
    return this.refresh();
  }

  /** Replaces one filter field (an empty list or undefined removes it). */
  setFilter<K extends keyof Filters>(key: K, value: Filters[K] | undefined): Promise<void> {
    const next = { ...this.filters } as Filters;
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[key];
    else next[key] = value;
    this.filters = next;
    this.#persist();
    return this.refresh();
  }

  /** Adds or removes one value of a list filter. */
  toggleFilterValue<K extends keyof Filters>(key: K, value: unknown): void {
    const current = (this.filters[key] as unknown[] | undefined) ?? [];
    const next = current.includes(value) ? current.filter((v) => v !== value) : [...current, value];
    void this.setFilter(key, next as Filters[K]);
  }

  /** Replaces the filters and the search at once (a followed link's scope). */
  setScope(filters: Filters, search = ''): Promise<void> {
    this.filters = filters;
    this.searchText = search;
    this.appliedSearch = search;
    this.#persist();
    return this.refresh();
  }

  /** Removes every filter and the search. */
  clearFilters(): void {
    void this.setScope({} as Filters);
  }

  /**
   * Click on a column header: ascending → descending → default order, by this column alone.
   * With `add` (Shift+click) the column becomes the next sort key instead (at most
   * {@link MAX_THEN_BY} after the first; the last one is replaced when full), or, already a key,
   * turns ascending → descending → off, keeping the other keys.
   */
  cycleSort(column: Column, add = false): void {
    if (!add || !this.sort) {
      if (!this.sort || this.sort.column !== column || this.thenBy.length > 0) this.sort = { column, direction: 'asc' };
      else if (this.sort.direction === 'asc') this.sort = { column, direction: 'desc' };
      else this.sort = null;
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
    this.#persist();
    void this.refresh();
  }

  /** Every sort key in order: the first, then {@link thenBy} (empty for the default order). */
  get sortKeys(): SortState<Column>[] {
    return this.sort ? [this.sort, ...this.thenBy] : [];
  }

  /** Sorts by one column alone, in a direction (the header menu's sort choices). */
  setSort(column: Column, direction: 'asc' | 'desc'): void {
    this.sort = { column, direction };
    this.thenBy = [];
    this.#persist();
    this.#sortOnly = true;
    void this.refresh();
  }

  // ---- saved views --------------------------------------------------------------------------

  /** The list's settings as a saved view keeps them: its query without `view`, and its column layout. */
  settings(): ListSettings {
    const query: Record<string, unknown> = { ...($state.snapshot(this.query) as Record<string, unknown>) };
    delete query.view;
    return { query, layout: $state.snapshot(this.layout) };
  }

  /**
   * Limits the list to a saved view and applies its settings (search, filters, sort, columns);
   * the selection and the open detail start afresh. Settings written by another version (unknown
   * fields) are applied as far as they are understood.
   */
  openView(id: string, settings: ViewLocalSettings): Promise<void> {
    const query = (typeof settings.query === 'object' && settings.query !== null && !Array.isArray(settings.query) ? settings.query : {}) as Record<string, unknown>;
    const filters: Record<string, unknown> = {};
    for (const key of this.source.filterKeys) if (query[key] !== undefined && query[key] !== null) filters[key] = query[key];
    const sort = query.sort as Partial<SortState<Column>> | undefined;
    this.viewId = id;
    this.filters = filters as Filters;
    this.sort = sort && typeof sort.column === 'string' && (sort.direction === 'asc' || sort.direction === 'desc') ? { column: sort.column, direction: sort.direction } : null;
    this.thenBy = this.sort ? validKeys(query.thenBy) : [];
    this.searchText = typeof query.search === 'string' ? query.search : '';
    this.appliedSearch = this.searchText;
    this.layout = normaliseLayout(settings.layout ?? {});
    this.detailId = null;
    this.#savedSettings = stableJson(this.settings());
    return this.refresh();
  }

  /** Back to every record, with the full list's own remembered filters, sort and columns. */
  leaveView(): Promise<void> {
    if (this.viewId === null) return Promise.resolve();
    this.viewId = null;
    this.#savedSettings = null;
    this.#loadRemembered();
    this.detailId = null;
    return this.refresh();
  }

  /** The open view's settings were saved as the list has them now. */
  settingsSaved(): void {
    if (this.viewId !== null) this.#savedSettings = stableJson(this.settings());
  }

  // ---- column layout ------------------------------------------------------------------------

  /** Replaces the column layout and remembers it. */
  setLayout(layout: ColumnLayout): void {
    this.layout = layout;
    this.#persist();
  }

  /**
   * Sets a column's width (px); `remember` false while a drag is in progress (the last width of
   * the drag is remembered).
   */
  setWidth(key: string, width: number, min?: number, remember = true): void {
    this.layout = { ...this.layout, widths: { ...this.layout.widths, [key]: clampWidth(width, min) } };
    if (remember) this.#persist();
  }

  /** Every column back: default order, all shown, default widths. */
  resetLayout(): void {
    this.setLayout(defaultLayout());
  }

  // ---- rows ---------------------------------------------------------------------------------

  /** The row at `index`, or undefined while its page is loading. Reactive via {@link version}. */
  rowAt(index: number): Row | undefined {
    void this.version;
    const page = this.#pages.get(Math.floor(index / PAGE_SIZE));
    return page?.[index % PAGE_SIZE];
  }

  /** The current row, when loaded. */
  cursorRow = $derived.by(() => (this.cursor >= 0 ? this.rowAt(this.cursor) : undefined));

  /**
   * The table reports its visible range; missing pages are fetched.
   * @param top the scroll position in rows (fractional; what Back scrolls back to)
   */
  ensureRange(start: number, end: number, top = start): void {
    this.#visible = [start, end];
    this.#top = top;
    this.#readVisible();
  }

  /**
   * Asks, in one call, for the pages of the rows on screen that are neither loaded nor on their
   * way, unless {@link PAGE_READS_OUT} reads are out already: then the answer of one of those
   * asks again for what is on screen by then.
   */
  #readVisible(): void {
    const total = this.total?.count ?? 0;
    if (total === 0 || this.#pageReads >= PAGE_READS_OUT) return;
    const [start, end] = this.#visible;
    const last = Math.min(end, total - 1);
    let from = -1;
    let to = -1;
    for (let p = Math.floor(Math.max(0, start) / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) {
      if (this.#pages.has(p) || this.#inflight.has(p)) continue;
      if (from < 0) from = p;
      to = p;
    }
    if (from >= 0) void this.#fetchPages(from, Math.min(to, from + READ_CHUNK / PAGE_SIZE - 1), this.#gen);
  }

  /** Reads pages `from`…`to` (inclusive) of result `gen` in one call and keeps them. */
  async #fetchPages(from: number, to: number, gen: number): Promise<void> {
    for (let p = from; p <= to; p++) this.#inflight.add(p);
    this.#pageReads++;
    let ok = false;
    try {
      const page = await this.source.page($state.snapshot(this.query) as typeof this.query, { offset: from * PAGE_SIZE, limit: (to - from + 1) * PAGE_SIZE });
      if (gen !== this.#gen) return;
      for (let p = from; p <= to; p++) this.#store(p, page.rows.slice((p - from) * PAGE_SIZE, (p - from + 1) * PAGE_SIZE));
      if (page.total.exact || !this.total?.exact) this.total = page.total;
      // Pages arrived, so reading works again: an earlier read's error no longer applies.
      this.failure = null;
      for (let p = from; p <= to; p++) this.#placeSelection(p, this.#pages.get(p) ?? []);
      this.version++;
      ok = true;
    } catch (error) {
      if (gen === this.#gen) this.failure = toDisplayError(error);
    } finally {
      if (gen === this.#gen) {
        for (let p = from; p <= to; p++) this.#inflight.delete(p);
        this.#pageReads--;
        // After a failure the next scroll asks again (no retry loop).
        if (ok) this.#readVisible();
      }
    }
  }

  /** Resolves, with a page that arrived, a selection waiting for its row (see the two fields). */
  #placeSelection(p: number, rows: Row[]): void {
    if (this.#reselectId !== null) {
      const at = rows.findIndex((r) => r.id === this.#reselectId);
      if (at >= 0) {
        const index = p * PAGE_SIZE + at;
        this.cursor = index;
        this.anchor = index;
        if (!isOpenEnded(this.selection)) this.selection = span(index, index);
        this.#reselectId = null;
        this.scrollRequest = { index, align: 'nearest' };
      }
    }
    if (this.#followSelection && this.detailId !== null) {
      const row = this.rowAt(this.cursor);
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
   * @param options.keepPosition re-read the rows around the current scroll position (the cache
   *   changed) instead of starting from the top; the current record stays current
   * @param options.restore put the selection, detail and scroll position back as they were (Back)
   */
  async refresh(options: { keepPosition?: boolean; restore?: ListSnapshot<Filters, Column> } | boolean = {}): Promise<void> {
    const { keepPosition = false, restore } = typeof options === 'boolean' ? { keepPosition: options } : options;
    const gen = ++this.#gen;
    this.#inflight.clear();
    this.#pageReads = 0;
    if (!this.#sortOnly) {
      this.#facetsFor = null;
      this.#exactFor = null;
    }
    this.#sortOnly = false;
    this.loading = true;
    if (!keepPosition) this.#pendingResult = true;
    // One first-page read out per list: wait for the one that is out; a newer query asked
    // meanwhile makes this one superseded, and it is never sent.
    while (this.#firstRead) {
      await this.#firstRead;
      if (gen !== this.#gen) return;
    }
    const query = $state.snapshot(this.query) as typeof this.query;
    const top = restore ? restore.top : keepPosition ? this.#visible[0] : 0;
    const firstPage = Math.floor(top / PAGE_SIZE);
    // The rows may have moved (a sync published new records): the current row stays on its
    // record, not on its old row number.
    const currentId = keepPosition ? (this.#reselectId ?? this.cursorRow?.id ?? null) : null;
    try {
      const read = this.source.page(query, { offset: firstPage * PAGE_SIZE, limit: PAGE_SIZE });
      const answered: Promise<void> = read.then(
        () => undefined,
        () => undefined,
      );
      this.#firstRead = answered;
      void answered.then(() => {
        if (this.#firstRead === answered) this.#firstRead = null;
      });
      const page = await read;
      if (gen !== this.#gen) return;
      // eslint-disable-next-line svelte/prefer-svelte-reactivity
      this.#pages = new Map([[firstPage, page.rows]]);
      const key = withoutSort(query);
      this.total = !page.total.exact && this.#exactFor?.key === key ? this.#exactFor.total : page.total;
      this.failure = null;
      this.#followSelection = false;
      this.#reselectId = null;
      if (restore) {
        this.#applyPosition(restore);
      } else if (!keepPosition) {
        this.#clearSelection();
        this.scrollRequest = { index: 0, align: 'top' };
      } else if (currentId !== null) {
        // Until its page arrives (or for good, when it is gone) no row is current; a selection of
        // every row stays whole, any other is narrowed to the current record.
        this.cursor = -1;
        if (!isOpenEnded(this.selection)) this.selection = NONE;
        this.#reselectId = currentId;
        this.#placeSelection(firstPage, page.rows);
      }
      this.version++;
      this.loading = false;
      this.ensureRange(top, top + 60, top);
      this.#pendingResult = false;
      this.#settle();
      // Only for a result that stays: a search still being typed supersedes it before then.
      // Another sort of the same rows keeps both.
      const wanted = { count: !this.total.exact, facets: this.#facetsFor !== key };
      this.facetsCurrent = !wanted.facets;
      if (wanted.count || wanted.facets) {
        setTimeout(() => {
          if (gen !== this.#gen) return;
          if (wanted.count) void this.#exactCount(query, gen, key);
          if (wanted.facets) void this.#loadFacets(query, gen, key);
        }, SECONDARY_DELAY_MS);
      }
    } catch (error) {
      if (gen !== this.#gen) return;
      this.loading = false;
      this.failure = toDisplayError(error);
      this.#queued = [];
      this.#pendingResult = false;
      this.#settle();
    }
  }

  async #exactCount(query: typeof this.query, gen: number, key: string): Promise<void> {
    try {
      const exact = await this.source.count(query);
      if (gen !== this.#gen) return;
      this.total = exact;
      this.#exactFor = { key, total: exact };
      const mode = this.#endWanted;
      if (mode !== null) {
        this.#endWanted = null;
        this.cursorTo(exact.count - 1, mode);
      }
    } catch {
      // The lower bound stays on screen.
    }
  }

  async #loadFacets(query: typeof this.query, gen: number, key: string): Promise<void> {
    try {
      const facets = await this.source.facets(query);
      if (gen !== this.#gen) return;
      this.facets = facets;
      this.#facetsFor = key;
      this.facetsCurrent = true;
    } catch {
      // Facet counts are secondary; the filter options keep their last counts.
    }
  }

  /** Once the new result is on screen (and no search is still being typed): actions that waited for it run now, in order. */
  #settle(): void {
    if (this.#awaiting) return;
    const queued = this.#queued;
    this.#queued = [];
    for (const action of queued) action();
    const waiters = this.#settledWaiters;
    this.#settledWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once no new result is on its way (at once when none is). */
  whenSettled(): Promise<void> {
    if (!this.#awaiting) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /**
   * Runs an action of the person's (a key press) on the result it was meant for: at once, or —
   * while a new search or filter is being answered — as soon as its first rows are on screen.
   */
  act(action: () => void): void {
    if (this.#awaiting) this.#queued.push(action);
    else action();
  }

  /** The exact number of rows in the result (counted if the total on screen is a lower bound). */
  async exactTotal(): Promise<number> {
    if (this.total?.exact) return this.total.count;
    const gen = this.#gen;
    const exact = await this.source.count($state.snapshot(this.query) as typeof this.query);
    if (gen === this.#gen) this.total = exact;
    return exact.count;
  }

  // ---- selection ----------------------------------------------------------------------------

  #clearSelection(): void {
    this.cursor = -1;
    this.anchor = -1;
    this.selection = NONE;
    this.#endWanted = null;
  }

  /** Whether row `index` is selected. Reactive via {@link selection}. */
  isSelected(index: number): boolean {
    return has(this.selection, index);
  }

  /**
   * Moves the current row to `index` and changes the selection as `mode` says: `select` selects it
   * alone, `extend` selects from the anchor to it, `move` leaves the selection as it is. An open
   * detail follows the current row.
   */
  cursorTo(index: number, mode: CursorMode = 'select'): void {
    const total = this.total?.count ?? 0;
    if (total === 0 || index < 0) return;
    const i = Math.min(index, total - 1);
    this.#endWanted = null;
    if (mode === 'select' || this.anchor < 0) {
      this.anchor = i;
      if (mode !== 'move') this.selection = span(i, i);
    } else if (mode === 'extend') {
      this.selection = span(this.anchor, i);
    }
    this.cursor = i;
    this.#reselectId = null;
    this.scrollRequest = { index: i, align: 'nearest' };
    this.#follow(i);
  }

  /** Selects one row alone (a click, the arrows). */
  select(index: number): void {
    this.cursorTo(index, 'select');
  }

  /** Moves the current row by `delta` rows (clamped). */
  moveCursor(delta: number, mode: CursorMode = 'select'): void {
    const total = this.total?.count ?? 0;
    if (total === 0) return;
    const from = this.cursor < 0 ? (delta > 0 ? -1 : total) : this.cursor;
    this.cursorTo(Math.max(0, Math.min(total - 1, from + delta)), mode);
  }

  /** Moves to the last row of the result; waits for the exact count when only a lower bound is known. */
  cursorToEnd(mode: CursorMode = 'select'): void {
    if (!this.total || this.total.count === 0) return;
    if (!this.total.exact) {
      this.#endWanted = mode;
      void this.exactTotal().catch(() => undefined);
      return;
    }
    this.cursorTo(this.total.count - 1, mode);
  }

  /** Adds row `index` to the selection or takes it out (Ctrl+click, Space); it becomes current. */
  toggleAt(index: number): void {
    const total = this.total?.count ?? 0;
    if (index < 0 || index >= total) return;
    this.selection = toggle(this.selection, index);
    this.cursor = index;
    this.anchor = index;
    this.#endWanted = null;
    this.scrollRequest = { index, align: 'nearest' };
    this.#follow(index);
  }

  /** Adds rows `from` to `to` to the selection (Ctrl+Shift+click). */
  addSpan(from: number, to: number): void {
    this.selection = union(this.selection, span(from, to));
    this.cursor = to;
    this.#follow(to);
  }

  /** Selects every row of the result, rendered or not (Ctrl+A). */
  selectAll(): void {
    if ((this.total?.count ?? 0) === 0) return;
    this.selection = ALL;
    if (this.cursor < 0) {
      this.cursor = 0;
      this.anchor = 0;
    }
  }

  /** Leaves only the current row selected (Escape). */
  collapseSelection(): void {
    this.selection = this.cursor >= 0 ? span(this.cursor, this.cursor) : NONE;
  }

  #follow(index: number): void {
    if (this.detailId === null) return;
    const row = this.rowAt(index);
    if (row) this.detailId = row.id;
    this.#followSelection = row === undefined;
  }

  /** Opens the detail of the current row (Enter). */
  openCurrent(): void {
    const row = this.rowAt(this.cursor);
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

  // ---- reading the selection ----------------------------------------------------------------

  /** Rows `offset`… from the page cache, or null when one of their pages is not loaded. */
  #cached(offset: number, limit: number): Row[] | null {
    const out: Row[] = [];
    for (let i = offset; i < offset + limit; ) {
      const page = this.#pages.get(Math.floor(i / PAGE_SIZE));
      if (!page) return null;
      const from = i % PAGE_SIZE;
      const take = Math.min(PAGE_SIZE - from, offset + limit - i);
      if (page.length < from + take) return null;
      out.push(...page.slice(from, from + take));
      i += take;
    }
    return out;
  }

  /**
   * The selected rows, when every one of them is already on hand (no call needed), else null.
   * Lets a copy put them on the clipboard within the key press's own event.
   */
  selectedRowsOnHand(): Row[] | null {
    if (this.selectedCount === 0 || (isOpenEnded(this.selection) && !this.total?.exact)) return null;
    const out: Row[] = [];
    for (const w of windows(this.selection, this.total?.count ?? 0, READ_CHUNK)) {
      const rows = this.#cached(w.offset, w.limit);
      if (!rows) return null;
      out.push(...rows);
    }
    return out;
  }

  /**
   * Reads the selected rows in result order, at most {@link READ_CHUNK} per call, handing each
   * chunk to `take` (so a large selection never sits in memory as rows).
   * @param options.signal stops between chunks (rejects with an AbortError)
   * @param options.onProgress rows read so far and in all
   * @returns the number of rows read
   * @throws Error when the result changed meanwhile (a new search): the rows would not be the ones
   *   selected; DisplayError when a read failed
   */
  async readSelected(take: (rows: Row[]) => void, options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {}): Promise<number> {
    const gen = this.#gen;
    const query = $state.snapshot(this.query) as typeof this.query;
    const selection = this.selection;
    const total = isOpenEnded(selection) ? await this.exactTotal() : (this.total?.count ?? 0);
    const wins = windows(selection, total, READ_CHUNK);
    const all = wins.reduce((n, w) => n + w.limit, 0);
    // A few windows are asked for ahead, so each call's transport overlaps the next one's read.
    const pending: Promise<Row[]>[] = [];
    let next = 0;
    const askAhead = (): void => {
      while (pending.length < READ_AHEAD && next < wins.length) {
        const w = wins[next++] as RowWindow;
        const cached = this.#cached(w.offset, w.limit);
        const read = cached ? Promise.resolve(cached) : this.source.page(query, w).then((p) => p.rows);
        // A read left over after a cancel or failure is not an unhandled rejection.
        read.catch(() => undefined);
        pending.push(read);
      }
    };
    let done = 0;
    askAhead();
    for (let read = pending.shift(); read; read = pending.shift()) {
      options.signal?.throwIfAborted();
      const rows = await read;
      options.signal?.throwIfAborted();
      if (gen !== this.#gen) throw new Error('The table changed while its rows were being read (a new search or sync). Select the rows again.');
      askAhead();
      take(rows);
      done += rows.length;
      options.onProgress?.(done, all);
    }
    return done;
  }

  // ---- navigation ---------------------------------------------------------------------------

  /** Where the person is in this view (for Back). */
  snapshot(): ListSnapshot<Filters, Column> {
    return {
      searchText: this.searchText,
      filters: this.filters,
      sort: this.sort,
      thenBy: this.thenBy,
      selection: this.selection,
      anchor: this.anchor,
      cursor: this.cursor,
      detailId: this.detailId,
      top: this.#top,
      viewId: this.viewId,
      layout: this.layout,
      savedSettings: this.#savedSettings,
    };
  }

  /** Returns to a snapshot: its search, filters and sort, then its selection, detail and scroll position. */
  restore(snap: ListSnapshot<Filters, Column>): Promise<void> {
    const before = JSON.stringify(this.query);
    this.viewId = snap.viewId;
    this.#savedSettings = snap.savedSettings;
    this.layout = snap.layout;
    this.searchText = snap.searchText;
    this.appliedSearch = snap.searchText;
    this.filters = snap.filters;
    this.sort = snap.sort;
    this.thenBy = snap.thenBy;
    this.#persist();
    if (before === JSON.stringify(this.query) && this.total !== null && !this.#awaiting && !this.loading) {
      this.#applyPosition(snap);
      this.ensureRange(snap.top, snap.top + 60, snap.top);
      return Promise.resolve();
    }
    return this.refresh({ restore: snap });
  }

  #applyPosition(snap: ListSnapshot<Filters, Column>): void {
    this.selection = snap.selection;
    this.anchor = snap.anchor;
    this.cursor = snap.cursor;
    this.detailId = snap.detailId;
    this.#followSelection = false;
    this.#endWanted = null;
    this.scrollRequest = { index: snap.top, align: 'top' };
  }

  /**
   * Finds a record in the result on screen (its first {@link REVEAL_SCAN} rows) and makes it the
   * current, selected row, scrolled into the middle of the table, with its detail open.
   * @returns false when it is not among them
   */
  async reveal(id: string): Promise<boolean> {
    await this.whenSettled();
    const gen = this.#gen;
    const query = $state.snapshot(this.query) as typeof this.query;
    const end = Math.min(REVEAL_SCAN, this.total?.count ?? 0);
    for (let offset = 0; offset < end; offset += READ_CHUNK) {
      const limit = Math.min(READ_CHUNK, end - offset);
      const rows = this.#cached(offset, limit) ?? (await this.source.page(query, { offset, limit })).rows;
      if (gen !== this.#gen) return false;
      const at = rows.findIndex((r) => r.id === id);
      if (at >= 0) {
        const index = offset + at;
        this.detailId = id;
        this.cursorTo(index, 'select');
        this.scrollRequest = { index, align: 'center' };
        return true;
      }
      if (rows.length < limit) break;
    }
    return false;
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

/** A query without its sort keys, as text: what facet counts and totals depend on. */
function withoutSort(query: object): string {
  return stableJson({ ...query, sort: null, thenBy: null });
}

/** JSON with every object's keys sorted: equal settings give equal text, whatever order they were set in. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
