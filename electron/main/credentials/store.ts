/**
 * Access and refresh tokens per profile (DESIGN.md "Credentials and profiles").
 *
 * - Stored in the OS keychain through keytar: service `Letterdesk`, account = profile id, one JSON
 *   secret `{ v, accessToken, refreshToken, savedAt, rejected, boundTo }` so both tokens change together.
 * - Bound to the service they were saved for (`boundTo`: the origin of the profile's base URL and its
 *   account scope): {@link CredentialStore.getFor} refuses them for any other, so editing a profile's
 *   address never sends its tokens to the new one. Tokens without a binding are bound on first use
 *   to the profile's saved address and refused for every other.
 * - Or kept in memory for this session only (by choice, or when the keychain cannot be used).
 *   There is no other fallback: tokens are never written to a file.
 * - Every token read or set is registered with the logger's redaction ({@link registerSecret}) for the
 *   life of the process (never forgotten: an old value may still be in flight).
 * - Main side only: {@link CredentialStore.get} returns tokens; everything the renderer may see goes
 *   through {@link CredentialStore.status}, which never carries them.
 */
import type { CredentialStatus } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { logger, registerSecret } from '../base/log.ts';
import { Keychain } from './keychain.ts';

/** The keychain service name (DESIGN.md). */
export const KEYCHAIN_SERVICE = 'Letterdesk';

/** How long a keychain call may take before it counts as unavailable (ms). */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 5000;

/** A profile's tokens (service-api.md §5: bearer access token; `refreshtoken` header on §4.1). */
export interface Tokens {
  accessToken: string;
  refreshToken: string | null;
}

/** The service tokens were saved for: the origin of the profile's base URL and its `meta.account_id` scope. */
export interface TokenBinding {
  /** `scheme://host[:port]` of the base URL. */
  origin: string;
  accountId: string | null;
}

/**
 * The binding of a profile's tokens.
 * @throws TypeError when `baseUrl` is not a URL (profiles are validated when saved)
 */
export function bindingOf(profile: { baseUrl: string; accountId: string | null }): TokenBinding {
  return { origin: new URL(profile.baseUrl).origin, accountId: profile.accountId };
}

/** Whether two bindings name the same origin and account scope. */
export function sameBinding(a: TokenBinding, b: TokenBinding): boolean {
  return a.origin === b.origin && a.accountId === b.accountId;
}

/** Options of {@link CredentialStore.set}. */
export interface SetCredentialsOptions {
  /** Keep the tokens in memory only, gone when the process ends. */
  sessionOnly: boolean;
  /** The service the tokens are for; tokens saved without one are bound on first use ({@link CredentialStore.getFor}). */
  boundTo?: TokenBinding;
}

/** Options of the {@link CredentialStore} constructor. */
export interface CredentialStoreOptions {
  /** Keep every token in memory and never touch the keychain (test harness, or a user's choice). @default false */
  sessionOnly?: boolean;
  /** Keychain service name; tests use their own to stay apart from real profiles. @default 'Letterdesk' */
  service?: string;
  /** @default DEFAULT_KEYCHAIN_TIMEOUT_MS */
  timeoutMs?: number;
  /** Secrets longer than this (UTF-8 bytes) are split over several keychain entries. @default 2400 on Windows, unlimited elsewhere */
  maxSecretBytes?: number;
}

interface Entry {
  tokens: Tokens;
  savedAt: string | null;
  rejected: boolean;
  boundTo: TokenBinding | null;
}

function parseBinding(value: unknown): TokenBinding | null {
  if (typeof value !== 'object' || value === null) return null;
  const { origin, accountId } = value as Record<string, unknown>;
  return typeof origin === 'string' ? { origin, accountId: typeof accountId === 'string' ? accountId : null } : null;
}

const PROFILE_ID = /^[a-z0-9-]{1,64}$/;
const SECRET_VERSION = 1;
const MAX_TOKEN_CHARS = 8192;

function checkProfileId(profileId: string): void {
  if (!PROFILE_ID.test(profileId)) {
    throw new LetterdeskError('VALIDATION', 'A profile id is 1–64 lowercase letters, digits or dashes; pick the profile from the list.');
  }
}

/**
 * Cleans a pasted token: surrounding blanks and a leading `Bearer ` are dropped; blanks, line breaks
 * or control characters inside are refused (they would break the HTTP header). Messages never echo the token.
 */
