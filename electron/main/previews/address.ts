/**
 * Which network addresses a template preview may be downloaded from. The service names every
 * thumbnail address, so without this rule a hostile service could make each client send requests
 * to this computer's other servers or to the local network (a request forger). Pure: no DNS, no
 * sockets; the downloader (download.ts) applies it to literal hosts, to what a name resolves to
 * and to the address a socket actually connected to.
 */
import { BlockList, isIP } from 'node:net';

/**
 * Ranges that belong to this computer, a private network or a special purpose, never to a public
 * image host: loopback, RFC 1918, carrier-grade NAT, link-local, "this network", multicast and
 * reserved space, IPv6 loopback/unspecified/IPv4-compatible, unique-local and link-local.
 */
const NOT_PUBLIC: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 96, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const notPublic = new BlockList();
for (const [network, prefix, family] of NOT_PUBLIC) notPublic.addSubnet(network, prefix, family);

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/**
 * The IPv4 address an IPv6 address stands for when it is IPv4-mapped (`::ffff:a.b.c.d`, also
 * written `::ffff:7f00:1`) or uses the NAT64 well-known prefix (`64:ff9b::a.b.c.d`); else null.
 */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const match = /^(?:(?:0{1,4}:){5}|::(?:0{1,4}:)?)ffff:(.+)$|^64:ff9b::(.+)$/.exec(lower);
  const tail = match?.[1] ?? match?.[2];
  if (tail === undefined) return null;
  if (isIP(tail) === 4) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(tail);
  if (hex === null) return null;
  const high = parseInt(hex[1] as string, 16);
  const low = parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** What {@link previewAddressVerdict} decided. */
export type PreviewAddressVerdict = 'public' | 'loopback' | 'refused';

/**
 * Classifies one IP address for a preview download.
 * @param address an IPv4 or IPv6 literal without brackets (`127.0.0.1`, `::ffff:7f00:1`, `fe80::1`)
 * @returns `public` for an address outside every non-public range, `loopback` for 127.0.0.0/8,
 *   `::1` and their IPv4-mapped forms, `refused` for every other private or special range (10/8,
 *   172.16/12, 192.168/16, 100.64/10, 169.254/16, 0/8, multicast, reserved, fc00::/7, fe80::/10,
 *   `::`, …, mapped forms included) and for anything that is not an IP address
 */
export function previewAddressVerdict(address: string): PreviewAddressVerdict {
  const family = isIP(address);
  if (family === 0) return 'refused';
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  if (v4 !== null) {
    if (loopback.check(v4, 'ipv4')) return 'loopback';
    return notPublic.check(v4, 'ipv4') ? 'refused' : 'public';
  }
  if (loopback.check(address, 'ipv6')) return 'loopback';
  return notPublic.check(address, 'ipv6') ? 'refused' : 'public';
}

/**
 * True when a preview may be fetched from `address`: a public address always; a loopback address
 * only for a profile whose own base URL is on this computer (the sample API serves its previews
 * there); any other private or special address never.
 * @param address an IP literal without brackets
 * @param profileIsLoopback whether the profile's base URL host is loopback (profiles/baseUrl.ts)
 */
export function mayFetchPreviewFrom(address: string, profileIsLoopback: boolean): boolean {
  const verdict = previewAddressVerdict(address);
  return verdict === 'public' || (verdict === 'loopback' && profileIsLoopback);
}

/** A WHATWG `URL.hostname` without the brackets of an IPv6 literal. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * True when a profile's base URL is on this computer: host `localhost` or a loopback literal
 * (127.0.0.0/8, `[::1]`, their IPv4-mapped forms). Such a profile may have previews fetched from
 * this computer; the profile rules (profiles/baseUrl.ts) already limit plain http to these hosts.
 * @param baseUrl the profile's base URL; one that does not parse counts as elsewhere
 */
export function isLoopbackProfile(baseUrl: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(baseUrl).hostname;
  } catch {
    return false;
  }
  return hostname === 'localhost' || previewAddressVerdict(unbracket(hostname)) === 'loopback';
}
