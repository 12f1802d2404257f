/**
 * The hosts that never leave the machine (DESIGN.md "Credentials and profiles"): a profile may use
 * plain `http` only to them, and a request to one may carry tokens over it. Used by the profiles'
 * base URL rule (electron/main/profiles/baseUrl.ts) and the API client.
 */

/**
 * True for exactly the hosts that never leave the machine: `localhost`, 127.0.0.0/8 and `[::1]`.
 * Nothing else counts, not even names that look local: `localhost.` (trailing dot) is an absolute
 * DNS name that resolvers may send to DNS instead of the hosts file, and `localhost.localdomain`,
 * `*.localhost` or `[::ffff:127.0.0.1]` depend on the system's configuration.
 * @param hostname a WHATWG `URL.hostname`: lowercase, IPv6 in brackets, IPv4 already canonical
 *   (`127.1` and `0x7f000001` arrive as `127.0.0.1`); other spellings are not recognised
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return octets !== null && octets.slice(1).every((o) => Number(o) <= 255);
}
