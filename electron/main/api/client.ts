/**
 * The API client of the service's two read endpoints (`service-api.md` §4.1, §4.2), on ky.
 *
 * - Parameters are the service query of shared/serviceQuery.ts plus the page, checked before
 *   anything is sent (an impossible date or an unknown parameter is VALIDATION, no request made) and
 *   written in the profile's encoding (`params.ts`; docs/service-api-notes.md).
 * - Auth headers as §5 shows them: `Authorization: Bearer <access>` on both endpoints, and
 *   `refreshtoken: <refresh>` on `/contacts` only. Tokens are read through `getTokens()` before every
 *   attempt (so new tokens apply at once), registered with the logger's redaction, and never put in a
 *   message, a log line, `details` or a `cause`.
 * - Responses are checked against the §2.1 envelope; each row is validated on its own against the
 *   §2.2/§2.3 schema (unknown fields kept). A row that fails is returned as `{ ok: false, id, raw,
 *   reason }` in its place: it never fails the page and is never dropped.
 * - Failures become `LetterdeskError`s with stable codes (shared/errors.ts): AUTH_REJECTED (401/403),
 *   RATE_LIMITED (429), SERVER_ERROR (5xx), NETWORK_UNREACHABLE (refused, reset, DNS, dropped or
 *   truncated body), TIMEOUT (per-attempt timeout or 408), BAD_RESPONSE (not JSON, not the envelope,
 *   a redirect, an answer over the size cap of its page, other unexpected status), VALIDATION (the
 *   service answered 400 to our query), CANCELLED.
 * - No redirect is followed (a 3xx is BAD_RESPONSE naming where the service pointed): the tokens
 *   stay with the profile's base URL, and only its own answers are taken as data.
 * - A body is read up to a cap derived from the page size ({@link responseByteCap}), never beyond.
 * - Retries with exponential backoff and full jitter for TIMEOUT, NETWORK_UNREACHABLE, SERVER_ERROR,
 *   RATE_LIMITED (waiting what `Retry-After` says instead, capped) and for a 2xx body that is not JSON
 *   (a proxy page or a cut-off body). Never for 400/401/403/404, a wrong envelope, or cancellation.
 *   ky's own retry is off so body-read failures are retried as well; ky builds the URL and headers.
 */
import ky from 'ky';
import { z } from 'zod';
import { joinSentences, LetterdeskError, isLetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import {
  campaignSchema,
  contactLabelSchema,
  contactSchema,
  contactSnapshotSchema,
  envelopeSchema,
  orderContactSchema,
  orderSchema,
  productSchema,
  templateSchema,
  type Contact,
  type Order,
} from '../../../shared/serviceRecords.ts';
import { logger, redact, registerSecret } from '../base/log.ts';
import { isLoopbackHost } from '../../../shared/loopback.ts';
import { DEFAULT_QUERY_ENCODING, type QueryEncoding, type ServiceQuery } from '../../../shared/serviceQuery.ts';
import { describeRequest, encodeContactParams, encodeOrderParams, type ContactListParams, type OrderListParams } from './params.ts';
import { authFailure, isFailure, nestedTooDeeply, nestsDeeperThan, readBodyCapped, redirectFailure, responseByteCap, type Failure } from './response.ts';

export type { ContactListParams, OrderListParams } from './params.ts';
export { describeRequest } from './params.ts';
export { ONE_ROW_RESPONSE_BYTES, RESPONSE_BYTES_BASE, RESPONSE_BYTES_PER_ROW, responseByteCap } from './response.ts';

/** The credentials of a profile (§5). `refreshToken` is sent on `/contacts` when not null. */
export interface Tokens {
  accessToken: string;
  refreshToken: string | null;
}

/** Retry policy. Delays in milliseconds. */
export interface RetryPolicy {
  /** Retries after the first attempt. @default 4 */
  limit?: number;
  /** Delay before the first retry; doubles per retry, then full jitter (a random 50–100 %). @default 500 */
  baseDelayMs?: number;
  /** Upper bound of a backoff delay. @default 30000 */
  maxDelayMs?: number;
  /** Upper bound of a wait that `Retry-After` asks for. @default 60000 */
  maxRetryAfterMs?: number;
}

/** The final outcome of one call (after retries), for connectivity tracking. Not sent for CANCELLED. */
export interface RequestOutcome {
  ok: boolean;
  code?: ErrorCode;
  at: Date;
}

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** The profile's base URL, ending in `/api/v1` (§9). */
  baseUrl: string;
  /** Returns the tokens to send; called before every attempt. May throw (e.g. AUTH_MISSING). */
  getTokens: () => Promise<Tokens>;
  /** Per-attempt timeout covering the response and its body, in ms. @default 30000 */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Called once per call with its final outcome. */
  onOutcome?: (outcome: RequestOutcome) => void;
  /** How §4.1's lists and dates are written (the profile's setting). @default DEFAULT_QUERY_ENCODING */
  encoding?: QueryEncoding;
}

