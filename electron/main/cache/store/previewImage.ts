/**
 * What a stored template preview is (table `template_previews`, migration 004): its bytes and the
 * media type they were recognised as. Only PNG, JPEG, WebP and GIF are ever stored or served
 * (previews/imageType.ts recognises them by their first bytes).
 */

/** The media types a preview may be stored and served as. */
export const PREVIEW_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

/** One of {@link PREVIEW_TYPES}. */
export type PreviewType = (typeof PREVIEW_TYPES)[number];

/** A stored preview: its bytes and the media type they were recognised as. */
export interface PreviewImage {
  type: PreviewType;
  bytes: Uint8Array;
}
