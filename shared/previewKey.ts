/**
 * Where the page finds a template's preview (§2.3 `template.thumbnailUrl`): the sync downloads each
 * preview once into the profile's cache, and the app's own scheme serves it at the relative path
 * `preview/<key>`, the key being a hash of the thumbnail's address. Pure and synchronous, so the
 * page, the main process and the tests compute the same key.
 */

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The path prefix (relative to the app page) under which previews are served. */
export const PREVIEW_PATH_PREFIX = 'preview/';

/** A preview key: 32 lowercase hex digits. */
export const PREVIEW_KEY_PATTERN = /^[0-9a-f]{32}$/;

/**
 * The key of a thumbnail address: the first 128 bits of the SHA-256 of its UTF-8 bytes, as 32
 * lowercase hex digits. The address is taken as given (not normalised), exactly as the service sent it.
 * @param thumbnailUrl the template's `thumbnailUrl`
 */
export function previewKey(thumbnailUrl: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(thumbnailUrl))).slice(0, 32);
}

/**
 * The relative URL of a thumbnail's cached preview, for an `img` in the page: `preview/<key>`.
 * Resolved against the app page it never leaves the app's own origin; a preview that was never
 * downloaded answers 404 (the image's `error` event).
 * @param thumbnailUrl the template's `thumbnailUrl`
 */
export function previewPath(thumbnailUrl: string): string {
  return `${PREVIEW_PATH_PREFIX}${previewKey(thumbnailUrl)}`;
}
