/**
 * Answers `preview/<key>` of the app scheme from the active profile's cache (DESIGN.md "App
 * scheme"): the page shows a template's preview without any network request, and offline.
 */
import { PREVIEW_KEY_PATTERN } from '../../../shared/previewKey.ts';
import { BASE_HEADERS, notFound, type SchemeResponse } from '../base/schemeResponse.ts';
import type { PreviewImage } from '../cache/store/previewImage.ts';
import { sniffImageType } from './imageType.ts';

export type { PreviewImage } from '../cache/store/previewImage.ts';

/**
 * Reads the preview of `key` (shared/previewKey.ts) from the active profile's cache: null when
 * there is none (never downloaded, failed, previews off, no active profile). May be synchronous
 * (a SQLite connection on the calling thread) or asynchronous (the cache's worker).
 */
export type PreviewReader = (key: string) => PreviewImage | null | Promise<PreviewImage | null>;

/**
 * The scheme's answer for `preview/<key>`: 200 with the image, typed by its own first bytes (a cache
 * file edited by hand cannot make the page load an SVG or HTML), or 404 for a malformed key, a
 * missing reader, no stored preview, bytes that are not a PNG, JPEG, WebP or GIF, or a reader that
 * fails. Never throws.
 * @param read the active profile's preview reader (undefined: no cache is open)
 * @param key the request's last path segment
 */
export async function previewResponse(read: PreviewReader | undefined, key: string): Promise<SchemeResponse> {
  if (read === undefined || !PREVIEW_KEY_PATTERN.test(key)) return notFound();
  let image: PreviewImage | null;
  try {
    image = await read(key);
  } catch {
    return notFound();
  }
  const type = image ? sniffImageType(image.bytes) : null;
  if (image === null || type === null) return notFound();
  return {
    status: 200,
    headers: { ...BASE_HEADERS, 'Content-Type': type, 'Content-Length': String(image.bytes.length) },
    body: image.bytes,
  };
}
