/**
 * Downloads template previews (§2.3 `template.thumbnailUrl`) for the cache, as carefully as an
 * address supplied by the service deserves: https only (http only to this computer, and only for a
 * profile on this computer, such as the sample API), never to this computer or a private network
 * for a profile elsewhere (address.ts; checked on the literal, on what a name resolves to and on
 * the address connected to), no cookies, no tokens, no redirect followed, a size cap, a timeout, a
 * few requests at once, and only PNG, JPEG, WebP or GIF bytes accepted, recognised by their
 * signature (never SVG).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { PreviewImage } from './serve.ts';
import { isLoopbackProfile, mayFetchPreviewFrom, previewAddressVerdict, unbracket } from './address.ts';
import { sniffImageType } from './imageType.ts';
import { readCappedBody } from '../base/cappedBody.ts';

/** Where each download's outcome goes (the cache, in `refreshPreviews`). */
export interface PreviewSink {
  /** The image of `url` was downloaded and recognised. */
  stored(url: string, image: PreviewImage): void;
  /** The download of `url` failed; `reason` says why, for a person. */
  failed(url: string, reason: string): void;
}

/** One address of a resolved host name. */
export interface ResolvedAddress {
  /** An IP literal without brackets. */
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (all of them); rejects like `dns.lookup` when it cannot. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@link downloadPreviews} and {@link downloadPreview}. */
export interface DownloadOptions {
  /**
   * The base URL of the profile whose service named the addresses: only a profile on this
   * computer (loopback host) may have previews fetched from this computer, and over plain http.
   */
  profileBaseUrl: string;
  /** Resolves the host names of preview addresses. @default the system's resolver (`dns.lookup`) */
  resolve?: Resolver;
  /** Opens each download's socket. @default {@link connectSocket} */
  connect?: Connector;
  /** Stops every download: the ones not finished are reported to nobody (neither stored nor failed). */
  signal?: AbortSignal;
  /** Downloads at once. @default 4 */
  concurrency?: number;
  /** Time for one whole download (answer and body), ms. @default 10000 */
  timeoutMs?: number;
  /** Largest image accepted, bytes. @default 2 MiB */
  maxBytes?: number;
}

/** What {@link downloadPreviews} did. */
export interface DownloadSummary {
  stored: number;
  failed: number;
  /** True when `signal` stopped it before every address was tried. */
  cancelled: boolean;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;

/** A download that failed, with the reason a person reads. */
export class PreviewDownloadError extends Error {
  override readonly name = 'PreviewDownloadError';
}

/** A download stopped by the caller's signal (not a failure of the address). */
class Cancelled extends Error {}

/**
 * True when a preview may be downloaded from `url` as far as its text says: an absolute `https:`
 * URL, or `http:` to exactly this computer (`localhost`, `127.0.0.0/8`, `[::1]`, mapped forms; not `localhost.`,
 * which DNS resolves) when the profile itself is on this computer; in either case without a user
 * or password, and with no literal host in a range {@link mayFetchPreviewFrom} refuses. A name
 * is checked again once resolved, by {@link downloadPreview}.
 * @param url the thumbnail address the service named
 * @param profileIsLoopback whether the profile's base URL host is loopback
 */
export function isAllowedPreviewUrl(url: string, profileIsLoopback: boolean): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.hostname === '') return false;
  const host = unbracket(parsed.hostname);
  if (isIP(host) !== 0 && !mayFetchPreviewFrom(host, profileIsLoopback)) return false;
  if (parsed.protocol === 'https:') return true;
  if (parsed.protocol !== 'http:') return false;
  return profileIsLoopback && (parsed.hostname === 'localhost' || previewAddressVerdict(host) === 'loopback');
}

