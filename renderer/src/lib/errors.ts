/**
 * Errors as the page shows them: what happened and what to do. Pure (no bridge), so components
 * may use it while only state/ calls main (lib/api.ts).
 */
import { joinSentences, type ErrorCode, type ErrorPayload } from '../../../shared/errors.ts';

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

/** Human text for an error: message plus advice, each sentence once (`joinSentences`). */
export function errorText(error: unknown): string {
  const e = toDisplayError(error);
  return joinSentences(e.message, e.advice);
}
