/**
 * The sync engine's {@link PageSource} over the service's HTTP API (service-api.md §4.1, §4.2, §5):
 * a thin adapter over the API client (electron/main/api/client.ts), which owns the parameter
 * encoding, both auth headers, retries with backoff (honouring `Retry-After`), timeouts, typed
 * errors (AUTH_REJECTED on 401/403 at once) and per-record validation. An invalid record is passed
 * on with its reason and kept by the cache, never dropped. A saved view's service query is sent
 * with every page of its refresh.
 */
import type { ErrorCode } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../../shared/views.ts';
import { createApiClient, type ContactListParams, type OrderListParams, type ParsedRecord } from '../api/client.ts';
import { describeRequest } from '../api/params.ts';
import { DEFAULT_QUERY_ENCODING, type ContactServiceQuery, type OrderServiceQuery, type QueryEncoding } from '../../../shared/serviceQuery.ts';
import type { StagedRecord } from '../cache/build/ingest.ts';
import type { PageSource } from './pageSource.ts';

/** Options of {@link createHttpPageSource}. */
export interface HttpPageSourceOptions {
  /** Ends in `/api/v1` (§9). */
  baseUrl: string;
  tokens: { accessToken: string; refreshToken: string | null };
  /** `meta.account_id` scope (§4.1, §4.2). */
  accountId?: string | null;
  /** Per request, in ms. @default 30000 */
  timeoutMs?: number;
  /** Retries after the first attempt. @default 4 */
  retries?: number;
  /** First backoff in ms (doubles per retry, jittered). @default 250 */
  backoffMs?: number;
  /** Every request's final outcome: `ok`, or the error code it failed with (not sent for cancels). */
  onOutcome?: (outcome: 'ok' | ErrorCode) => void;
  /** How a saved view's query goes on the wire (the profile's setting). @default DEFAULT_QUERY_ENCODING */
  encoding?: QueryEncoding;
}

function staged(record: ParsedRecord<unknown>): StagedRecord {
  return record.ok ? { ok: true, record: record.raw } : { ok: false, id: record.id, raw: record.raw, reason: record.reason };
}

/** Whether a view's query names its own `meta.account_id` (then the profile's scope does not apply). */
function setsAccount(query: ViewServiceQuery | undefined): boolean {
  const meta = query?.meta;
  return query?.['meta.account_id'] !== undefined || (typeof meta === 'object' && meta !== null && !Array.isArray(meta) && meta.account_id !== undefined);
}

/**
 * The parameters of one page: a saved view's query (§4.1 / §4.2 names, as the API client takes
 * them), the profile's `meta.account_id` scope unless the query sets its own, and the page.
 */
function pageParams(query: ViewServiceQuery | undefined, accountId: string | null | undefined, page: number, pageSize: number): Record<string, unknown> {
  const scope = accountId && !setsAccount(query) ? { 'meta.account_id': accountId } : {};
  return { ...(query ?? {}), ...scope, page, pageSize };
}

/**
 * The request of one page as the API client sends it in `encoding` (api/params.ts): path and query
 * string relative to the base URL (§4.1 `/contacts`, §4.2 `/orders/`); the tokens travel in
 * headers, never here.
 * @throws LetterdeskError VALIDATION for parameters the client refuses
 */
export function describePageRequest(resource: Resource, params: Record<string, unknown>, encoding: QueryEncoding = DEFAULT_QUERY_ENCODING): string {
  const { page, pageSize, ...query } = params as unknown as { page: number; pageSize: number } & ContactServiceQuery & OrderServiceQuery;
  return describeRequest(resource, query, page, pageSize, encoding);
}

/** Creates the HTTP page source. */
export function createHttpPageSource(options: HttpPageSourceOptions): PageSource {
  const tokens = { accessToken: options.tokens.accessToken, refreshToken: options.tokens.refreshToken };
  const client = createApiClient({
    baseUrl: options.baseUrl,
    getTokens: async () => tokens,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    retry: { limit: options.retries ?? 4, baseDelayMs: options.backoffMs ?? 250 },
    onOutcome: (outcome) => options.onOutcome?.(outcome.ok ? 'ok' : (outcome.code ?? 'INTERNAL')),
    ...(options.encoding ? { encoding: options.encoding } : {}),
  });
  return {
    async fetchPage(resource, page, pageSize, signal, query) {
      const params = pageParams(query, options.accountId, page, pageSize);
      const result =
        resource === 'contacts'
          ? await client.listContacts(params as unknown as ContactListParams, { signal })
          : await client.listOrders(params as unknown as OrderListParams, { signal });
      return { count: result.count, records: result.records.map(staged), bodyLength: result.bodyLength };
    },
    describe(resource, page, pageSize, query) {
      return describePageRequest(resource, pageParams(query, options.accountId, page, pageSize), options.encoding);
    },
  };
}