const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** Resolves a host name the way `dns.lookup` does, with every address. */
async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  return (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/** Raised inside the socket's lookup or on connect when an address is refused; carries the reason. */
class RefusedAddress extends Error {}

const refusedReason = (hostname: string, address: string): string =>
  hostname === address
    ? `Not downloaded: ${address} is an address of this computer or a private network, and previews of a service elsewhere come only from public addresses.`
    : `Not downloaded: ${hostname} resolves to ${address}, an address of this computer or a private network, and previews of a service elsewhere come only from public addresses.`;

const refusedConnection = (hostname: string, address: string): string =>
  `Not downloaded: the connection to ${hostname} went to ${address || 'an unknown address'}, an address of this computer or a private network, and previews of a service elsewhere come only from public addresses.`;

/**
 * A socket `lookup` that resolves with `resolve` and refuses the whole name when any of its
 * addresses is one {@link mayFetchPreviewFrom} refuses (a name that also points into a private
 * network is not trusted for its other addresses).
 */
function checkedLookup(resolve: Resolver, profileIsLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        const bad = all.find((a) => !mayFetchPreviewFrom(a.address, profileIsLoopback));
        if (bad !== undefined) return callback(new RefusedAddress(refusedReason(hostname, bad.address)), '', 0);
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all === true) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, wanted);
        const first = wanted[0] as ResolvedAddress;
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** What {@link Connector} is asked to open. */
export interface ConnectRequest {
  /** The URL's host: a name, or an IP literal without brackets. */
  host: string;
  port: number;
  /** True for https: the socket is a TLS socket, with `host` as server name unless it is an IP. */
  tls: boolean;
  /** The lookup that resolves `host` and refuses addresses outside the rules; must be used. */
  lookup: LookupFunction;
}

/** Opens the socket of one download (net or TLS), not yet connected. */
export type Connector = (request: ConnectRequest) => Socket;

/** The connector of {@link downloadPreview}: `net.connect`, or `tls.connect` for https. */
export const connectSocket: Connector = ({ host, port, tls, lookup }) =>
  tls ? tlsConnect({ host, port, lookup, servername: isIP(host) === 0 ? host : undefined, ALPNProtocols: ['http/1.1'] }) : netConnect({ host, port, lookup });

/**
 * Opens the connection of one download with {@link checkedLookup}, and checks the address the
 * socket actually connected to before any other listener of 'connect' runs, so not one byte of
 * the request (nor a TLS hello) reaches a refused address.
 */
function connectChecked(url: URL, policy: Policy): (options: object, ready: (error: Error | null, socket: Duplex) => void) => Duplex {
  const host = unbracket(url.hostname);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const lookup = checkedLookup(policy.resolve, policy.profileIsLoopback);
  return () => {
    const socket = policy.connect({ host, port, tls: url.protocol === 'https:', lookup });
    socket.prependOnceListener('connect', () => {
      const address = socket.remoteAddress ?? '';
      if (!mayFetchPreviewFrom(address, policy.profileIsLoopback)) socket.destroy(new RefusedAddress(refusedConnection(host, address)));
    });
    return socket;
  };
}

/** How one download resolves, connects and judges addresses. */
interface Policy {
  resolve: Resolver;
  connect: Connector;
  profileIsLoopback: boolean;
}

/**
 * Sends the GET of one download and waits for the answer's head.
 * @throws RefusedAddress, a network error, or the signal's abort
 */
function request(url: URL, policy: Policy, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolveAnswer, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      headers: { accept: 'image/png, image/jpeg, image/webp, image/gif' },
      defaultPort: url.protocol === 'https:' ? 443 : 80,
      createConnection: connectChecked(url, policy),
      signal,
    });
    req.once('response', resolveAnswer);
    req.once('error', reject);
    req.end();
  });
}

/**
 * Downloads one preview.
 * @param options `profileBaseUrl` decides whether loopback addresses are allowed
 * @returns the image, typed by its signature
 * @throws PreviewDownloadError with the reason (address not allowed — by its text, by what its
 *   name resolves to or by the address connected to —, a status other than 200 — a redirect
 *   names where it pointed —, too large, not an accepted image, no answer in time, network
 *   error); the caller's abort as its own error
 */
