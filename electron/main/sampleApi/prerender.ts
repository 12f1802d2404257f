/**
 * The sample API's prerendered pages (`SampleApiOptions.prerenderPageSize`, for the benchmark):
 * every page of both unfiltered listings serialised once, at start.
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import { SUCCESS_MESSAGE } from '../../../shared/serviceRecords.ts';
import type { SampleDataset } from './dataset.ts';
import { hasContactFilter, hasOrderFilter, parseContactQuery, parseOrderQuery } from './query.ts';

/** The two listings the sample API serves. */
export type Endpoint = 'contacts' | 'orders';

/** The page sizes to prerender (server.ts `SampleApiOptions`). */
export interface PrerenderOptions {
  prerenderPageSize?: number;
  prerenderOrdersPageSize?: number;
}

/** The §2.1 envelope of one page, serialised. */
export function pageBody(count: number, rows: readonly object[]): Buffer {
  return Buffer.from(JSON.stringify({ message: SUCCESS_MESSAGE, data: { count, rows } }));
}

/**
 * The pages of both unfiltered listings at their prerender page sizes, serialised once (see
 * `SampleApiOptions.prerenderPageSize` and `prerenderOrdersPageSize`); undefined when not asked for.
 * @throws LetterdeskError VALIDATION naming the option whose size is not 1 … `maxPageSize`
 * @returns `answer(endpoint, query)`: the page's body when the query is a plain page of that size of
 *   the unedited dataset, else undefined (the request is served as usual)
 */
export function prerender(dataset: SampleDataset, options: PrerenderOptions, maxPageSize: number): { answer(endpoint: Endpoint, sp: URLSearchParams): Buffer | undefined } | undefined {
  if (options.prerenderPageSize === undefined) return undefined;
  for (const [option, size] of Object.entries(options)) {
    if (size !== undefined && (!Number.isInteger(size) || size < 1 || size > maxPageSize)) {
      throw new LetterdeskError('VALIDATION', `${option} must be a whole number from 1 to the maximum page size ${maxPageSize} (got ${size}).`);
    }
  }
  const sizes: Record<Endpoint, number> = { contacts: options.prerenderPageSize, orders: options.prerenderOrdersPageSize ?? options.prerenderPageSize };
  const pages: Record<Endpoint, Buffer[]> = { contacts: [], orders: [] };
  for (let offset = 0; offset < dataset.contactCount; offset += sizes.contacts) pages.contacts.push(pageBody(dataset.contactCount, dataset.contactsFrom(offset, sizes.contacts)));
  for (let offset = 0; offset < dataset.orderCount; offset += sizes.orders) pages.orders.push(pageBody(dataset.orderCount, dataset.ordersFrom(offset, sizes.orders)));
  const firstOrders = sizes.orders === options.prerenderPageSize ? undefined : pageBody(dataset.orderCount, dataset.ordersFrom(0, options.prerenderPageSize));
  const version = dataset.version;
  return {
    answer(endpoint, sp) {
      if (dataset.version !== version) return undefined;
      let plain: boolean;
      let page: number;
      try {
        if (endpoint === 'contacts') {
          const q = parseContactQuery(sp, maxPageSize);
          plain = !hasContactFilter(q) && !q.withPropertyAddresses && q.pageSize === sizes.contacts;
          page = q.page;
        } else {
          const q = parseOrderQuery(sp, maxPageSize);
          if (firstOrders && !hasOrderFilter(q) && q.pageSize === options.prerenderPageSize && q.page === 0) return firstOrders;
          plain = !hasOrderFilter(q) && q.pageSize === sizes.orders;
          page = q.page;
        }
      } catch {
        return undefined; // the usual path answers 400
      }
      return plain ? pages[endpoint][page] : undefined;
    },
  };
}
