/**
 * The state behind one virtualized list view (contacts or orders), composed of one class per
 * topic under list/: the query and its remembered settings (`ListQuery`), the column layout
 * (`ColumnLayoutState`), the page cache (`PageCache`), the total and facet counts
 * (`ResultCounts`), the cursor, selection and open detail (`ListSelection`), and the reads that
 * fill them (`ResultReads`: queries never flicker, and a query superseded while it waits is never
 * sent). This class turns what the person does into changes of those parts; components use it.
 */
import type { RowCount } from '../../../shared/query.ts';
import type { ViewLocalSettings } from '../../../shared/views.ts';
import { errorText, type DisplayError } from '../lib/errors.ts';
import { normaliseLayout, type ColumnLayout } from '../lib/columns.ts';
import type { RowSelection } from '../lib/selection.ts';
import { ColumnLayoutState } from './list/columns.svelte.ts';
import { ResultCounts } from './list/counts.svelte.ts';
import { PageCache } from './list/pages.svelte.ts';
import { ListQuery } from './list/query.svelte.ts';
import { ResultReads } from './list/reads.svelte.ts';
import { ListSelection } from './list/selection.svelte.ts';
import { stableJson, type CursorMode, type ListQueryShape, type ListSettings, type ListSnapshot, type ListSource, type ScrollRequest, type SortState } from './list/types.ts';

export { PAGE_SIZE } from './list/pages.svelte.ts';
export { READ_CHUNK, SECONDARY_DELAY_MS } from './list/reads.svelte.ts';
export type { CursorMode, FilterProblem, ListSettings, ListSnapshot, ListSource, ScrollRequest, SortState } from './list/types.ts';

/**
 * One list view's state.
 * @typeParam Filters the query minus `search` and `sort` (every field optional)
 */
export class ListModel<Row extends { id: string }, Filters extends object, Column extends string, Facets> {
  readonly source: ListSource<Row, Filters & { search?: string; sort?: SortState<Column> }, Facets, Filters>;
  /** Search, filters, sort, the open saved view, and the full list's remembered settings. */
  readonly queryState: ListQuery<Filters, Column>;
  readonly columns: ColumnLayoutState;
  readonly pages = new PageCache<Row>();
  readonly counts = new ResultCounts<Facets>();
  readonly selectionState: ListSelection<Row> = new ListSelection<Row>({ rowAt: (i) => this.rowAt(i), total: () => this.counts.total?.count ?? 0 });

  /** The reads of the result: first page, pages on screen, counts, the selection's rows. */
  readonly reads: ResultReads<Row, Filters, Column, Facets>;

  /** A query is being answered (old rows stay on screen meanwhile). */
  get loading(): boolean { return this.reads.loading; }
  /** Why the last query failed, or null (the view shows its text and offers the action that fixes it). */
  get failure(): DisplayError | null { return this.reads.failure; }
  /** Text of {@link failure}: what happened and what to do. */
  get error(): string | null {
    return this.failure ? errorText(this.failure) : null;
  }

  /** The list's settings differ from those its open saved view was saved with. */
  settingsChanged = $derived.by(() => this.queryState.viewId !== null && this.queryState.savedSettings !== null && stableJson(this.settings()) !== this.queryState.savedSettings);
  /** The current row, when loaded. */
  cursorRow = $derived.by(() => (this.selectionState.cursor >= 0 ? this.rowAt(this.selectionState.cursor) : undefined));

  #profileId: string | null = null;

