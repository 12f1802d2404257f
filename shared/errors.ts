/**
 * Error codes and the error shape that crosses process boundaries (IPC, worker threads, CLI).
 *
 * Electron keeps only the message of a thrown error, and class identity is lost across workers, so
 * errors travel as plain `{ code, message, details? }` values and are recognised by `code`
 * (ky's `source/errors/` idea: check a literal discriminant, not only `instanceof`).
 */

/** Stable error codes. The CLI maps them to exit codes; the UI maps them to advice. */
export const ERROR_CODES = [
  /** Input failed validation (IPC input, CLI argument, profile field). */
  'VALIDATION',
  /** The service answered 401/403: the stored tokens were rejected. */
  'AUTH_REJECTED',
  /** No tokens are stored for the profile. */
  'AUTH_MISSING',
  /** 429 after all retries. */
  'RATE_LIMITED',
  /** 5xx after all retries. */
  'SERVER_ERROR',
  /** DNS failure, refused or dropped connection after all retries. */
  'NETWORK_UNREACHABLE',
  /** A request took longer than its timeout after all retries. */
  'TIMEOUT',
  /** The body was not JSON or not the §2.1 envelope. */
  'BAD_RESPONSE',
  /**
   * The service's records kept changing while they were paged through: every full re-read allowed
   * disagreed with the one before (rows added, removed or moved between pages; §2.1 paging has no
   * snapshot). The service itself answered normally.
   */
  'DRIFT',
  /** The operation was cancelled by the user. */
  'CANCELLED',
  /** A record, profile or file that was asked for does not exist. */
  'NOT_FOUND',
  /** A resource was asked for from the cache before any sync had published it. */
  'NOT_SYNCED',
  /** Another operation of the same kind is running (one sync per profile at a time). */
  'BUSY',
  /** The OS keychain cannot be used (no Secret Service, locked keyring, no D-Bus). */
  'KEYCHAIN_UNAVAILABLE',
  /** The cache file was written by a newer Letterdesk; it is left untouched. */
  'CACHE_TOO_NEW',
  /** The cache or profiles file is damaged; it was moved aside. */
  'CACHE_DAMAGED',
  /** The disk (or the database's size limit) is full. */
  'DISK_FULL',
  /** No profile is selected. */
  'NO_PROFILE',
  /** An IPC call came from a frame other than the app's own page. */
  'FORBIDDEN_SENDER',
  /** A bug: something that should not happen. The message says where to look (the log). */
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The serialisable error shape. `details` is JSON-safe and never holds secrets. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/**
 * The one error class of Letterdesk. Every layer throws it (or a subclass) with a code from
 * {@link ERROR_CODES}; use {@link isLetterdeskError} rather than `instanceof` across boundaries.
 */
export class LetterdeskError extends Error {
  override readonly name = 'LetterdeskError';
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, options?: { details?: unknown; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.details !== undefined) this.details = options.details;
  }

  /** The JSON-safe payload for IPC or a worker message. */
  toPayload(): ErrorPayload {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** True for a {@link LetterdeskError} or anything shaped like its payload (after a boundary). */
export function isLetterdeskError(value: unknown): value is { code: ErrorCode; message: string; details?: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { code?: unknown; message?: unknown };
  return typeof v.message === 'string' && typeof v.code === 'string' && (ERROR_CODES as readonly string[]).includes(v.code);
}

/** Where one sentence of a message ends and the next begins: after . ! or ?, before a capital, digit or quote. */
const SENTENCE_BREAK = /(?<=[.!?])\s+(?=[A-Z0-9"“‘(])/u;

/** A sentence as compared: case, spacing and its closing punctuation aside. */
const sentenceKey = (sentence: string): string => sentence.toLowerCase().replace(/\s+/g, ' ').replace(/[.!?\s]+$/u, '');

/**
 * Joins the parts of a message (what happened, why, what to do) into one text in which each
 * sentence is said once: a part that repeats a sentence an earlier part already said (an error's
 * message that carries its own advice, then the advice again) adds only what is new. Each part
 * ends with a full stop unless it ends with . ! ? already; empty and missing parts are skipped.
 * @returns the sentences in order, separated by single spaces; '' when no part says anything
 */
export function joinSentences(...parts: readonly (string | null | undefined)[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of parts) {
    const text = part?.trim().replace(/\.{2,}$/u, '.');
    if (!text) continue;
    for (const raw of (/[.!?]$/u.test(text) ? text : `${text}.`).split(SENTENCE_BREAK)) {
      const sentence = raw.trim();
      const key = sentenceKey(sentence);
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      out.push(sentence);
    }
  }
  return out.join(' ');
}

/**
 * Turns anything thrown into an {@link ErrorPayload}. Unknown errors become `INTERNAL` with their
 * message (never their stack, which may hold paths or values the user did not ask to share).
 */
export function toErrorPayload(error: unknown): ErrorPayload {
  if (isLetterdeskError(error)) {
    return error.details === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, details: error.details };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message: joinSentences(`Unexpected error: ${message}`, 'Details are in the log file.') };
}

/** Rebuilds a throwable error from a payload that crossed a boundary. */
export function fromErrorPayload(payload: ErrorPayload): LetterdeskError {
  return new LetterdeskError(payload.code, payload.message, payload.details === undefined ? undefined : { details: payload.details });
}

/** The value every IPC call resolves to (DESIGN.md: errors cross the boundary as values). */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorPayload };
