/**
 * The renderer's typed client: `window.letterdesk` (built by the preload, or by the Playwright
 * harness, from shared/contract.ts) plus helpers that turn `Result`s into values or displayable
 * errors.
 */
import type { CallInput, CallName, CallOutput, LetterdeskApi } from '../../../shared/contract.ts';
import type { ErrorCode, ErrorPayload, Result } from '../../../shared/errors.ts';

declare global {
  interface Window {
    letterdesk?: LetterdeskApi;
  }
}

/** An error the UI can show: what happened (`message`) and, when known, what to do (`advice`). */
export class DisplayError extends Error {
  override readonly name = 'DisplayError';
  readonly code: ErrorCode | 'NO_BRIDGE';
  readonly advice: string | null;

  constructor(code: ErrorCode | 'NO_BRIDGE', message: string, advice: string | null) {
    super(message);
    this.code = code;
    this.advice = advice;
  }
}

const ADVICE: Partial<Record<ErrorCode, string>> = {
  AUTH_REJECTED: 'Open Profiles to enter a new token.',
  AUTH_MISSING: 'Open Profiles to enter an access token.',
  NETWORK_UNREACHABLE: 'Check your connection; cached data stays available.',
  TIMEOUT: 'The service is slow to answer; try again in a moment.',
  RATE_LIMITED: 'The service is limiting requests; try again in a minute.',
  SERVER_ERROR: 'The service had a problem; try again later.',
  NO_PROFILE: 'Choose or create a profile first.',
  BUSY: 'Wait for the running operation to finish.',
  KEYCHAIN_UNAVAILABLE: 'Use a session-only token, or fix the keychain and retry.',
  INTERNAL: 'Details are in the log file.',
};

/** The bridge, or null when the page runs without one (opened outside the app). */
export function bridge(): LetterdeskApi | null {
  return window.letterdesk ?? null;
}

/** The bridge; throws a {@link DisplayError} when the page runs outside Letterdesk. */
export function api(): LetterdeskApi {
  const b = window.letterdesk;
  if (!b) throw new DisplayError('NO_BRIDGE', 'Letterdesk’s background service is not connected.', 'Restart Letterdesk.');
  return b;
}

/** Turns an error payload that crossed the boundary into a {@link DisplayError}. */
export function toDisplayError(error: ErrorPayload | unknown): DisplayError {
  if (error instanceof DisplayError) return error;
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    const e = error as ErrorPayload;
    return new DisplayError(e.code, e.message, ADVICE[e.code] ?? null);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DisplayError('INTERNAL', message, ADVICE.INTERNAL ?? null);
}

/** Unwraps a Result: the value, or throws a {@link DisplayError}. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw toDisplayError(result.error);
}

/**
 * Calls one contract function and unwraps its Result.
 * @throws DisplayError when the call failed (the message says what happened and what to do)
 */
export async function call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
  const fn = api()[name] as (input: CallInput<N>) => Promise<Result<CallOutput<N>>>;
  let result: Result<CallOutput<N>>;
  try {
    result = await fn(input);
  } catch (error) {
    throw toDisplayError(error);
  }
  return unwrap(result);
}

/** Calls one contract function and returns the raw Result (never throws). */
export async function callResult<N extends CallName>(name: N, input: CallInput<N>): Promise<Result<CallOutput<N>>> {
  try {
    return await call(name, input).then((value) => ({ ok: true as const, value }));
  } catch (error) {
    const e = toDisplayError(error);
    return { ok: false, error: { code: e.code === 'NO_BRIDGE' ? 'INTERNAL' : e.code, message: e.message } };
  }
}

/** Human text for an error: message plus advice. */
export function errorText(error: unknown): string {
  const e = toDisplayError(error);
  return e.advice && !e.message.includes(e.advice) ? `${e.message} ${e.advice}` : e.message;
}