  constructor(source: ListModel<Row, Filters, Column, Facets>['source']) {
    this.source = source;
    this.columns = new ColumnLayoutState(() => this.#persist(), source.defaultHidden);
    this.queryState = new ListQuery<Filters, Column>(source as ListSource<unknown, unknown, unknown, Filters>);
    this.reads = new ResultReads({ source: source as ConstructorParameters<typeof ResultReads<Row, Filters, Column, Facets>>[0]['source'], query: this.queryState, pages: this.pages, counts: this.counts, selection: this.selectionState });
  }

  // ---- what the components read (each topic's state) ----------------------------------------

  /** Text in the search box (applied at once, see {@link setSearch}). */
  get searchText(): string { return this.queryState.searchText; }
  /** The search the rows on screen answer. */
  get appliedSearch(): string { return this.queryState.appliedSearch; }
  get filters(): Filters { return this.queryState.filters; }
  get sort(): SortState<Column> | null { return this.queryState.sort; }
  /** Further sort keys (Shift+click on a header), applied in turn among rows the keys before leave equal. */
  get thenBy(): SortState<Column>[] { return this.queryState.thenBy; }
  /** Every sort key in order: the first, then {@link thenBy} (empty for the default order). */
  get sortKeys(): SortState<Column>[] { return this.queryState.sortKeys; }
  /** The saved view the list is limited to, or null (its changes are not remembered for the full list). */
  get viewId(): string | null { return this.queryState.viewId; }
  /** Filter values that cannot match as they stand, or null. */
  get filterProblem(): ListQuery<Filters, Column>['filterProblem'] { return this.queryState.filterProblem; }
  /** The query the next fetch sends (a plain object, safe to pass across IPC). */
  get query(): ListQueryShape<Filters, Column> { return this.queryState.query; }
  /** Number of active filters (not counting search). */
  get activeFilterCount(): number { return this.queryState.activeFilterCount; }
  /** Which columns show, in which order and width. */
  get layout(): ColumnLayout { return this.columns.layout; }
  /** Row count of the result on screen; null before the first answer. */
  get total(): RowCount | null { return this.counts.total; }
  get facets(): Facets | null { return this.counts.facets; }
  /** The facet counts belong to the result on screen (false while a new result's counts are read). */
  get facetsCurrent(): boolean { return this.counts.facetsCurrent; }
  /** Bumped whenever rows arrive, so the table re-reads {@link rowAt}. */
  get version(): number { return this.pages.version; }
  /** The current row (keyboard focus inside the table), or -1. */
  get cursor(): number { return this.selectionState.cursor; }
  /** Where Shift+click and Shift+arrows extend the selection from. */
  get anchor(): number { return this.selectionState.anchor; }
  /** The selected rows, by index in the result. */
  get selection(): RowSelection { return this.selectionState.selection; }
  /** Rows selected (with an open-ended selection, counted against the total on screen). */
  get selectedCount(): number { return this.selectionState.selectedCount; }
  /** Id of the record whose detail panel is open. */
  get detailId(): string | null { return this.selectionState.detailId; }
  /** Where the table should scroll next (a new object each time). */
  get scrollRequest(): ScrollRequest | null { return this.selectionState.scrollRequest; }

  /** Switches to a profile: loads its remembered filters, sort and layout, then queries. */
  useProfile(profileId: string | null): void {
    this.#profileId = profileId;
    this.queryState.viewId = null;
    this.queryState.savedSettings = null;
    this.columns.layout = this.queryState.recall(profileId);
    this.selectionState.detailId = null;
    this.selectionState.clear();
    this.selectionState.stopWaiting();
    this.counts.clear();
    this.pages.clear();
    this.reads.dropQueued();
    this.pages.version++;
    if (profileId) void this.refresh();
  }

  #persist(): void {
    this.queryState.remember(this.columns.layout);
  }

  // ---- search, filters, sort ----------------------------------------------------------------

  /**
   * Updates the search box and asks for its result at once; a search typed on while it is being
   * answered supersedes it ({@link refresh}).
   */
  setSearch(text: string): void {
    this.queryState.searchText = text;
    this.flushSearch();
  }

  /** Applies the search box (Enter in the box; {@link setSearch} does on every change). */
  flushSearch(): void {
    if (this.queryState.appliedSearch === this.queryState.searchText) {
      this.reads.settle();
      return;
    }
    this.queryState.appliedSearch = this.queryState.searchText;
    void this.refresh();
  }

  /** Sets the search and applies it at once (a link, "Search for this value"). */
  searchFor(text: string): Promise<void> {
    this.queryState.searchText = text;
    this.queryState.appliedSearch = text;
    return this.refresh();
  }

  /** Replaces one filter field (an empty list or undefined removes it). */
  setFilter<K extends keyof Filters>(key: K, value: Filters[K] | undefined): Promise<void> {
    this.queryState.setFilter(key, value);
    this.#persist();
    return this.refresh();
  }

  /** Adds or removes one value of a list filter. */
  toggleFilterValue<K extends keyof Filters>(key: K, value: unknown): void {
    const current = (this.queryState.filters[key] as unknown[] | undefined) ?? [];
    const next = current.includes(value) ? current.filter((v) => v !== value) : [...current, value];
    void this.setFilter(key, next as Filters[K]);
  }

