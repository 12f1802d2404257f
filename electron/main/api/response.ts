/**
 * Reading one HTTP answer of the service safely, for the API client (client.ts): the body up to a
 * cap derived from the page size, and what a redirect means. Failures are plain {@link Failure}
 * values; the client adds the endpoint, the attempts and advice, and decides on retries.
 */
import type { ErrorCode } from '../../../shared/errors.ts';
import { redact } from '../base/log.ts';
import { readCappedBody } from '../base/cappedBody.ts';

/** Why one attempt failed (thrown as a value, not an Error; see {@link isFailure}). */
export interface Failure {
  code: ErrorCode;
  /** What happened, without advice (advice is added once retries are over). */
  what: string;
  /** What to do, when the code's usual advice does not fit. */
  advice?: string;
  /** The HTTP status, when there was an answer. */
  status?: number;
  /** Whether another attempt may succeed. */
  retryable: boolean;
  /** How long the service asked to wait before the next attempt (`Retry-After`), in ms. */
  retryAfterMs?: number;
}

/**
 * Bytes of response body allowed per row asked for. Generous: a contact is about 0.7 KB of JSON
 * and an order about 1 KB plus 0.5 KB per recipient, so this is ~90 contacts or an order to
 * ~130 recipients per row, and only a page's total counts (a few far larger orders fit among
 * ordinary ones).
 */
export const RESPONSE_BYTES_PER_ROW = 64 * 1024;

/**
 * Bytes of response body allowed on top of the rows of a page of two rows or more: the envelope,
 * and room for a small page whose few rows are large (an order to several thousand recipients).
 */
export const RESPONSE_BYTES_BASE = 4 * 1024 * 1024;

/**
 * The fixed cap of an answer to a one-row request (the connection probe asks for one contact):
 * enough for any single contact, or an order to about 2,000 recipients.
 */
export const ONE_ROW_RESPONSE_BYTES = 1024 * 1024;

/**
 * The most response-body bytes the client reads for a page of `pageSize` rows (after any
 * content decoding); past it the answer is a BAD_RESPONSE and the connection is closed, so a
 * broken or hostile service cannot fill the memory of the process that asked.
 * @param pageSize rows asked for (≥ 1)
 * @returns {@link ONE_ROW_RESPONSE_BYTES} for one row, else {@link RESPONSE_BYTES_BASE} +
 *   `pageSize` × {@link RESPONSE_BYTES_PER_ROW} (about 66.5 MiB at the largest page size, 1,000)
 */
export function responseByteCap(pageSize: number): number {
  return pageSize <= 1 ? ONE_ROW_RESPONSE_BYTES : RESPONSE_BYTES_BASE + pageSize * RESPONSE_BYTES_PER_ROW;
}

/** A byte count for people: `1 MiB`, `10.3 MiB`, `512 KiB`. */
function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}

const utf8 = new TextDecoder('utf-8');

/**
 * Reads a response body as UTF-8 text (a leading byte-order mark dropped, invalid bytes replaced,
 * as `Response.text()` does), stopping as soon as it is longer than `cap` bytes.
 * @throws Failure BAD_RESPONSE when the declared or the received length is over `cap`; whatever
 *   the stream throws otherwise (network, abort)
 */
export async function readBodyCapped(response: Response, cap: number, pageSize: number): Promise<string> {
  const tooLarge = (): Failure => ({
    code: 'BAD_RESPONSE',
    status: response.status,
    what: `the answer was larger than ${describeBytes(cap)} for a page of ${pageSize} row${pageSize === 1 ? '' : 's'}, so Letterdesk stopped reading it`,
    advice: "Check that the profile's base URL is the service's address ending in /api/v1; if it is, lower the profile's page size.",
    retryable: false,
  });
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const encoding = (response.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  // A compressed body's declared length says nothing about its decoded size: count as it arrives.
  if ((encoding === '' || encoding === 'identity') && declared > cap) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const bytes = await readCappedBody(response.body, cap);
  if (bytes === null) throw tooLarge();
  return utf8.decode(bytes);
}

/**
 * Deepest nesting of arrays and objects accepted in an answer. The envelope takes three levels
 * (`{data: {rows: [`) and the service's records a few more; a body nested far deeper is no answer
 * of the service, and the recursive work after parsing it (ingest, serialising) could overflow the
 * native stack of the sync process instead of failing cleanly.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text `text` nests arrays and objects deeper than `max`, judged without parsing:
 * one pass over the characters that counts `[` and `{` against `]` and `}` outside strings
 * (a backslash inside a string skips the character after it). Cheap on a body of tens of
 * megabytes, and stops at the first level too deep. Invalid JSON is not detected here (JSON.parse does that).
 * @param text a response body
 * @param max the deepest nesting allowed; @default MAX_JSON_DEPTH
 */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The failure for an answer that {@link nestsDeeperThan} the limit: not parsed, not retried. */
export function nestedTooDeeply(status: number): Failure {
  return {
    code: 'BAD_RESPONSE',
    status,
    what: `the answer nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, far more than any record of the service, so Letterdesk did not read it`,
    advice: "Check that the profile's base URL is the service's address ending in /api/v1; if it is, report this answer to the service provider.",
    retryable: false,
  };
}

/** True for a {@link Failure} thrown by this module (plain objects, not errors). */
export function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && 'retryable' in value && 'code' in value;
}

/** Longest part of a service-supplied address quoted in a message. */
const QUOTED_URL_CHARS = 300;

/**
 * The failure for a 401 or 403 answer. `refreshTokenMissing`: the contact list was asked without
 * a refresh token, which it asks for too (service-api.md §5), so its refusal is no verdict on the
 * access token and says what is missing instead.
 */
export function authFailure(status: number, refreshTokenMissing: boolean): Failure {
  if (refreshTokenMissing) {
    return {
      code: 'AUTH_REJECTED',
      status,
      what: `the service turned the contacts down (HTTP ${status}): no refresh token was sent, and the contact list asks for one`,
      advice: 'Enter the refresh token for this profile, then try again.',
      retryable: false,
    };
  }
  return { code: 'AUTH_REJECTED', status, what: `the service rejected the tokens (HTTP ${status})`, retryable: false };
}

/**
 * The failure for a 3xx answer. No redirect is followed: the tokens would go with the request to
 * wherever the service points (Node's fetch drops `Authorization` across origins but keeps
 * `refreshtoken`), and the other address's answer would be taken as the service's data.
 */
export function redirectFailure(status: number, location: string | null, requestUrl: string): Failure {
  if (location === null || location.trim() === '') {
    return { code: 'BAD_RESPONSE', status, what: `the service answered HTTP ${status} without saying where to go`, retryable: false };
  }
  let where: string;
  try {
    where = new URL(location, requestUrl).href;
  } catch {
    where = location;
  }
  // eslint-disable-next-line no-control-regex
  where = redact(where).replace(/[\u0000-\u001f\u007f]/g, '');
  if (where.length > QUOTED_URL_CHARS) where = `${where.slice(0, QUOTED_URL_CHARS)}…`;
  return {
    code: 'BAD_RESPONSE',
    status,
    what: `the service answered HTTP ${status}, redirecting to ${where}; Letterdesk follows no redirects, so the tokens were not sent there`,
    advice: "If the service has really moved there, check that the new address belongs to it, then change the profile's base URL.",
    retryable: false,
  };
}
