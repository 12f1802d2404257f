/**
 * What the sync engine reads from: pages of a resource's listing (service-api.md §4.1, §4.2). The
 * app's source is the HTTP API client (httpSource.ts); tests wrap it to play other services.
 */
import type { StagedRecord } from '../cache/build/ingest.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../../shared/views.ts';

/** One page as the engine needs it. */
export interface FetchedPage {
  count: number;
  records: StagedRecord[];
  /**
   * Characters of the page's response body, when the source knows them: the sync then keeps its
   * pages within a character budget (decisions.ts `pageSizeWithin`).
   */
  bodyLength?: number;
}

/** Where pages come from (the API client in the app; anything in tests). */
export interface PageSource {
  /**
   * Fetches one page. Must reject with a LetterdeskError (AUTH_REJECTED on 401/403, other codes
   * after its own retries) and honour `signal` promptly (CANCELLED).
   * @param page the page number the service is asked for (the engine adds 1 for a service that
   *   counts from 1)
   * @param pageSize rows asked
   * @param query a saved view's service query (§4.1 / §4.2 parameters but `page` and `pageSize`),
   *   sent with the page; absent: the whole listing
   */
  fetchPage(resource: Resource, page: number, pageSize: number, signal: AbortSignal, query?: ViewServiceQuery): Promise<FetchedPage>;
  /**
   * The request {@link PageSource.fetchPage} sends for these arguments: path and query string
   * relative to the base URL, never a token (what a view's membership records it was read with).
   */
  describe?(resource: Resource, page: number, pageSize: number, query?: ViewServiceQuery): string;
}
