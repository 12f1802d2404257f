/**
 * The sample API's filtered-query cache (server.ts): a filtered query scans the dataset once and
 * keeps the matching ids (4 bytes each) of the last 4 queries, so paging through a filtered result
 * does not rescan. Keyed by the dataset's version, so no edit (or advance of its clock) is served
 * from a stale scan.
 */
import type { SampleDataset } from './dataset.ts';
import type { Endpoint } from './prerender.ts';

const KEPT = 4;

/** The matching ids of the last few filtered queries of one dataset. */
export class MatchCache {
  readonly #dataset: SampleDataset;
  readonly #entries = new Map<string, Int32Array>();

  constructor(dataset: SampleDataset) {
    this.#dataset = dataset;
  }

  /**
   * Ids (as numbers) of the rows matching a filter, in served order; cached for the last 4 queries.
   * `accountId` (from `meta.account_id`) is checked first without generating rows; `test` (when
   * other filters exist) runs on the id, generating the row only when a filter needs it.
   * @param key the filters' text key (query.ts `filterKey`)
   */
  ids(endpoint: Endpoint, key: string, accountId: string | null, test: ((id: string) => boolean) | null): Int32Array {
    const dataset = this.#dataset;
    const cacheKey = `${endpoint}|${dataset.version}|${key}`;
    const hit = this.#entries.get(cacheKey);
    if (hit) {
      this.#entries.delete(cacheKey);
      this.#entries.set(cacheKey, hit);
      return hit;
    }
    let ids = new Int32Array(1024);
    let n = 0;
    const idList = endpoint === 'contacts' ? dataset.contactIds() : dataset.orderIds();
    for (const id of idList) {
      if (accountId !== null && dataset.accountIdOf(endpoint, id) !== accountId) continue;
      if (test && !test(id)) continue;
      if (n === ids.length) {
        const grown = new Int32Array(ids.length * 2);
        grown.set(ids);
        ids = grown;
      }
      ids[n++] = Number(id);
    }
    const result = ids.slice(0, n);
    this.#entries.set(cacheKey, result);
    while (this.#entries.size > KEPT) this.#entries.delete(this.#entries.keys().next().value as string);
    return result;
  }

  /** Forgets every kept result (none would be served again once the dataset changed). */
  clear(): void {
    this.#entries.clear();
  }
}