function cleanToken(value: string, label: string): string {
  const token = value.trim().replace(/^bearer\s+/i, '');
  if (token === '') throw new LetterdeskError('VALIDATION', `The ${label} is empty. Paste the token itself.`);
  if (token.length > MAX_TOKEN_CHARS) throw new LetterdeskError('VALIDATION', `The ${label} is longer than ${MAX_TOKEN_CHARS} characters. Paste only the token.`);
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(token)) {
    throw new LetterdeskError('VALIDATION', `The ${label} contains spaces, line breaks or control characters. Paste only the token itself.`);
  }
  return token;
}

/** Checks and cleans tokens before they are stored. @throws LetterdeskError VALIDATION */
export function normalizeTokens(tokens: Tokens): Tokens {
  const accessToken = cleanToken(tokens.accessToken, 'access token');
  const refreshToken = tokens.refreshToken === null || tokens.refreshToken.trim() === '' ? null : cleanToken(tokens.refreshToken, 'refresh token');
  return { accessToken, refreshToken };
}

function parseSecret(secret: string): Entry | null {
  try {
    const value = JSON.parse(secret) as Record<string, unknown>;
    if (typeof value === 'object' && value !== null && typeof value.accessToken === 'string' && value.accessToken !== '') {
      return {
        tokens: { accessToken: value.accessToken, refreshToken: typeof value.refreshToken === 'string' && value.refreshToken !== '' ? value.refreshToken : null },
        savedAt: typeof value.savedAt === 'string' ? value.savedAt : null,
        rejected: value.rejected === true,
        boundTo: parseBinding(value.boundTo),
      };
    }
  } catch {
    /* not ours, see below */
  }
  // A bare token put there by hand (e.g. with secret-tool): use it as the access token.
  const bare = secret.trim();
  return bare !== '' && !bare.startsWith('{') && !/\s/.test(bare) ? { tokens: { accessToken: bare, refreshToken: null }, savedAt: null, rejected: false, boundTo: null } : null;
}

function serialise(entry: Entry): string {
  return JSON.stringify({
    v: SECRET_VERSION,
    accessToken: entry.tokens.accessToken,
    refreshToken: entry.tokens.refreshToken,
    savedAt: entry.savedAt,
    rejected: entry.rejected,
    boundTo: entry.boundTo,
  });
}

function registerTokens(tokens: Tokens): void {
  registerSecret(tokens.accessToken);
  registerSecret(tokens.refreshToken);
}

/** Tokens of all profiles: the OS keychain, plus the ones kept for this session only. */
export class CredentialStore {
  readonly keychainEnabled: boolean;
  readonly #keychain: Keychain;
  readonly #session = new Map<string, Entry>();
  /** Profiles whose keychain tokens were rejected while the mark could not be written to the keychain. */
  readonly #rejected = new Set<string>();

  constructor(options: CredentialStoreOptions = {}) {
    this.keychainEnabled = options.sessionOnly !== true;
    this.#keychain = new Keychain(options.service ?? KEYCHAIN_SERVICE, options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS, options.maxSecretBytes);
  }

  /** The keychain service name in use. */
  get service(): string {
    return this.#keychain.service;
  }

  /**
   * Checks that the keychain can be reached (one read, with the timeout).
   * @returns null when it answers, else what is wrong and how to fix it
   */
  async keychainProblem(): Promise<string | null> {
    if (!this.keychainEnabled) return null;
    try {
      await this.#keychain.accounts();
      return null;
    } catch (error) {
      return isLetterdeskError(error) ? error.message : String(error);
    }
  }