  /** Replaces the filters and the search at once (a followed link's scope). */
  setScope(filters: Filters, search = ''): Promise<void> {
    this.queryState.filters = filters;
    this.queryState.searchText = search;
    this.queryState.appliedSearch = search;
    this.#persist();
    return this.refresh();
  }

  /** Removes every filter and the search. */
  clearFilters(): void {
    void this.setScope({} as Filters);
  }

  /** Click on a column header (`add`: Shift+click): see `ListQuery.cycleSort`. */
  cycleSort(column: Column, add = false): void {
    this.queryState.cycleSort(column, add);
    this.#persist();
    void this.refresh();
  }

  /** Sorts by one column alone, in a direction (the header menu's sort choices). */
  setSort(column: Column, direction: 'asc' | 'desc'): void {
    this.queryState.sort = { column, direction };
    this.queryState.thenBy = [];
    this.#persist();
    this.reads.sortOnly();
    void this.refresh();
  }

  // ---- saved views --------------------------------------------------------------------------

  /** The list's settings as a saved view keeps them: its query without `view`, and its column layout. */
  settings(): ListSettings {
    const query: Record<string, unknown> = { ...($state.snapshot(this.queryState.query) as Record<string, unknown>) };
    delete query.view;
    return { query, layout: $state.snapshot(this.columns.layout) };
  }

  /**
   * Limits the list to a saved view and applies its settings (search, filters, sort, columns);
   * the selection and the open detail start afresh. Settings written by another version (unknown
   * fields) are applied as far as they are understood.
   */
  openView(id: string, settings: ViewLocalSettings): Promise<void> {
    this.queryState.applyView(id, settings);
    this.columns.layout = normaliseLayout(settings.layout ?? { hidden: this.source.defaultHidden ?? [] });
    this.selectionState.detailId = null;
    this.queryState.savedSettings = stableJson(this.settings());
    return this.refresh();
  }

