/**
 * Reads every page of a listing with bounded concurrency (DESIGN.md "Sync"): the first page alone
 * (to learn `count` and whether the server caps the page size), then the rest with at most
 * `concurrency` requests in flight, yielded in page order.
 *
 * Capped page size: when the first page returns r rows, fewer than the `pageSize` asked, although
 * more rows exist (`count` > offset + r), the server is taken to cap the page size at r and the
 * remaining pages are asked for with pageSize r. When that happens on a resumed read
 * (`startPage` > 0) the first page is not yielded, since a capping server may have taken its offset as
 * startPage × r rather than startPage × pageSize; reading restarts at page ⌊startPage × pageSize / r⌋
 * of size r instead (no row skipped). `onPageSizeCapped` reports the cap. Yielded pages carry their
 * own `page`, `pageSize` and `offset`.
 * Later short pages (drift: rows deleted while paging) are yielded as they are, with `short: true`;
 * the sync engine compares ids seen with `count` and repairs.
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import type { Contact, Order, Resource } from '../../../shared/serviceRecords.ts';
import type { ApiClient, ApiPage, ContactListParams, OrderListParams } from './client.ts';

type RecordOf<R extends Resource> = R extends 'contacts' ? Contact : Order;
type ParamsOf<R extends Resource> = R extends 'contacts' ? Omit<ContactListParams, 'page' | 'pageSize'> : Omit<OrderListParams, 'page' | 'pageSize'>;

/** Options of {@link fetchAllPages}. */
export interface FetchAllPagesOptions<R extends Resource> {
  client: ApiClient;
  resource: R;
  /** Filters (everything but page and pageSize). */
  params: ParamsOf<R>;
  /** Rows per request (1 … the server's maximum). */
  pageSize: number;
  /** Requests in flight at most. @default 4 */
  concurrency?: number;
  /** Aborts every request; the iteration then throws CANCELLED. */
  signal?: AbortSignal;
  /** First page to read (resume), in units of `pageSize`. @default 0 */
  startPage?: number;
  /** Called once with `count` from the first page read. */
  onCount?: (count: number) => void;
  /** Called when the server turned out to cap the page size, with the size it serves. */
  onPageSizeCapped?: (servedPageSize: number, askedPageSize: number) => void;
}

/**
 * Yields the pages of a listing in order (see the module comment).
 * @returns an async iterable of pages; breaking out of the loop aborts requests still in flight
 * @throws LetterdeskError from the client (after its retries), CANCELLED when `signal` aborts,
 *   VALIDATION for a bad pageSize/concurrency/startPage
 */
export async function* fetchAllPages<R extends Resource>(options: FetchAllPagesOptions<R>): AsyncGenerator<ApiPage<RecordOf<R>>, void, undefined> {
  const { client, resource, pageSize } = options;
  const concurrency = options.concurrency ?? 4;
  const startPage = options.startPage ?? 0;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new LetterdeskError('VALIDATION', `pageSize must be a whole number ≥ 1 (got ${pageSize})`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new LetterdeskError('VALIDATION', `concurrency must be a whole number ≥ 1 (got ${concurrency})`);
  if (!Number.isInteger(startPage) || startPage < 0) throw new LetterdeskError('VALIDATION', `startPage must be a whole number ≥ 0 (got ${startPage})`);

  const internal = new AbortController();
  const onAbort = () => internal.abort();
  if (options.signal?.aborted) internal.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const fetchPage = (page: number, size: number): Promise<ApiPage<RecordOf<R>>> => {
    const opts = { signal: internal.signal };
    if (resource === 'contacts') {
      return client.listContacts({ ...(options.params as ParamsOf<'contacts'>), page, pageSize: size }, opts) as Promise<ApiPage<RecordOf<R>>>;
    }
    return client.listOrders({ ...(options.params as ParamsOf<'orders'>), page, pageSize: size }, opts) as Promise<ApiPage<RecordOf<R>>>;
  };

  const checkCancelled = () => {
    if (options.signal?.aborted) throw new LetterdeskError('CANCELLED', `Reading the ${resource} was cancelled.`);
  };
  const inflight = new Map<number, Promise<ApiPage<RecordOf<R>>>>();
  try {
    const first = await fetchPage(startPage, pageSize);
    options.onCount?.(first.count);
    let size = pageSize;
    let nextPage = startPage + 1;
    const served = first.records.length;
    const capped = served > 0 && served < pageSize && first.count > first.offset + served;
    if (capped) {
      size = served;
      options.onPageSizeCapped?.(served, pageSize);
    }
    if (capped && startPage > 0) {
      // Which rows the server returned is ambiguous (offset startPage × pageSize, or × its cap?):
      // drop them and re-read from the wanted offset in units of the cap.
      nextPage = Math.floor((startPage * pageSize) / size);
    } else {
      checkCancelled();
      yield first;
    }
    const lastPage = first.count === 0 ? -1 : Math.ceil(first.count / size) - 1;
    let launch = nextPage;
    const fill = () => {
      while (launch <= lastPage && inflight.size < concurrency) {
        const p = fetchPage(launch, size);
        p.catch(() => undefined); // observed when awaited; avoids an unhandled rejection meanwhile
        inflight.set(launch, p);
        launch++;
      }
    };
    for (let page = nextPage; page <= lastPage; page++) {
      fill();
      const result = await (inflight.get(page) as Promise<ApiPage<RecordOf<R>>>);
      inflight.delete(page);
      fill();
      checkCancelled();
      yield result;
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (inflight.size > 0) internal.abort();
  }
}
