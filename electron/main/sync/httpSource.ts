/**
 * The sync engine's {@link PageSource} over the service's HTTP API (service-api.md §4.1, §4.2, §5):
 * a thin adapter over the API client (electron/main/api/client.ts), which owns the parameter
 * encoding, both auth headers, retries with backoff (honouring `Retry-After`), timeouts, typed
 * errors (AUTH_REJECTED on 401/403 at once) and per-record validation. An invalid record is passed
 * on with its reason and kept by the cache, never dropped.
 */
import type { ErrorCode } from '../../../shared/errors.ts';
import { createApiClient, type ParsedRecord } from '../api/client.ts';
import type { StagedRecord } from '../cache/ingest.ts';
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
}

function staged(record: ParsedRecord<unknown>): StagedRecord {
  return record.ok ? { ok: true, record: record.raw } : { ok: false, id: record.id, raw: record.raw, reason: record.reason };
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
  });
  const scope = options.accountId ? { 'meta.account_id': options.accountId } : {};
  return {
    async fetchPage(resource, page, pageSize, signal) {
      const result =
        resource === 'contacts'
          ? await client.listContacts({ page, pageSize, ...scope }, { signal })
          : await client.listOrders({ page, pageSize, ...scope }, { signal });
      return { count: result.count, records: result.records.map(staged), bodyLength: result.bodyLength };
    },
  };
}