  /** Back to every record, with the full list's own remembered filters, sort and columns. */
  leaveView(): Promise<void> {
    if (this.queryState.viewId === null) return Promise.resolve();
    this.queryState.viewId = null;
    this.queryState.savedSettings = null;
    this.columns.layout = this.queryState.recall(this.#profileId);
    this.selectionState.detailId = null;
    return this.refresh();
  }

  /** The open view's settings were saved as the list has them now. */
  settingsSaved(): void {
    if (this.queryState.viewId !== null) this.queryState.savedSettings = stableJson(this.settings());
  }

  // ---- column layout ------------------------------------------------------------------------

  /** Replaces the column layout and remembers it. */
  readonly setLayout = (layout: ColumnLayout): void => this.columns.set(layout);

  /** Sets a column's width (px); `remember` false while a drag is in progress (see `ColumnLayoutState.setWidth`). */
  readonly setWidth = (key: string, width: number, min?: number, remember = true): void => this.columns.setWidth(key, width, min, remember);

  /** Every column back: default order, all shown, default widths. */
  readonly resetLayout = (): void => this.columns.reset();

  // ---- rows ---------------------------------------------------------------------------------

  /** The row at `index`, or undefined while its page is loading. Reactive via {@link version}. */
  readonly rowAt = (index: number): Row | undefined => this.pages.rowAt(index);

  /**
   * The table reports its visible range; missing pages are fetched.
   * @param top the scroll position in rows (fractional; what Back scrolls back to)
   */
  readonly ensureRange = (start: number, end: number, top = start): void => this.reads.ensureRange(start, end, top);

  /**
   * Runs the current query; the old rows stay until the first page of the answer arrives (see
   * `ResultReads.refresh`: `keepPosition` after the cache changed, `restore` for Back).
   */
  refresh(options: Parameters<ResultReads<Row, Filters, Column, Facets>['refresh']>[0] = {}): Promise<void> {
    return this.reads.refresh(options);
  }

  /** Resolves once no new result is on its way (at once when none is). */
  readonly whenSettled = (): Promise<void> => this.reads.whenSettled();

  /** Runs a key press's action on the result it was meant for: at once, or once the new result is on screen. */
  act(action: () => void): void {
    this.reads.act(action);
  }

  /** The exact number of rows in the result (counted if the total on screen is a lower bound). */
  readonly exactTotal = (): Promise<number> => this.reads.exactTotal();

  /** The selected rows when every one is already on hand (a copy within the key press's own event), else null. */
  readonly selectedRowsOnHand = (): Row[] | null => this.reads.selectedRowsOnHand();

  /**
   * Reads the selected rows in result order, a chunk at a time, handing each to `take` (see
   * `ResultReads.readSelected` for the options).
   * @returns the number of rows read
   * @throws Error when the result changed meanwhile; DisplayError when a read failed
   */
  readSelected(take: (rows: Row[]) => void, options: Parameters<ResultReads<Row, Filters, Column, Facets>['readSelected']>[1] = {}): Promise<number> {
    return this.reads.readSelected(take, options);
  }

  /**
   * Finds a record among the first rows of the result and makes it the current, selected row,
   * in the middle of the table, with its detail open.
   * @returns false when it is not among them
   */
  readonly reveal = (id: string): Promise<boolean> => this.reads.reveal(id);

  // ---- selection (list/selection.svelte.ts) -------------------------------------------------

  /** Whether row `index` is selected. Reactive via {@link selection}. */
  readonly isSelected = (index: number): boolean => this.selectionState.isSelected(index);

  /** Moves the current row to `index`, changing the selection as `mode` says (see `ListSelection.cursorTo`). */
  readonly cursorTo = (index: number, mode: CursorMode = 'select'): void => this.selectionState.cursorTo(index, mode);

  /** Selects one row alone (a click, the arrows). */
  readonly select = (index: number): void => this.selectionState.cursorTo(index, 'select');

  /** Moves the current row by `delta` rows (clamped). */
  readonly moveCursor = (delta: number, mode: CursorMode = 'select'): void => this.selectionState.moveCursor(delta, mode);

  /** Moves to the last row of the result; waits for the exact count when only a lower bound is known. */
  readonly cursorToEnd = (mode: CursorMode = 'select'): void => this.reads.cursorToEnd(mode);

  /** Adds row `index` to the selection or takes it out (Ctrl+click, Space); it becomes current. */
  readonly toggleAt = (index: number): void => this.selectionState.toggleAt(index);

  /** Adds rows `from` to `to` to the selection (Ctrl+Shift+click). */
  readonly addSpan = (from: number, to: number): void => this.selectionState.addSpan(from, to);

  /** Selects every row of the result, rendered or not (Ctrl+A). */
  readonly selectAll = (): void => this.selectionState.selectAll();

  /** Leaves only the current row selected (Escape). */
  readonly collapseSelection = (): void => this.selectionState.collapseSelection();

  /** Opens the detail of the current row (Enter). */
  readonly openCurrent = (): void => this.selectionState.openCurrent();

  /** Opens a record's detail by id (it need not be on screen). */
  readonly openDetail = (id: string): void => this.selectionState.openDetail(id);

  /** Closes the detail panel. */
  readonly closeDetail = (): void => this.selectionState.closeDetail();

  // ---- navigation ---------------------------------------------------------------------------

  /** Where the person is in this view (for Back). */
  snapshot(): ListSnapshot<Filters, Column> {
    const { queryState: q, selectionState: sel } = this;
    return {
      searchText: q.searchText,
      filters: q.filters,
      sort: q.sort,
      thenBy: q.thenBy,
      selection: sel.selection,
      anchor: sel.anchor,
      cursor: sel.cursor,
      detailId: sel.detailId,
      top: this.reads.top,
      viewId: q.viewId,
      layout: this.columns.layout,
      savedSettings: q.savedSettings,
    };
  }

  /** Returns to a snapshot: its search, filters and sort, then its selection, detail and scroll position. */
  restore(snap: ListSnapshot<Filters, Column>): Promise<void> {
    const q = this.queryState;
    const before = JSON.stringify(q.query);
    q.viewId = snap.viewId;
    q.savedSettings = snap.savedSettings;
    this.columns.layout = snap.layout;
    q.searchText = snap.searchText;
    q.appliedSearch = snap.searchText;
    q.filters = snap.filters;
    q.sort = snap.sort;
    q.thenBy = snap.thenBy;
    this.#persist();
    if (before === JSON.stringify(q.query) && this.counts.total !== null && !this.reads.awaiting && !this.reads.loading) {
      this.selectionState.applyPosition(snap);
      this.ensureRange(snap.top, snap.top + 60, snap.top);
      return Promise.resolve();
    }
    return this.refresh({ restore: snap });
  }

}
