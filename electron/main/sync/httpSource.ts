/**
 * A {@link PageSource} over HTTP (service-api.md §4.1, §4.2, §5) for the sync engine: GET one page,
 * retry timeouts, network errors, 5xx and 429 (honouring `Retry-After`) with backoff, stop at once on
 * 401/403 (AUTH_REJECTED), validate each record on its own (an invalid record is kept with its
 * reason, never dropped). Reports every request outcome through `onOutcome` (connectivity).
 */
import { LetterdeskError, isLetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import { contactSchema, envelopeSchema, orderSchema, type Resource } from '../../../shared/serviceRecords.ts';
import type { StagedRecord } from '../cache/ingest.ts';
import type { FetchedPage, PageSource } from './engine.ts';

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
  /** Every request's outcome: `ok`, or the error code it failed with. */
  onOutcome?: (outcome: 'ok' | ErrorCode) => void;
}

const RETRYABLE = new Set<ErrorCode>(['SERVER_ERROR', 'RATE_LIMITED', 'NETWORK_UNREACHABLE', 'TIMEOUT', 'BAD_RESPONSE']);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new LetterdeskError('CANCELLED', 'The sync was cancelled.'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new LetterdeskError('CANCELLED', 'The sync was cancelled.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Creates the HTTP page source. */
export function createHttpPageSource(options: HttpPageSourceOptions): PageSource {
  const base = options.baseUrl.replace(/\/+$/, '');
  const retries = options.retries ?? 4;
  const backoff = options.backoffMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function once(resource: Resource, page: number, pageSize: number, signal: AbortSignal): Promise<{ result?: FetchedPage; error?: LetterdeskError; retryAfterMs?: number }> {
    const url = new URL(resource === 'contacts' ? `${base}/contacts` : `${base}/orders/`);
    url.searchParams.set('page', String(page));
    url.searchParams.set('pageSize', String(pageSize));
    if (options.accountId) url.searchParams.set('meta.account_id', options.accountId);
    const headers: Record<string, string> = { authorization: `Bearer ${options.tokens.accessToken}`, accept: 'application/json' };
    if (resource === 'contacts' && options.tokens.refreshToken) headers.refreshtoken = options.tokens.refreshToken;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.any([signal, timeout]) });
      body = await response.text();
    } catch {
      if (signal.aborted) return { error: new LetterdeskError('CANCELLED', 'The sync was cancelled.') };
      if (timeout.aborted) return { error: new LetterdeskError('TIMEOUT', `The service did not answer within ${timeoutMs / 1000} s. Check the connection and try again.`) };
      return { error: new LetterdeskError('NETWORK_UNREACHABLE', 'The service could not be reached (connection failed or dropped). Check the network and the base URL, then try again.') };
    }
    if (response.status === 401 || response.status === 403) {
      return { error: new LetterdeskError('AUTH_REJECTED', `The service rejected the access token (HTTP ${response.status}). Enter new tokens for this profile, then sync again.`) };
    }
    if (response.status === 429) {
      const ra = Number(response.headers.get('retry-after'));
      return { error: new LetterdeskError('RATE_LIMITED', 'The service is limiting requests (HTTP 429). Wait a minute and sync again.'), retryAfterMs: Number.isFinite(ra) ? ra * 1000 : undefined };
    }
    if (response.status >= 500) return { error: new LetterdeskError('SERVER_ERROR', `The service failed (HTTP ${response.status}). Try again later.`) };
    if (!response.ok) return { error: new LetterdeskError('BAD_RESPONSE', `The service answered HTTP ${response.status}. Check the base URL of the profile.`) };
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return { error: new LetterdeskError('BAD_RESPONSE', 'The service sent something that is not JSON. Check the base URL of the profile.') };
    }
    const env = envelopeSchema.safeParse(json);
    if (!env.success) return { error: new LetterdeskError('BAD_RESPONSE', 'The service answered without the expected {message, data: {count, rows}} envelope.') };
    const schema = resource === 'contacts' ? contactSchema : orderSchema;
    const records: StagedRecord[] = env.data.data.rows.map((raw) => {
      const parsed = schema.safeParse(raw);
      if (parsed.success) return { ok: true, record: raw };
      const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
      return { ok: false, id: typeof id === 'string' ? id : null, raw, reason: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
    });
    return { result: { count: env.data.data.count, records } };
  }

  return {
    async fetchPage(resource, page, pageSize, signal) {
      for (let attempt = 0; ; attempt++) {
        const { result, error, retryAfterMs } = await once(resource, page, pageSize, signal);
        if (result) {
          options.onOutcome?.('ok');
          return result;
        }
        const err = error as LetterdeskError;
        if (err.code !== 'CANCELLED') options.onOutcome?.(err.code);
        if (!isLetterdeskError(err) || !RETRYABLE.has(err.code) || attempt >= retries) throw err;
        const wait = retryAfterMs ?? backoff * 2 ** attempt * (0.5 + Math.random());
        await sleep(Math.min(wait, 30_000), signal);
      }
    },
  };
}
