/**
 * The reads of one list view's result, in the order the person needs them: the first page of a
 * new result (one read out per list; a query superseded while it waits is never sent), the pages
 * scrolled to, then — once the result has stayed current for a moment — its exact total and facet
 * counts; and the rows of the selection (for a copy or an export) and of a followed link.
 *
 * Queries never flicker: the old rows stay on screen until the first page of the new result
 * arrives, and what the person does with the keyboard meanwhile waits for it ({@link act}).
 */
import type { RowCount, RowWindow } from '../../../../shared/query.ts';
import { toDisplayError, type DisplayError } from '../../lib/errors.ts';
import { isOpenEnded, windows } from '../../lib/selection.ts';
import type { ResultCounts } from './counts.svelte.ts';
import { PAGE_SIZE, type PageCache } from './pages.svelte.ts';
import type { ListQuery } from './query.svelte.ts';
import type { ListSelection } from './selection.svelte.ts';
import { stableJson, type CursorMode, type ListQueryShape, type ListSnapshot, type ListSource } from './types.ts';

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

/** The parts of a list its reads fill in. */
export interface ResultParts<Row extends { id: string }, Filters extends object, Column extends string, Facets> {
  source: ListSource<Row, ListQueryShape<Filters, Column>, Facets, Filters>;
  query: ListQuery<Filters, Column>;
  pages: PageCache<Row>;
  counts: ResultCounts<Facets>;
  selection: ListSelection<Row>;
}

/** One list's reads of its result. */
export class ResultReads<Row extends { id: string }, Filters extends object, Column extends string, Facets> {
  readonly #source: ResultParts<Row, Filters, Column, Facets>['source'];
  readonly #query: ListQuery<Filters, Column>;
  readonly #pages: PageCache<Row>;
  readonly #counts: ResultCounts<Facets>;
  readonly #selection: ListSelection<Row>;

  /** A query is being answered (old rows stay on screen meanwhile). */
  loading = $state(false);
  /** Why the last query failed, or null (the view shows its text and offers the action that fixes it). */
  failure = $state.raw<DisplayError | null>(null);

  #gen = 0;
  /** Settles when the first-page read that is out (one per list) has its answer; null when none is out. */
  #firstRead: Promise<void> | null = null;
  /** The next refresh only changes the sort: the facet counts and the exact total stay what they are. */
  #sortOnly = false;
  #visible: [number, number] = [0, 40];
  #top = 0;
  /** A new result's first page is on its way: key presses wait for it. */
  #awaiting = false;
  /** Actions that wait for the new result, in the order they came. */
  #queued: (() => void)[] = [];
  /** Resolvers of {@link whenSettled}. */
  #settledWaiters: (() => void)[] = [];

  constructor(parts: ResultParts<Row, Filters, Column, Facets>) {
    this.#source = parts.source;
    this.#query = parts.query;
    this.#pages = parts.pages;
    this.#counts = parts.counts;
    this.#selection = parts.selection;
  }

  /** The scroll position last reported: the row at the top of the table, with the fraction of it scrolled past. */
  get top(): number {
    return this.#top;
  }

  /** A new result is on its way (search typed, query sent): key presses wait for it. */
  get awaiting(): boolean {
    return this.#awaiting;
  }

  /** The next {@link refresh} only changes the sort: the counts stay. */
  sortOnly(): void {
    this.#sortOnly = true;
  }

  /** Actions waiting for a result are dropped (another profile). */
  dropQueued(): void {
    this.#queued = [];
  }

  /**
   * The table reports its visible range; missing pages are fetched.
   * @param top the scroll position in rows (fractional; what Back scrolls back to)
   */
  ensureRange(start: number, end: number, top = start): void {
    this.#visible = [start, end];
    this.#top = top;
    this.#readVisible();
  }