/**
 * One row of a page: valid (`record` and `raw` are the same object: the row as it arrived, checked
 * against the §2 schema, unknown fields included) or not (with its id when it has one, and why).
 */
export type ParsedRecord<T> = { ok: true; record: T; raw: unknown } | { ok: false; id: string | null; raw: unknown; reason: string };

/** One page of a listing. `JSON.stringify(raw)` of each record is the row as the service sent it. */
export interface ApiPage<T> {
  /** The page asked for (zero-based). */
  page: number;
  /** The page size asked for. */
  pageSize: number;
  /** Position of the first row in the whole result: page × pageSize. */
  offset: number;
  /** `data.count`: matching records on the service at the time of this read. */
  count: number;
  /** Every row of `data.rows`, in server order. */
  records: ParsedRecord<T>[];
  /** True when the page has fewer rows than asked although more rows exist (a capped page size, or drift). */
  short: boolean;
  /** Attempts this page took (1 = no retry). */
  attempts: number;
  /**
   * Length of the response body, in characters of the decoded text (UTF-16 code units: bytes for
   * ASCII JSON). What a page of this size costs in memory while it is parsed; the sync uses it to
   * keep pages near its budget (`PAGE_CHARS_BUDGET` in sync/engine.ts).
   */
  bodyLength: number;
}

/** The record type of each listing. */
export type RecordOf<R extends ServiceQuery['resource']> = R extends 'contacts' ? Contact : Order;

/** The client. Every call rejects with a `LetterdeskError` (codes in the module comment). */
export interface ApiClient {
  /** §4.1 `GET {base_url}/contacts`: any contact filter, and the page (default 0 and 10 rows). */
  listContacts(params: ContactListParams, opts?: { signal?: AbortSignal }): Promise<ApiPage<Contact>>;
  /** §4.2 `GET {base_url}/orders/`: any order filter, and the page. */
  listOrders(params: OrderListParams, opts?: { signal?: AbortSignal }): Promise<ApiPage<Order>>;
  /** One page of a service query, of either listing. */
  listQuery<Q extends ServiceQuery>(query: Q, page: number, pageSize: number, opts?: { signal?: AbortSignal }): Promise<ApiPage<RecordOf<Q['resource']>>>;
  /**
   * The whole address of that page's request (base URL, path, query string) as it would be sent;
   * tokens travel in headers and never appear in it.
   * @throws LetterdeskError VALIDATION as the calls do
   */
  requestUrl(query: ServiceQuery, page: number, pageSize: number): string;
}

/**
 * Row validators with exactly the checks of the shared §2 schemas, built from their shapes as plain
 * (stripping) objects: zod compiles those to a fast path, much faster than the loose schemas.
 * The stripped output is not used; a valid row is returned as the parsed JSON itself, so every
 * unknown field, at every depth, is kept as sent.
 */
export const contactRowValidator = z.object({ ...contactSchema.shape, ContactLabels: z.array(z.object(contactLabelSchema.shape)) });
/** See {@link contactRowValidator}. */
export const orderRowValidator = z.object({
  ...orderSchema.shape,
  campaign: z.object(campaignSchema.shape),
  product: z.object(productSchema.shape),
  contacts: z.array(z.object({ ...orderContactSchema.shape, contact: z.object(contactSnapshotSchema.shape) })),
  template: z.object({ ...templateSchema.shape, creator: z.object(templateSchema.shape.creator.shape) }),
});

const ADVICE: Record<string, string> = {
  AUTH_REJECTED: 'Enter new tokens for this profile, then try again.',
  RATE_LIMITED: 'Wait a few minutes, then try again.',
  SERVER_ERROR: 'The service may be having problems; try again later.',
  NETWORK_UNREACHABLE: "Check the network connection and the profile's base URL; the cached data stays available.",
  TIMEOUT: 'The service or the connection is slow; try again later.',
  BAD_RESPONSE: "Check that the profile's base URL is the service's address ending in /api/v1.",
  VALIDATION: 'Check the filter values.',
};

const SAFE_TOKEN = /^[\x21-\x7e]+$/;

