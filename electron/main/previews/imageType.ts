/**
 * The image formats a template preview may have, recognised by their first bytes (never by a
 * server's Content-Type or a file name): PNG, JPEG, WebP and GIF. SVG (a document that can carry
 * scripts and remote references) and everything else is refused.
 */

import type { PreviewType } from '../cache/store/previewImage.ts';

export { PREVIEW_TYPES, type PreviewType } from '../cache/store/previewImage.ts';

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b);

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/**
 * The media type of `bytes` from its signature, or null when it is none of {@link PREVIEW_TYPES}.
 *  - PNG: `89 50 4E 47 0D 0A 1A 0A`
 *  - JPEG: `FF D8 FF`
 *  - GIF: `GIF87a` or `GIF89a`
 *  - WebP: `RIFF` <4 bytes> `WEBP`
 * @param bytes the start of the file (at least 12 bytes to recognise WebP)
 */
export function sniffImageType(bytes: Uint8Array): PreviewType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}
