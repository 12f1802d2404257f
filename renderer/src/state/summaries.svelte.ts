/**
 * The Templates and Campaigns views' state: the list of one kind of summary of the cached orders
 * (shared/summaries.ts), its search and sort (remembered per profile), the one open in the detail
 * and that one's orders. Both lists are usually small (grouped by the cache at each sync): the view
 * reads {@link SUMMARY_LIMIT} rows at a time, the next ones when the list is scrolled to its end.
 */
import type { CampaignQuery, CampaignRow, CampaignSortColumn, TemplateQuery, TemplateRow, TemplateSortColumn } from '../../../shared/summaries.ts';
import type { OrderRow, RowPage, RowWindow } from '../../../shared/query.ts';
import { call, errorText } from '../lib/api.ts';
import { profileKey } from '../lib/storage.ts';
import { Persisted } from './persisted.svelte.ts';

/** Most rows a summary view reads at a time (the contract's largest window). */
export const SUMMARY_LIMIT = 1000;
/** Most orders a detail lists; the rest are in the Orders view. */
export const DETAIL_ORDERS_LIMIT = 200;
/** Search debounce in milliseconds. */
const SEARCH_DEBOUNCE_MS = 150;

/** What a summary list reads through: a contract call and the order filter its detail uses. */
interface SummarySource<Row, Column extends string> {
  /** `templates` or `campaigns`: the settings key and the export kind. */
  kind: 'templates' | 'campaigns';
  page(query: { search?: string; sort?: { column: Column; direction: 'asc' | 'desc' } }, window: RowWindow): Promise<RowPage<Row>>;
  /** The order query field that selects a row's orders. */
  orderField: 'templateId' | 'campaignId';
}

interface StoredSettings {
  search?: string;
  sort?: { column: string; direction: 'asc' | 'desc' } | null;
}

/** One summary view's state. */
export class SummaryList<Row extends { id: string }, Column extends string> {
  readonly source: SummarySource<Row, Column>;
  /** The search and sort remembered for the active profile. */
  readonly #stored: Persisted<StoredSettings>;
  #debounce: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every read: an answer to an older read is dropped. */
  #gen = 0;
  #detailGen = 0;

  /** Text in the search box (applied after the debounce). */
  searchText = $state('');
  /** The search the rows on screen answer. */
  appliedSearch = $state('');
  sort = $state<{ column: Column; direction: 'asc' | 'desc' } | null>(null);
  rows = $state.raw<Row[]>([]);
  /** Rows of the whole result (more than `rows` until every window of it is read). */
  total = $state(0);
  loading = $state(false);
  /** The next window of rows is being read ({@link loadMore}). */
  loadingMore = $state(false);
  /** The rows were read at least once for this profile. */
  loaded = $state(false);
  error = $state<string | null>(null);

  /** The row open in the detail, by id. */
  openId = $state<string | null>(null);
  /** Its orders (newest first, at most {@link DETAIL_ORDERS_LIMIT}) and how many it has. */
  orders = $state.raw<OrderRow[]>([]);
  ordersTotal = $state(0);
  ordersLoading = $state(false);
  ordersError = $state<string | null>(null);

  open = $derived(this.openId === null ? null : (this.rows.find((r) => r.id === this.openId) ?? null));

  constructor(source: SummarySource<Row, Column>) {
    this.source = source;
    this.#stored = new Persisted<StoredSettings>(profileKey(null, source.kind), {});
  }

  /** The query the rows on screen answer. */
  get query(): { search?: string; sort?: { column: Column; direction: 'asc' | 'desc' } } {
    const search = this.appliedSearch.trim();
    return { ...(search ? { search } : {}), ...(this.sort ? { sort: { ...this.sort } } : {}) };
  }

  /** Another profile is active: its own search and sort, nothing read yet. */
  useProfile(profileId: string | null): void {
    this.#stored.use(profileKey(profileId, this.source.kind));
    const saved = this.#stored.current;
    this.searchText = typeof saved.search === 'string' ? saved.search : '';
    this.appliedSearch = this.searchText;
    this.sort = saved.sort && typeof saved.sort.column === 'string' ? (saved.sort as { column: Column; direction: 'asc' | 'desc' }) : null;
    this.rows = [];
    this.total = 0;
    this.loaded = false;
    this.error = null;
    this.openId = null;
    this.orders = [];
    this.ordersTotal = 0;
  }

