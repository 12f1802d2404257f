/**
 * Tokens from the environment, for the CLI (DESIGN.md: `LETTERDESK_ACCESS_TOKEN`,
 * `LETTERDESK_REFRESH_TOKEN`). They win over the keychain and are never stored unless the user asks.
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import { normalizeTokens, type Tokens } from './store.ts';
import { registerSecret } from '../base/log.ts';

/** The variable holding the access (bearer) token. */
export const ACCESS_TOKEN_ENV = 'LETTERDESK_ACCESS_TOKEN';
/** The variable holding the refresh token (optional). */
export const REFRESH_TOKEN_ENV = 'LETTERDESK_REFRESH_TOKEN';

/**
 * Reads tokens from `LETTERDESK_ACCESS_TOKEN` / `LETTERDESK_REFRESH_TOKEN` and registers them for
 * log redaction. Empty variables count as unset.
 * @returns the tokens, or null when `LETTERDESK_ACCESS_TOKEN` is not set
 * @throws LetterdeskError VALIDATION when only the refresh token is set, or a value is malformed
 *   (the message names the variable, never its value)
 */
export function tokensFromEnv(env: NodeJS.ProcessEnv = process.env): Tokens | null {
  const access = env[ACCESS_TOKEN_ENV]?.trim() ?? '';
  const refresh = env[REFRESH_TOKEN_ENV]?.trim() ?? '';
  registerSecret(access);
  registerSecret(refresh);
  if (access === '') {
    if (refresh !== '') {
      throw new LetterdeskError('VALIDATION', `${REFRESH_TOKEN_ENV} is set but ${ACCESS_TOKEN_ENV} is not. Set both, or unset ${REFRESH_TOKEN_ENV}.`);
    }
    return null;
  }
  try {
    return normalizeTokens({ accessToken: access, refreshToken: refresh === '' ? null : refresh });
  } catch (error) {
    if (error instanceof LetterdeskError) {
      const which = /refresh/.test(error.message) ? REFRESH_TOKEN_ENV : ACCESS_TOKEN_ENV;
      throw new LetterdeskError('VALIDATION', `${which} is not usable: ${error.message}`);
    }
    throw error;
  }
}