  /**
   * Where the profile's tokens are, when they were saved and whether the service rejected them —
   * never the tokens. Does not throw for keychain trouble: it is reported in `keychainProblem`.
   * Session tokens win over keychain tokens.
   */
  async status(profileId: string): Promise<CredentialStatus> {
    checkProfileId(profileId);
    const session = this.#session.get(profileId);
    let stored: Entry | null = null;
    let keychainProblem: string | null = null;
    if (this.keychainEnabled) {
      try {
        const secret = await this.#keychain.get(profileId);
        stored = secret === null ? null : parseSecret(secret);
        if (stored) registerTokens(stored.tokens);
      } catch (error) {
        if (!isLetterdeskError(error) || error.code !== 'KEYCHAIN_UNAVAILABLE') throw error;
        keychainProblem = error.message;
      }
    }
    if (session) {
      return { profileId, stored: true, storage: 'session', savedAt: session.savedAt, rejected: session.rejected, boundTo: session.boundTo, keychainProblem };
    }
    if (stored) {
      return { profileId, stored: true, storage: 'keychain', savedAt: stored.savedAt, rejected: stored.rejected || this.#rejected.has(profileId), boundTo: stored.boundTo, keychainProblem };
    }
    return { profileId, stored: false, storage: null, savedAt: null, rejected: false, boundTo: null, keychainProblem };
  }

  /**
   * Stores a profile's tokens (replacing any), clearing a "rejected" mark.
   * - `sessionOnly: false`: written to the keychain; any session tokens of the profile are dropped.
   * - `sessionOnly: true`: kept in memory; tokens of the profile in the keychain are removed when
   *   the keychain answers (otherwise they would come back after a restart).
   * @throws LetterdeskError VALIDATION (empty or malformed token), KEYCHAIN_UNAVAILABLE (nothing was
   *   stored; the message names the cause and the fix — retry with `sessionOnly: true`)
   */
  async set(profileId: string, tokens: Tokens, options: SetCredentialsOptions): Promise<CredentialStatus> {
    checkProfileId(profileId);
    const clean = normalizeTokens(tokens);
    registerTokens(clean);
    const entry: Entry = { tokens: clean, savedAt: new Date().toISOString(), rejected: false, boundTo: options.boundTo ?? null };
    this.#rejected.delete(profileId);

    if (options.sessionOnly || !this.keychainEnabled) {
      this.#session.set(profileId, entry);
      if (this.keychainEnabled) {
        await this.#keychain.delete(profileId).catch((error: unknown) => {
          logger.info(`credentials: kept tokens of ${profileId} for this session only; the keychain copy could not be removed: ${isLetterdeskError(error) ? error.message : String(error)}`);
        });
      }
      logger.info(`credentials: tokens of ${profileId} kept in memory for this session`);
    } else {
      try {
        await this.#keychain.set(profileId, serialise(entry));
      } catch (error) {
        if (isLetterdeskError(error) && error.code === 'KEYCHAIN_UNAVAILABLE') {
          throw new LetterdeskError('KEYCHAIN_UNAVAILABLE', `The tokens were not saved. ${error.message}`);
        }
        throw error;
      }
      this.#session.delete(profileId);
      logger.info(`credentials: tokens of ${profileId} saved in the keychain`);
    }
    return this.status(profileId);
  }

  /**
   * The profile's tokens for a request (main side only; never send them to the renderer):
   * session tokens first, then the keychain. Registers them for log redaction.
   * @returns null when none are stored
   * @throws LetterdeskError KEYCHAIN_UNAVAILABLE when the keychain cannot be read and there are no session tokens
   */
  async get(profileId: string): Promise<Tokens | null> {
    const entry = await this.#entry(profileId);
    return entry ? { ...entry.tokens } : null;
  }

  /**
   * The profile's tokens for a request to the service `target` names: tokens saved for another
   * origin or account are never returned. Tokens with no recorded service (saved by earlier
   * versions, or put into the keychain by hand) are bound on their first use to the service the
   * profile is saved for, `saved`, and refused for any other: the first request that carries them
   * goes to that service, and the binding is recorded with them (in the keychain, or in memory for
   * session tokens; when the keychain cannot be written it is recorded on the next use).
   * @param target the origin and account scope the request goes to (bindingOf of the base URL used)
   * @param saved the origin and account scope of the profile as saved (bindingOf the profile)
   * @returns null when none are stored
   * @throws LetterdeskError AUTH_MISSING when the stored tokens were saved for another service, or
   *   have none recorded and `target` is not `saved` (the message names both, never the tokens);
   *   KEYCHAIN_UNAVAILABLE as {@link CredentialStore.get}
   */
  async getFor(profileId: string, target: TokenBinding, saved: TokenBinding): Promise<Tokens | null> {
    const entry = await this.#entry(profileId);
    if (!entry) return null;
    const describe = (b: TokenBinding) => `${b.origin}${b.accountId ? ` (account ${b.accountId})` : ''}`;
    const bound = entry.boundTo;
    if (bound === null) {
      if (!sameBinding(target, saved)) {
        throw new LetterdeskError(
          'AUTH_MISSING',
          `The stored tokens have no recorded address, so they are sent only to the one the profile is saved with, ${describe(saved)}, not to ${describe(target)}. Save the profile with the new address and enter its tokens in Profiles.`,
        );
      }
      await this.#bind(profileId, entry, saved);
    } else if (!sameBinding(bound, target)) {
      throw new LetterdeskError(
        'AUTH_MISSING',
        `The stored tokens were saved for ${describe(bound)}, and the profile now points at ${describe(target)}. They are never sent anywhere else: enter the tokens for the new address in Profiles.`,
      );
    }
    return { ...entry.tokens };
  }

  /** Records `binding` with tokens that had none: in memory for session tokens, else in the keychain entry. */
  async #bind(profileId: string, entry: Entry, binding: TokenBinding): Promise<void> {
    const session = this.#session.get(profileId);
    if (session === entry) {
      session.boundTo = { ...binding };
      return;
    }
    try {
      await this.#keychain.set(profileId, serialise({ ...entry, boundTo: { ...binding } }));
      logger.info(`credentials: tokens of ${profileId} bound to ${binding.origin}, the address they were first used with`);
    } catch (error) {
      logger.warn(`credentials: could not record in the keychain which address the tokens of ${profileId} are for: ${isLetterdeskError(error) ? error.message : String(error)}`);
    }
  }

  async #entry(profileId: string): Promise<Entry | null> {
    checkProfileId(profileId);
    const session = this.#session.get(profileId);
    if (session) return session;
    if (!this.keychainEnabled) return null;
    const secret = await this.#keychain.get(profileId);
    const entry = secret === null ? null : parseSecret(secret);
    if (entry) registerTokens(entry.tokens);
    return entry;
  }

  /**
   * Removes the profile's tokens from memory and from the keychain.
   * @throws LetterdeskError KEYCHAIN_UNAVAILABLE when the keychain could not be reached (session
   *   tokens are removed anyway; keychain tokens, if any, are still there)
   */
  async clear(profileId: string): Promise<void> {
    checkProfileId(profileId);
    const session = this.#session.get(profileId);
    this.#session.delete(profileId);
    this.#rejected.delete(profileId);
    // Removed tokens stay registered for redaction: the same value may still be in use elsewhere
    // (LETTERDESK_ACCESS_TOKEN, a request in flight), and the set only grows by a few strings.
    if (!this.keychainEnabled) return;
    try {
      await this.#keychain.delete(profileId);
    } catch (error) {
      if (isLetterdeskError(error) && error.code === 'KEYCHAIN_UNAVAILABLE') {
        throw new LetterdeskError(
          'KEYCHAIN_UNAVAILABLE',
          `${session ? 'The tokens kept for this session were removed, but any' : 'Any'} tokens stored in the keychain could not be removed. ${error.message}`,
        );
      }
      throw error;
    }
    logger.info(`credentials: tokens of ${profileId} removed`);
  }

  /**
   * Marks the profile's tokens as rejected by the service (401/403) until new tokens are set.
   * The mark is kept with the tokens (in the keychain secret, so the CLI and the app both see it);
   * when the keychain cannot be written it is kept in memory. Never throws for keychain trouble.
   * @param rejectedAccessToken the access token the service turned down: tokens saved since (the
   *   person replaced them while the request was under way) are left alone, unmarked and unchanged
   */
  async markRejected(profileId: string, rejectedAccessToken: string): Promise<void> {
    checkProfileId(profileId);
    const session = this.#session.get(profileId);
    if (session) {
      if (session.tokens.accessToken === rejectedAccessToken) session.rejected = true;
      return;
    }
    if (!this.keychainEnabled) return;
    try {
      const secret = await this.#keychain.get(profileId);
      const entry = secret === null ? null : parseSecret(secret);
      if (entry && !entry.rejected && entry.tokens.accessToken === rejectedAccessToken) await this.#keychain.set(profileId, serialise({ ...entry, rejected: true }));
    } catch (error) {
      this.#rejected.add(profileId);
      logger.warn(`credentials: could not record in the keychain that the tokens of ${profileId} were rejected: ${isLetterdeskError(error) ? error.message : String(error)}`);
    }
  }

  /**
   * Ids of the profiles that have tokens (keychain or session), sorted.
   * @throws LetterdeskError KEYCHAIN_UNAVAILABLE
   */
  async listProfilesWithTokens(): Promise<string[]> {
    const ids = new Set(this.#session.keys());
    if (this.keychainEnabled) {
      for (const account of await this.#keychain.accounts()) if (PROFILE_ID.test(account)) ids.add(account);
    }
    return [...ids].sort();
  }
}