  #persist(): void {
    this.#stored.current = { search: this.appliedSearch, sort: this.sort } satisfies StoredSettings;
  }

  /** Reads the rows for the current search and sort; the open row's orders are read again too. */
  async refresh(): Promise<void> {
    const gen = ++this.#gen;
    this.loading = true;
    try {
      const page = await this.source.page($state.snapshot(this.query) as typeof this.query, { offset: 0, limit: SUMMARY_LIMIT });
      if (gen !== this.#gen) return;
      this.rows = page.rows;
      this.total = page.total.count;
      this.error = null;
      this.loaded = true;
    } catch (error) {
      if (gen !== this.#gen) return;
      this.error = errorText(error);
    } finally {
      if (gen === this.#gen) this.loading = false;
    }
    if (this.openId !== null) void this.#loadOrders(this.openId);
  }

  /**
   * Reads the next {@link SUMMARY_LIMIT} rows of the result after those on screen (the list was
   * scrolled to its end); nothing when every row is read or a read is under way.
   */
  async loadMore(): Promise<void> {
    if (this.loading || this.loadingMore || !this.loaded || this.rows.length >= this.total) return;
    const gen = this.#gen;
    this.loadingMore = true;
    try {
      const page = await this.source.page($state.snapshot(this.query) as typeof this.query, { offset: this.rows.length, limit: SUMMARY_LIMIT });
      if (gen !== this.#gen) return;
      // A sync between the reads may shift rows across the window's edge: each id is listed once.
      const seen = new Set(this.rows.map((r) => r.id)); // eslint-disable-line svelte/prefer-svelte-reactivity -- a local lookup, not state
      this.rows = [...this.rows, ...page.rows.filter((r) => !seen.has(r.id))];
      this.total = page.total.count;
    } catch (error) {
      if (gen === this.#gen) this.error = errorText(error);
    } finally {
      this.loadingMore = false;
    }
  }

  /** Reads the rows once for this profile (the view was opened). */
  ensureLoaded(): void {
    if (!this.loaded && !this.loading) void this.refresh();
  }

  /** The search box changed: applied after a short pause. */
  setSearch(text: string): void {
    this.searchText = text;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => this.flushSearch(), SEARCH_DEBOUNCE_MS);
  }

  /** Applies the typed search now (Enter). */
  flushSearch(): void {
    clearTimeout(this.#debounce);
    if (this.appliedSearch === this.searchText) return;
    this.appliedSearch = this.searchText;
    this.#persist();
    void this.refresh();
  }

  /** Click on a column: ascending → descending → the default order. */
  cycleSort(column: Column): void {
    if (!this.sort || this.sort.column !== column) this.sort = { column, direction: 'asc' };
    else if (this.sort.direction === 'asc') this.sort = { column, direction: 'desc' };
    else this.sort = null;
    this.#persist();
    void this.refresh();
  }

  /** Sets the sort (a select). */
  setSort(sort: { column: Column; direction: 'asc' | 'desc' } | null): void {
    this.sort = sort;
    this.#persist();
    void this.refresh();
  }

  /** Opens a row in the detail and reads its orders. */
  openDetail(id: string): void {
    this.openId = id;
    this.orders = [];
    this.ordersTotal = 0;
    void this.#loadOrders(id);
  }

  closeDetail(): void {
    this.openId = null;
    this.#detailGen++;
    this.orders = [];
  }

  async #loadOrders(id: string): Promise<void> {
    const gen = ++this.#detailGen;
    this.ordersLoading = true;
    try {
      const page = await call('queryOrders', { query: { [this.source.orderField]: id }, window: { offset: 0, limit: DETAIL_ORDERS_LIMIT } });
      if (gen !== this.#detailGen) return;
      this.orders = page.rows;
      this.ordersTotal = page.total.count;
      this.ordersError = null;
    } catch (error) {
      if (gen === this.#detailGen) this.ordersError = errorText(error);
    } finally {
      if (gen === this.#detailGen) this.ordersLoading = false;
    }
  }
}

export type TemplatesModel = SummaryList<TemplateRow, TemplateSortColumn>;
export type CampaignsModel = SummaryList<CampaignRow, CampaignSortColumn>;

/** The Templates view's list, backed by `queryTemplates`. */
export function createTemplatesModel(): TemplatesModel {
  return new SummaryList<TemplateRow, TemplateSortColumn>({
    kind: 'templates',
    page: (query: TemplateQuery, window) => call('queryTemplates', { query, window }),
    orderField: 'templateId',
  });
}

/** The Campaigns view's list, backed by `queryCampaigns`. */
export function createCampaignsModel(): CampaignsModel {
  return new SummaryList<CampaignRow, CampaignSortColumn>({
    kind: 'campaigns',
    page: (query: CampaignQuery, window) => call('queryCampaigns', { query, window }),
    orderField: 'campaignId',
  });
}
