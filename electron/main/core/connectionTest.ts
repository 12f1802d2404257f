/**
 * "Test connection" of the profile form: one small request to each resource (page 0, one row) with
 * the tokens the person gave, told back in words a person understands — address not found,
 * connection refused, token rejected, refresh token missing, not this API — with the technical detail beside it.
 */
import type { ConnectionCheck, ConnectionTest } from '../../../shared/contract.ts';
import { isLetterdeskError } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { createApiClient } from '../api/client.ts';
import type { Tokens } from '../credentials/store.ts';

/** What a failed request means to the person, from its error code and the technical message. */
export function plainWords(code: string, detail: string): string {
  if (code === 'NETWORK_UNREACHABLE') {
    if (/ENOTFOUND|EAI_AGAIN/.test(detail)) return 'The address was not found: no computer answers to that host name. Check the base URL.';
    if (/ECONNREFUSED/.test(detail)) return 'Nothing answers at that address (connection refused). Check the port in the base URL, and that the service is running.';
    if (/CERT|SSL|TLS/i.test(detail)) return 'The secure connection could not be set up (the certificate was not accepted). Check the base URL.';
    return 'The service could not be reached. Check the network connection and the base URL.';
  }
  if (code === 'TIMEOUT') return 'The service did not answer in time. Try again, or check the network connection.';
  if (code === 'AUTH_REJECTED') return 'The service rejected the token. Paste a new access token and refresh token.';
  if (code === 'AUTH_MISSING') return 'There is no token to send. Paste the access token and refresh token.';
  if (code === 'BAD_RESPONSE') return 'Something answered, but not this API: check that the base URL is the service\u2019s address ending in /api/v1.';
  if (code === 'SERVER_ERROR') return 'The service answered with an error of its own. Try again later.';
  if (code === 'RATE_LIMITED') return 'The service asks to slow down. Try again in a minute.';
  if (code === 'VALIDATION') return detail;
  return 'The connection test failed.';
}

/**
 * Asks page 0 of both resources, one row each, in parallel, without retries.
 * @param options.baseUrl the address typed in the form (ends in /api/v1)
 * @param options.tokens the tokens to send; null tests the address alone (a placeholder token is
 *   sent, and the service's refusal of it is reported as "the address answers; enter the tokens")
 * @returns per resource: ok and its `count`, or the plain words and the technical detail
 */
export async function testConnection(options: { baseUrl: string; accountId: string | null; tokens: Tokens | null; timeoutMs?: number }): Promise<ConnectionTest> {
  const tokens = options.tokens ?? { accessToken: NO_TOKEN, refreshToken: null };
  let client;
  try {
    client = createApiClient({ baseUrl: options.baseUrl, getTokens: async () => tokens, timeoutMs: options.timeoutMs ?? 10_000, retry: { limit: 0 } });
  } catch (error) {
    const check = failed(error);
    return { ok: false, contacts: check, orders: check };
  }
  const scope = options.accountId ? { 'meta.account_id': options.accountId } : {};
  const check = async (resource: Resource): Promise<ConnectionCheck> => {
    try {
      const page = resource === 'contacts' ? await client.listContacts({ page: 0, pageSize: 1, ...scope }) : await client.listOrders({ page: 0, pageSize: 1, ...scope });
      return { ok: true, count: page.count, code: null, message: null, detail: null };
    } catch (error) {
      const check = failed(error);
      // §5: only the contact list carries the refresh token, so its refusal while none was given says that it is missing.
      if (resource === 'contacts' && options.tokens !== null && !options.tokens.refreshToken && check.code === 'AUTH_REJECTED') {
        return { ...check, message: 'No refresh token was given: the service asks for one with the contact list (the orders need only the access token). Paste the refresh token.' };
      }
      if (options.tokens === null && check.code === 'AUTH_REJECTED') {
        return { ...check, code: 'AUTH_MISSING', message: 'The service answers at this address. Enter the access token and refresh token to test them too.' };
      }
      return check;
    }
  };
  const [contacts, orders] = await Promise.all([check('contacts'), check('orders')]);
  return { ok: contacts.ok && orders.ok, contacts, orders };
}

/** Sent when no token was given, so the address can still be tested; it is no secret. */
const NO_TOKEN = 'letterdesk-connection-test';

function failed(error: unknown): ConnectionCheck {
  const code = isLetterdeskError(error) ? error.code : 'INTERNAL';
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, count: null, code, message: plainWords(code, detail), detail };
}
