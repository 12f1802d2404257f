/**
 * Which tokens a request to the service carries, decided once for the app and the command line
 * (DESIGN.md "Credentials and profiles"): the published sample tokens for a sample-data profile;
 * else, in order, the environment (command line only), the credential store (session tokens, then
 * the OS keychain), and a hidden prompt (command line on a terminal only).
 */
import type { Profile } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { tokensFromEnv } from '../credentials/env.ts';
import { bindingOf, type CredentialStore, type Tokens } from '../credentials/store.ts';
import { registerSecret } from '../base/log.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../sampleApi/server.ts';
import type { TokenSourceOptions } from './options.ts';

/** Where a profile's tokens came from: only `store` tokens are marked rejected after a 401/403. */
export type TokenOrigin = 'sample' | 'env' | 'store' | 'prompt';

/** Tokens and where they came from. */
export interface ResolvedTokens {
  tokens: Tokens;
  from: TokenOrigin;
}

/** Resolves a profile's tokens from the sources a front end allows. */
export class TokenSource {
  readonly #credentials: CredentialStore;
  readonly #options: TokenSourceOptions;

  constructor(credentials: CredentialStore, options: TokenSourceOptions = {}) {
    this.#credentials = credentials;
    this.#options = options;
  }

  /**
   * The tokens for a request of `profile`.
   * @throws LetterdeskError AUTH_MISSING when no source has tokens; KEYCHAIN_UNAVAILABLE when the
   *   keychain could not be read and nothing else had tokens; VALIDATION for malformed tokens in the
   *   environment (the message names the variable, never its value)
   */
  async resolve(profile: Profile): Promise<ResolvedTokens> {
    if (profile.sampleData) return { tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, from: 'sample' };
    const { env, promptSecret, onNote } = this.#options;
    const frontEndSources = env !== undefined || (promptSecret ?? null) !== null;
    if (env !== undefined) {
      const fromEnv = tokensFromEnv(env);
      if (fromEnv) return { tokens: fromEnv, from: 'env' };
    }
    let keychainProblem: string | null = null;
    try {
      const stored = await this.#credentials.getFor(profile.id, bindingOf(profile), bindingOf(profile));
      if (stored) return { tokens: stored, from: 'store' };
    } catch (error) {
      // With no other source to try, the keychain's own message is the answer.
      if (!frontEndSources || !isLetterdeskError(error) || error.code !== 'KEYCHAIN_UNAVAILABLE') throw error;
      keychainProblem = error.message;
    }
    if (promptSecret) {
      if (keychainProblem) onNote?.(keychainProblem);
      const accessToken = (await promptSecret(`Access token for "${profile.name}"`)).trim();
      registerSecret(accessToken);
      if (!accessToken) throw new LetterdeskError('AUTH_MISSING', 'No access token was entered; nothing was synced.');
      const refresh = (await promptSecret('Refresh token (Enter for none)')).trim();
      registerSecret(refresh);
      return { tokens: { accessToken, refreshToken: refresh === '' ? null : refresh }, from: 'prompt' };
    }
    if (!frontEndSources) {
      throw new LetterdeskError('AUTH_MISSING', `No token is stored for profile "${profile.name}". Open Profiles and enter the access token.`);
    }
    throw new LetterdeskError(
      keychainProblem ? 'KEYCHAIN_UNAVAILABLE' : 'AUTH_MISSING',
      `No tokens for profile "${profile.name}". Set LETTERDESK_ACCESS_TOKEN (and LETTERDESK_REFRESH_TOKEN), save them in the app, or run on a terminal to be asked.${keychainProblem ? ` (${keychainProblem})` : ''}`,
    );
  }
}
