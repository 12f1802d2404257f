/**
 * The renderer's typed client: `window.letterdesk` (built by the preload, or by the Playwright
 * harness, from shared/contract.ts) plus helpers that turn `Result`s into values or displayable
 * errors (lib/errors.ts). Only state/ calls it: components reach main through the state classes.
 */
import type { CallInput, CallName, CallOutput, LetterdeskApi } from '../../../shared/contract.ts';
import type { Result } from '../../../shared/errors.ts';
import { DisplayError, toDisplayError } from './errors.ts';

export { DisplayError, errorText, toDisplayError } from './errors.ts';

declare global {
  interface Window {
    letterdesk?: LetterdeskApi;
  }
}

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
