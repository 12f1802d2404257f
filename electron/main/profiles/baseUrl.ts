/**
 * Base URL rules for a profile (service-api.md §9: `{base_url}` ends in the path segment `api/v1`).
 * Tokens travel with every request to this address, so it must be `https`; plain `http` is allowed
 * only for exactly the loopback hosts of {@link isLoopbackHost} (the embedded sample API listens
 * on 127.0.0.1).
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import { isLoopbackHost } from '../../../shared/loopback.ts';

const EXAMPLE = 'for example https://api.example.com/api/v1';

function invalid(problem: string): LetterdeskError {
  return new LetterdeskError('VALIDATION', `The base URL ${problem}.`);
}

/**
 * Checks and normalises a profile's base URL.
 * @param raw what the user typed (surrounding blanks ignored)
 * @returns `<scheme>://<host[:port]>/…/api/v1` with no trailing slash, lowercase scheme and host
 * @throws LetterdeskError VALIDATION naming the problem (not a URL, wrong scheme, http to a
 *   non-loopback host, user name/password, query or fragment, path not ending in `/api/v1`)
 */
export function normalizeBaseUrl(raw: string): string {
  const text = raw.trim();
  if (text === '') throw invalid(`is empty; enter the service address, ${EXAMPLE}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`is not a valid web address; enter it with its scheme, ${EXAMPLE}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(`must start with https:// (it starts with ${url.protocol}//); ${EXAMPLE}`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw invalid(
      `must use https: plain http would send your tokens unencrypted to ${url.hostname}. ` +
        'Plain http is allowed only for this computer (localhost, 127.0.0.1, [::1])',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid('must not contain a user name or password; tokens are entered separately and kept in the keychain');
  }
  if (url.search !== '' || url.hash !== '') {
    throw invalid(`must not contain a query (?…) or fragment (#…); ${EXAMPLE}`);
  }
  const pathname = url.pathname.replace(/\/+$/, '');
  if (!/\/api\/v1$/.test(pathname)) {
    throw invalid(`must end in /api/v1 (the version 1 interface), but its path is "${pathname === '' ? '/' : pathname}"; ${EXAMPLE}`);
  }
  return `${url.protocol}//${url.host}${pathname}`;
}