/** Parses `Retry-After` (seconds or HTTP date) into milliseconds; undefined when absent or invalid. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function networkReason(error: unknown): string {
  let e: unknown = error;
  for (let i = 0; i < 4 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return 'connection failed';
}

function recordId(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return (typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id)) ? String(id) : null;
}

function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.length ? i.path.map(String).join('.') : '(record)'}: ${i.message}`);
  return shown.join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}

/**
 * Creates a client for one base URL.
 * @throws LetterdeskError VALIDATION when `baseUrl` is not an https URL, or an http URL of exactly
 *   this computer (profiles/baseUrl.ts `isLoopbackHost`)
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new LetterdeskError('VALIDATION', 'The base URL is not a valid address. Use the full address ending in /api/v1.');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new LetterdeskError('VALIDATION', 'The base URL must start with https:// (or http:// for loopback).');
  if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
    throw new LetterdeskError('VALIDATION', `The base URL must use https: plain http would send the tokens unencrypted to ${base.hostname}. Plain http is allowed only for this computer (localhost, 127.0.0.1, [::1]).`);
  }
  const prefix = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  const where = base.host;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const limit = options.retry?.limit ?? 4;
  const baseDelayMs = options.retry?.baseDelayMs ?? 500;
  const maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
  const maxRetryAfterMs = options.retry?.maxRetryAfterMs ?? 60_000;
  const encoding = options.encoding ?? DEFAULT_QUERY_ENCODING;

  /** One attempt: response and body within `timeoutMs` (the parsed JSON and the body's length), or a Failure thrown. */
  const attempt = async (path: 'contacts' | 'orders/', searchParams: string, pageSize: number, signal: AbortSignal | undefined): Promise<{ json: unknown; bodyLength: number }> => {
    const tokens = await options.getTokens();
    registerSecret(tokens.accessToken);
    registerSecret(tokens.refreshToken);
    if (!tokens.accessToken || !SAFE_TOKEN.test(tokens.accessToken) || (tokens.refreshToken !== null && tokens.refreshToken !== '' && !SAFE_TOKEN.test(tokens.refreshToken))) {
      throw new LetterdeskError('VALIDATION', 'A stored token contains spaces, line breaks or other characters that cannot be sent in a header. Paste the tokens for this profile again.');
    }
    const headers: Record<string, string> = { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/json' };
    if (path === 'contacts' && tokens.refreshToken) headers.refreshtoken = tokens.refreshToken;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let response: Response;
      let text: string;
      try {
        response = await ky.get(path, { prefix, searchParams, headers, timeout: false, retry: 0, throwHttpErrors: false, redirect: 'manual', signal: controller.signal });
        text = await readBodyCapped(response, responseByteCap(pageSize), pageSize);
      } catch (error) {
        if (isFailure(error)) throw error;
        if (timedOut) throw { code: 'TIMEOUT', what: `no complete answer within ${timeoutMs} ms`, retryable: true } satisfies Failure;
        if (signal?.aborted) throw { code: 'CANCELLED', what: 'cancelled', retryable: false } satisfies Failure;
        throw { code: 'NETWORK_UNREACHABLE', what: `could not reach ${where} (${networkReason(error)})`, retryable: true } satisfies Failure;
      }
      const status = response.status;
      if (status >= 300 && status <= 399) throw redirectFailure(status, response.headers.get('location'), response.url || `${prefix}/${path}`);
      if (status === 401 || status === 403) throw authFailure(status, path === 'contacts' && !tokens.refreshToken);
      if (status === 429) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        throw { code: 'RATE_LIMITED', status, what: 'the service is limiting the request rate (HTTP 429)', retryable: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) } satisfies Failure;
      }
      if (status === 408) throw { code: 'TIMEOUT', status, what: 'the service timed out (HTTP 408)', retryable: true } satisfies Failure;
      if (status >= 500) {
        const retryAfterMs = status === 503 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
        throw { code: 'SERVER_ERROR', status, what: `the service answered HTTP ${status}`, retryable: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) } satisfies Failure;
      }
      if (status === 400) {
        let said = '';
        try {
          if (nestsDeeperThan(text)) throw new Error('nested too deeply');
          const body = JSON.parse(text) as { message?: unknown };
          if (typeof body.message === 'string') said = `: ${redact(body.message).slice(0, 200)}`;
        } catch {
          // not JSON: say nothing more
        }
        throw { code: 'VALIDATION', status, what: `the service refused the query (HTTP 400${said})`, retryable: false } satisfies Failure;
      }
      if (status < 200 || status > 299) throw { code: 'BAD_RESPONSE', status, what: `unexpected HTTP ${status}`, retryable: false } satisfies Failure;
      if (nestsDeeperThan(text)) throw nestedTooDeeply(status);
      try {
        return { json: JSON.parse(text) as unknown, bodyLength: text.length };
      } catch {
        const html = /^\s*</.test(text);
        throw { code: 'BAD_RESPONSE', status, what: html ? 'the answer was an HTML page, not JSON' : 'the answer was not valid JSON (cut off?)', retryable: true } satisfies Failure;
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };

  /** The call: attempts with retries, then the envelope check. */
  const call = async (
    path: 'contacts' | 'orders/',
    searchParams: string,
    pageSize: number,
    signal: AbortSignal | undefined,
  ): Promise<{ json: { count: number; rows: unknown[] }; attempts: number; bodyLength: number }> => {
    const endpoint = `GET /${path}`;
    const cancelled = () => new LetterdeskError('CANCELLED', `The request ${endpoint} was cancelled.`);
    const report = (ok: boolean, code?: ErrorCode) => {
      try {
        options.onOutcome?.(ok ? { ok, at: new Date() } : { ok, code, at: new Date() });
      } catch (error) {
        logger.error('API: onOutcome listener failed', error);
      }
    };
    for (let attemptNo = 1; ; attemptNo++) {
      if (signal?.aborted) throw cancelled();
      let failure: Failure;
      try {
        const { json, bodyLength } = await attempt(path, searchParams, pageSize, signal);
        const envelope = envelopeSchema.safeParse(json);
        if (!envelope.success) {
          failure = { code: 'BAD_RESPONSE', what: `the answer is not the {message, data: {count, rows}} envelope (${describeIssues(envelope.error.issues)})`, retryable: false };
        } else {
          report(true);
          return { json: envelope.data.data, attempts: attemptNo, bodyLength };
        }
      } catch (error) {
        if (isLetterdeskError(error)) {
          if (error.code !== 'CANCELLED') report(false, error.code);
          throw error;
        }
        if (isFailure(error)) failure = error;
        else failure = { code: 'INTERNAL', what: `unexpected failure (${(error as Error)?.name ?? 'error'})`, retryable: false };
      }
      if (failure.code === 'CANCELLED') throw cancelled();
      if (!failure.retryable || attemptNo > limit) {
        report(false, failure.code);
        const tries = attemptNo > 1 ? ` after ${attemptNo} attempts` : '';
        throw new LetterdeskError(failure.code, joinSentences(`${endpoint} failed: ${failure.what}${tries}`, failure.advice ?? ADVICE[failure.code] ?? 'Details are in the log file.'), {
          details: { endpoint, status: failure.status ?? null, attempts: attemptNo },
        });
      }
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attemptNo - 1)) * (0.5 + Math.random() * 0.5);
      const delay = failure.retryAfterMs !== undefined ? Math.min(failure.retryAfterMs, maxRetryAfterMs) : backoff;
      logger.warn(`API: ${endpoint} attempt ${attemptNo} failed (${failure.code}: ${failure.what}); retry ${attemptNo}/${limit} in ${Math.round(delay)} ms`);
      try {
        await sleep(delay, signal);
      } catch {
        throw cancelled();
      }
    }
  };

  const parseRows = <T>(rows: unknown[], validator: typeof contactRowValidator | typeof orderRowValidator): ParsedRecord<T>[] =>
    rows.map((raw) => {
      const result = validator.safeParse(raw);
      return result.success ? { ok: true, record: raw as T, raw } : { ok: false, id: recordId(raw), raw, reason: describeIssues(result.error.issues) };
    });

  const pageOf = <T>(page: number, pageSize: number, answer: { json: { count: number; rows: unknown[] }; attempts: number; bodyLength: number }, records: ParsedRecord<T>[]): ApiPage<T> => {
    const offset = page * pageSize;
    const { json, attempts, bodyLength } = answer;
    return { page, pageSize, offset, count: json.count, records, short: records.length < pageSize && offset + records.length < json.count, attempts, bodyLength };
  };

  const listContacts = async (params: ContactListParams, opts?: { signal?: AbortSignal }): Promise<ApiPage<Contact>> => {
    const qs = encodeContactParams(params, encoding);
    const pageSize = params.pageSize ?? 10;
    const answer = await call('contacts', qs, pageSize, opts?.signal);
    return pageOf(params.page ?? 0, pageSize, answer, parseRows<Contact>(answer.json.rows, contactRowValidator));
  };
  const listOrders = async (params: OrderListParams, opts?: { signal?: AbortSignal }): Promise<ApiPage<Order>> => {
    const qs = encodeOrderParams(params, encoding);
    const answer = await call('orders/', qs, params.pageSize, opts?.signal);
    return pageOf(params.page, params.pageSize, answer, parseRows<Order>(answer.json.rows, orderRowValidator));
  };

  return {
    listContacts,
    listOrders,
    async listQuery<Q extends ServiceQuery>(query: Q, page: number, pageSize: number, opts?: { signal?: AbortSignal }): Promise<ApiPage<RecordOf<Q['resource']>>> {
      const q: ServiceQuery = query;
      const result = q.resource === 'contacts' ? await listContacts({ ...q.params, page, pageSize }, opts) : await listOrders({ ...q.params, page, pageSize }, opts);
      return result as ApiPage<RecordOf<Q['resource']>>;
    },
    requestUrl(query, page, pageSize) {
      return `${prefix}${describeRequest(query.resource, query.params, page, pageSize, encoding)}`;
    },
  };
}
