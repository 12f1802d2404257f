/**
 * A list view's page cache: the rows read so far, by page of {@link PAGE_SIZE}, the most recently
 * stored {@link MAX_PAGES} kept; which pages are on their way; and a version the table watches.
 */

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

/** The pages of one result (the list replaces them when a new result arrives). */
export class PageCache<Row> {
  /** Bumped whenever rows arrive, so the table re-reads {@link rowAt}. */
  version = $state(0);

  // Deliberately not reactive: the table re-reads rows when `version` changes, so one bump covers
  // a whole page instead of one signal per row.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #pages = new Map<number, Row[]>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #inflight = new Set<number>();
  /** Reads of pages on screen out for the current result. */
  #reads = 0;

  /** The row at `index`, or undefined while its page is loading. Reactive via {@link version}. */
  rowAt(index: number): Row | undefined {
    void this.version;
    const page = this.#pages.get(Math.floor(index / PAGE_SIZE));
    return page?.[index % PAGE_SIZE];
  }

  /** The rows of page `p`, or undefined when it is not loaded. */
  page(p: number): Row[] | undefined {
    return this.#pages.get(p);
  }

  /**
   * The pages of rows `start`…`end` (up to row `total - 1`) that are neither loaded nor on their
   * way, as the first and last page of one read (at most `maxPages` long); null when there are
   * none or a read is out already (its answer asks again).
   */
  missing(start: number, end: number, total: number, maxPages: number): [number, number] | null {
    if (total === 0 || this.#reads >= PAGE_READS_OUT) return null;
    const last = Math.min(end, total - 1);
    let from = -1;
    let to = -1;
    for (let p = Math.floor(Math.max(0, start) / PAGE_SIZE); p <= Math.floor(last / PAGE_SIZE); p++) {
      if (this.#pages.has(p) || this.#inflight.has(p)) continue;
      if (from < 0) from = p;
      to = p;
    }
    return from >= 0 ? [from, Math.min(to, from + maxPages - 1)] : null;
  }

  /** A read of pages `from`…`to` (inclusive) went out. */
  reading(from: number, to: number): void {
    for (let p = from; p <= to; p++) this.#inflight.add(p);
    this.#reads++;
  }

  /** That read has its answer (or failed). */
  read(from: number, to: number): void {
    for (let p = from; p <= to; p++) this.#inflight.delete(p);
    this.#reads--;
  }

  /** Reads out for an earlier result no longer count (their answers are dropped). */
  forgetReads(): void {
    this.#inflight.clear();
    this.#reads = 0;
  }

  /** Keeps page `p`, dropping the least recently stored beyond {@link MAX_PAGES}. */
  store(p: number, rows: Row[]): void {
    this.#pages.delete(p);
    this.#pages.set(p, rows);
    while (this.#pages.size > MAX_PAGES) {
      const oldest = this.#pages.keys().next().value;
      if (oldest === undefined) break;
      this.#pages.delete(oldest);
    }
  }

  /** A new result: its first page read is the only one kept. */
  replace(p: number, rows: Row[]): void {
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    this.#pages = new Map([[p, rows]]);
  }

  /** Drops every page (another profile). */
  clear(): void {
    this.#pages.clear();
  }

  /** Rows `offset`… from the cache, or null when one of their pages is not loaded. */
  cached(offset: number, limit: number): Row[] | null {
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
}
