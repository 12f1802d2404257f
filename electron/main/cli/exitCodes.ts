/**
 * Exit statuses of the `letterdesk` CLI (documented in docs/cli.md). Scripts branch on these, so
 * they never change meaning.
 */
import type { ErrorCode } from '../../../shared/errors.ts';

/** Every exit status the CLI uses. */
export const EXIT = {
  /** Success. */
  OK: 0,
  /** Anything else: a bug (INTERNAL), another sync running (BUSY), … The message says where to look. */
  OTHER: 1,
  /** Bad command line: unknown command or option, a bad value, no such profile, no profile chosen. */
  USAGE: 2,
  /** No tokens, tokens rejected by the service (401/403), or the keychain cannot be used. */
  AUTH: 3,
  /** The service could not be reached or did not answer in time. */
  NETWORK: 4,
  /** The service failed: 5xx, 429 after all retries, an answer that is not the §2.1 envelope, or records that kept changing while read. */
  SERVER: 5,
  /** Local data: the cache is damaged or too new, not synced yet, the disk is full, a file cannot be written. */
  DATA: 6,
  /** Interrupted (Ctrl+C): the operation was cancelled cleanly. */
  INTERRUPTED: 130,
} as const;

/** The exit status of an error code (see {@link EXIT}). */
export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION':
    case 'NOT_FOUND':
    case 'NO_PROFILE':
      return EXIT.USAGE;
    case 'AUTH_REJECTED':
    case 'AUTH_MISSING':
    case 'KEYCHAIN_UNAVAILABLE':
      return EXIT.AUTH;
    case 'NETWORK_UNREACHABLE':
    case 'TIMEOUT':
      return EXIT.NETWORK;
    case 'SERVER_ERROR':
    case 'RATE_LIMITED':
    case 'BAD_RESPONSE':
    case 'DRIFT':
      return EXIT.SERVER;
    case 'CACHE_DAMAGED':
    case 'CACHE_TOO_NEW':
    case 'DISK_FULL':
    case 'NOT_SYNCED':
      return EXIT.DATA;
    case 'CANCELLED':
      return EXIT.INTERRUPTED;
    default:
      return EXIT.OTHER;
  }
}
