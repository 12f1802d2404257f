/**
 * A list view's counts: the total of the result on screen (a lower bound until counted) and its
 * facet counts, kept while only the sort changes (another order of the same rows).
 */
import type { RowCount } from '../../../../shared/query.ts';

/** The total and facet counts of one list's result. */
export class ResultCounts<Facets> {
  /** Row count of the result on screen; null before the first answer. */
  total = $state.raw<RowCount | null>(null);
  facets = $state.raw<Facets | null>(null);
  /** The facet counts belong to the result on screen (false while a new result's counts are read). */
  facetsCurrent = $state(true);

  /** The query, without its sort, whose facet counts are on screen (null after any other change). */
  #facetsFor: string | null = null;
  /** The exact total of that query, once counted. */
  #exactFor: { key: string; total: RowCount } | null = null;

  /** Another profile: nothing is known. */
  clear(): void {
    this.total = null;
    this.facets = null;
  }

  /** The query changed in more than its sort: the counts kept no longer apply to it. */
  forget(): void {
    this.#facetsFor = null;
    this.#exactFor = null;
  }

  /**
   * A new result's first page arrived with `total`; an exact total counted for the same query
   * (`key`: the query without its sort) stands in for a lower bound.
   */
  arrived(total: RowCount, key: string): void {
    this.total = !total.exact && this.#exactFor?.key === key ? this.#exactFor.total : total;
  }

  /** A later page's total: kept unless it would replace an exact total by a lower bound. */
  paged(total: RowCount): void {
    if (total.exact || !this.total?.exact) this.total = total;
  }

  /** What the result on screen still needs counted: its exact total, its facet counts. */
  wanted(key: string): { count: boolean; facets: boolean } {
    const wanted = { count: !this.total?.exact, facets: this.#facetsFor !== key };
    this.facetsCurrent = !wanted.facets;
    return wanted;
  }

  /**
   * Counts the result exactly, unless it is no longer current by then.
   * @returns the exact total, or null when it failed (the lower bound stays on screen) or the result changed
   */
  async count(read: () => Promise<RowCount>, current: () => boolean, key: string): Promise<RowCount | null> {
    try {
      const exact = await read();
      if (!current()) return null;
      this.total = exact;
      this.#exactFor = { key, total: exact };
      return exact;
    } catch {
      return null;
    }
  }

  /** Reads the facet counts, unless the result is no longer current by then. */
  async readFacets(read: () => Promise<Facets>, current: () => boolean, key: string): Promise<void> {
    try {
      const facets = await read();
      if (!current()) return;
      this.facets = facets;
      this.#facetsFor = key;
      this.facetsCurrent = true;
    } catch {
      // Facet counts are secondary; the filter options keep their last counts.
    }
  }
}
