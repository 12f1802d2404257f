/**
 * Downloads template previews (§2.3 `template.thumbnailUrl`) for the cache, as carefully as an
 * address supplied by the service deserves: https only (http only to this computer, for the sample
 * API), no cookies, no tokens, no redirect followed, a size cap, a timeout, a few requests at once,
 * and only PNG, JPEG, WebP or GIF bytes accepted, recognised by their signature (never SVG).
 */
import type { PreviewImage } from './serve.ts';
import { sniffImageType } from './imageType.ts';
import { readCappedBody } from '../cappedBody.ts';

/** Where each download's outcome goes (the cache, in `refreshPreviews`). */
export interface PreviewSink {
  /** The image of `url` was downloaded and recognised. */
  stored(url: string, image: PreviewImage): void;
  /** The download of `url` failed; `reason` says why, for a person. */
  failed(url: string, reason: string): void;
}

/** Options of {@link downloadPreviews} and {@link downloadPreview}. */
export interface DownloadOptions {
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
 * True when a preview may be downloaded from `url`: an absolute `https:` URL, or `http:` to exactly
 * this computer (`localhost`, `127.0.0.0/8`, `[::1]`; not `localhost.`, which DNS resolves), in
 * either case without a user or password.
 */
export function isAllowedPreviewUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.hostname === '') return false;
  if (parsed.protocol === 'https:') return true;
  if (parsed.protocol !== 'http:') return false;
  const host = parsed.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/**
 * Downloads one preview.
 * @returns the image, typed by its signature
 * @throws PreviewDownloadError with the reason (address not allowed, a status other than 200 —
 *   a redirect names where it pointed —, too large, not an accepted image, no answer in time,
 *   network error); the caller's abort as its own error
 */
export async function downloadPreview(url: string, options: DownloadOptions = {}): Promise<PreviewImage> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!isAllowedPreviewUrl(url)) throw new PreviewDownloadError('Not downloaded: a preview must be an https address (http only to this computer).');
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, {
      method: 'GET',
      redirect: 'manual',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      headers: { accept: 'image/png, image/jpeg, image/webp, image/gif' },
      signal,
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400) {
        throw new PreviewDownloadError(`The image host answered ${response.status} and pointed to ${location === null ? 'no address' : location.slice(0, 300)}; redirects are not followed.`);
      }
      throw new PreviewDownloadError(`The image host answered ${response.status}.`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new PreviewDownloadError(`The image is larger than ${mib(maxBytes)} (${mib(declared)}).`);
    }
    const bytes = await readCappedBody(response.body, maxBytes);
    if (bytes === null) throw new PreviewDownloadError(`The image is larger than ${mib(maxBytes)}.`);
    const type = sniffImageType(bytes);
    if (type === null) throw new PreviewDownloadError('The answer is not a PNG, JPEG, WebP or GIF image.');
    return { type, bytes };
  } catch (error) {
    if (options.signal?.aborted) throw new Cancelled('cancelled');
    if (error instanceof PreviewDownloadError) throw error;
    if (timeout.aborted) throw new PreviewDownloadError(`The image host did not answer within ${Math.round(timeoutMs / 100) / 10} s.`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new PreviewDownloadError(`The image could not be downloaded: ${cause?.code ?? cause?.message ?? (error as Error).message}.`);
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
export async function downloadPreviews(urls: readonly string[], sink: PreviewSink, options: DownloadOptions = {}): Promise<DownloadSummary> {
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