  /** Asks, in one call, for the pages of the rows on screen that are neither loaded nor on their way (see `PageCache.missing`). */
  #readVisible(): void {
    const wanted = this.#pages.missing(this.#visible[0], this.#visible[1], this.#counts.total?.count ?? 0, READ_CHUNK / PAGE_SIZE);
    if (wanted) void this.#fetchPages(wanted[0], wanted[1], this.#gen);
  }

  /** Reads pages `from`…`to` (inclusive) of result `gen` in one call and keeps them. */
  async #fetchPages(from: number, to: number, gen: number): Promise<void> {
    this.#pages.reading(from, to);
    let ok = false;
    try {
      const page = await this.#source.page(this.#query.snapshotQuery(), { offset: from * PAGE_SIZE, limit: (to - from + 1) * PAGE_SIZE });
      if (gen !== this.#gen) return;
      for (let p = from; p <= to; p++) this.#pages.store(p, page.rows.slice((p - from) * PAGE_SIZE, (p - from + 1) * PAGE_SIZE));
      this.#counts.paged(page.total);
      // Pages arrived, so reading works again: an earlier read's error no longer applies.
      this.failure = null;
      for (let p = from; p <= to; p++) this.#selection.place(p, this.#pages.page(p) ?? []);
      this.#pages.version++;
      ok = true;
    } catch (error) {
      if (gen === this.#gen) this.failure = toDisplayError(error);
    } finally {
      if (gen === this.#gen) {
        this.#pages.read(from, to);
        // After a failure the next scroll asks again (no retry loop).
        if (ok) this.#readVisible();
      }
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
    this.#pages.forgetReads();
    if (!this.#sortOnly) this.#counts.forget();
    this.#sortOnly = false;
    this.loading = true;
    if (!keepPosition) this.#awaiting = true;
    // One first-page read out per list: wait for the one that is out; a newer query asked
    // meanwhile makes this one superseded, and it is never sent.
    while (this.#firstRead) {
      await this.#firstRead;
      if (gen !== this.#gen) return;
    }
    const query = this.#query.snapshotQuery();
    const top = restore ? restore.top : keepPosition ? this.#visible[0] : 0;
    const firstPage = Math.floor(top / PAGE_SIZE);
    // The rows may have moved (a sync published new records): the current row stays on its
    // record, not on its old row number.
    const currentId = keepPosition ? this.#selection.currentId() : null;
    try {
      const read = this.#source.page(query, { offset: firstPage * PAGE_SIZE, limit: PAGE_SIZE });
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
      this.#pages.replace(firstPage, page.rows);
      const key = withoutSort(query);
      this.#counts.arrived(page.total, key);
      this.failure = null;
      this.#selection.stopWaiting();
      if (restore) {
        this.#selection.applyPosition(restore);
      } else if (!keepPosition) {
        this.#selection.clear();
        this.#selection.scrollRequest = { index: 0, align: 'top' };
      } else if (currentId !== null) {
        this.#selection.reselect(currentId);
        this.#selection.place(firstPage, page.rows);
      }
      this.#pages.version++;
      this.loading = false;
      this.ensureRange(top, top + 60, top);
      this.#awaiting = false;
      this.settle();
      // Only for a result that stays: a search still being typed supersedes it before then.
      // Another sort of the same rows keeps both.
      const wanted = this.#counts.wanted(key);
      if (wanted.count || wanted.facets) {
        setTimeout(() => {
          if (gen !== this.#gen) return;
          const current = (): boolean => gen === this.#gen;
          if (wanted.count) void this.#counts.count(() => this.#source.count(query), current, key).then((exact) => this.#counted(exact));
          if (wanted.facets) void this.#counts.readFacets(() => this.#source.facets(query), current, key);
        }, SECONDARY_DELAY_MS);
      }
    } catch (error) {
      if (gen !== this.#gen) return;
      this.loading = false;
      this.failure = toDisplayError(error);
      this.#queued = [];
      this.#awaiting = false;
      this.settle();
    }
  }

  /** The exact total arrived: End pressed while it was a lower bound moves to the last row now. */
  #counted(exact: RowCount | null): void {
    const mode = this.#selection.endWanted;
    if (exact === null || mode === null) return;
    this.#selection.endWanted = null;
    this.#selection.cursorTo(exact.count - 1, mode);
  }

  /** Once the new result is on screen (and no search is still being typed): actions that waited for it run now, in order. */
  settle(): void {
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

  /** Moves to the last row of the result; waits for the exact count when only a lower bound is known. */
  cursorToEnd(mode: CursorMode): void {
    const total = this.#counts.total;
    if (!total || total.count === 0) return;
    if (!total.exact) {
      this.#selection.endWanted = mode;
      void this.exactTotal().catch(() => undefined);
      return;
    }
    this.#selection.cursorTo(total.count - 1, mode);
  }

  /** The exact number of rows in the result (counted if the total on screen is a lower bound). */
  async exactTotal(): Promise<number> {
    const total = this.#counts.total;
    if (total?.exact) return total.count;
    const gen = this.#gen;
    const exact = await this.#source.count(this.#query.snapshotQuery());
    if (gen === this.#gen) this.#counts.total = exact;
    return exact.count;
  }


  /**
   * The selected rows, when every one of them is already on hand (no call needed), else null.
   * Lets a copy put them on the clipboard within the key press's own event.
   */
  selectedRowsOnHand(): Row[] | null {
    const selection = this.#selection.selection;
    if (this.#selection.selectedCount === 0 || (isOpenEnded(selection) && !this.#counts.total?.exact)) return null;
    const out: Row[] = [];
    for (const w of windows(selection, this.#counts.total?.count ?? 0, READ_CHUNK)) {
      const rows = this.#pages.cached(w.offset, w.limit);
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
    const query = this.#query.snapshotQuery();
    const selection = this.#selection.selection;
    const total = isOpenEnded(selection) ? await this.exactTotal() : (this.#counts.total?.count ?? 0);
    const wins = windows(selection, total, READ_CHUNK);
    const all = wins.reduce((n, w) => n + w.limit, 0);
    // A few windows are asked for ahead, so each call's transport overlaps the next one's read.
    const pending: Promise<Row[]>[] = [];
    let next = 0;
    const askAhead = (): void => {
      while (pending.length < READ_AHEAD && next < wins.length) {
        const w = wins[next++] as RowWindow;
        const cached = this.#pages.cached(w.offset, w.limit);
        const read = cached ? Promise.resolve(cached) : this.#source.page(query, w).then((p) => p.rows);
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


  /**
   * Finds a record in the result on screen (its first {@link REVEAL_SCAN} rows) and makes it the
   * current, selected row, scrolled into the middle of the table, with its detail open.
   * @returns false when it is not among them
   */
  async reveal(id: string): Promise<boolean> {
    await this.whenSettled();
    const gen = this.#gen;
    const query = this.#query.snapshotQuery();
    const end = Math.min(REVEAL_SCAN, this.#counts.total?.count ?? 0);
    for (let offset = 0; offset < end; offset += READ_CHUNK) {
      const limit = Math.min(READ_CHUNK, end - offset);
      const rows = this.#pages.cached(offset, limit) ?? (await this.#source.page(query, { offset, limit })).rows;
      if (gen !== this.#gen) return false;
      const at = rows.findIndex((r) => r.id === id);
      if (at >= 0) {
        const index = offset + at;
        this.#selection.detailId = id;
        this.#selection.cursorTo(index, 'select');
        this.#selection.scrollRequest = { index, align: 'center' };
        return true;
      }
      if (rows.length < limit) break;
    }
    return false;
  }
}

/** A query without its sort keys, as text: what facet counts and totals depend on. */
function withoutSort(query: object): string {
  return stableJson({ ...query, sort: null, thenBy: null });
}