export async function downloadPreview(url: string, options: DownloadOptions): Promise<PreviewImage> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const profileIsLoopback = isLoopbackProfile(options.profileBaseUrl);
  if (!isAllowedPreviewUrl(url, profileIsLoopback)) {
    throw new PreviewDownloadError(
      profileIsLoopback
        ? 'Not downloaded: a preview must be an https address (http only to this computer) outside private networks.'
        : 'Not downloaded: a preview of a service elsewhere must be an https address outside this computer and private networks.',
    );
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const policy: Policy = { resolve: options.resolve ?? systemResolve, connect: options.connect ?? connectSocket, profileIsLoopback };
    const response = await request(new URL(url), policy, signal);
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      response.destroy();
      const location = response.headers.location;
      if (status >= 300 && status < 400) {
        throw new PreviewDownloadError(`The image host answered ${status} and pointed to ${location === undefined ? 'no address' : location.slice(0, 300)}; redirects are not followed.`);
      }
      throw new PreviewDownloadError(`The image host answered ${status}.`);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy();
      throw new PreviewDownloadError(`The image is larger than ${mib(maxBytes)} (${mib(declared)}).`);
    }
    const bytes = await readCappedBody(Readable.toWeb(response) as ReadableStream<Uint8Array>, maxBytes);
    if (bytes === null) throw new PreviewDownloadError(`The image is larger than ${mib(maxBytes)}.`);
    const type = sniffImageType(bytes);
    if (type === null) throw new PreviewDownloadError('The answer is not a PNG, JPEG, WebP or GIF image.');
    return { type, bytes };
  } catch (error) {
    if (options.signal?.aborted) throw new Cancelled('cancelled');
    if (error instanceof PreviewDownloadError) throw error;
    if (error instanceof RefusedAddress) throw new PreviewDownloadError(error.message);
    if (timeout.aborted) throw new PreviewDownloadError(`The image host did not answer within ${Math.round(timeoutMs / 100) / 10} s.`);
    const code = (error as { code?: string }).code;
    throw new PreviewDownloadError(`The image could not be downloaded: ${code ?? (error as Error).message}.`);
  }
}

/**
 * Downloads every address in `urls` (duplicates once), `concurrency` at a time, reporting each
 * outcome to `sink` as it comes. Never rejects for a failed download (each one is a `failed`);
 * when the sink throws, no new download starts and the sink's first error is thrown once the ones
 * under way have ended.
 * @param urls thumbnail addresses
 * @param sink receives each image or failure
 */
export async function downloadPreviews(urls: readonly string[], sink: PreviewSink, options: DownloadOptions): Promise<DownloadSummary> {
  const queue = [...new Set(urls)];
  const summary: DownloadSummary = { stored: 0, failed: 0, cancelled: false };
  let next = 0;
  let sinkError: { error: unknown } | null = null;
  const report = (call: () => void): void => {
    try {
      call();
    } catch (error) {
      sinkError ??= { error };
    }
  };
  const worker = async (): Promise<void> => {
    while (next < queue.length && !options.signal?.aborted && sinkError === null) {
      const url = queue[next++] as string;
      let image: PreviewImage;
      try {
        image = await downloadPreview(url, options);
      } catch (error) {
        if (error instanceof Cancelled) return;
        summary.failed++;
        report(() => sink.failed(url, (error as Error).message));
        continue;
      }
      summary.stored++;
      report(() => sink.stored(url, image));
    }
  };
  const lanes = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, queue.length));
  await Promise.all(Array.from({ length: lanes }, worker));
  if (sinkError !== null) throw (sinkError as { error: unknown }).error;
  summary.cancelled = options.signal?.aborted === true && summary.stored + summary.failed < queue.length;
  return summary;
}
