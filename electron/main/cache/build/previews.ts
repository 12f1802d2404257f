/**
 * The SQL the sync's last step (previews/refresh.ts) runs on the template previews kept in a
 * profile's cache (table `template_previews`, migration 004): which thumbnail addresses of the
 * cached orders still need a download, storing an image or a failed attempt, counting them, and
 * dropping the ones no order uses any more. The app scheme reads them by key (read/previews.ts).
 */
import type Database from 'better-sqlite3';
import { previewKey } from '../../../../shared/previewKey.ts';
import type { PreviewImage } from '../store/previewImage.ts';

/** What the previews of a cache look like (for the sync's report and the tests). */
export interface PreviewCounts {
  /** Thumbnail addresses with a stored image. */
  stored: number;
  /** Thumbnail addresses whose last attempt failed and that have no image. */
  failed: number;
}

/**
 * Thumbnail addresses of the cached orders (§2.3 `template.thumbnailUrl`, distinct, non-empty) that
 * have no stored image: never tried first, then the failed ones, least recently tried first.
 * Reads the whole `orders` table once.
 * @param limit at most this many addresses
 */
export function previewUrlsToFetch(db: Database.Database, limit: number): string[] {
  return db
    .prepare(
      `SELECT t.url FROM (SELECT DISTINCT template_thumbnail_url AS url FROM orders WHERE template_thumbnail_url IS NOT NULL AND template_thumbnail_url <> '') t
       LEFT JOIN template_previews p ON p.url = t.url
       WHERE p.bytes IS NULL
       ORDER BY p.attempted_at IS NOT NULL, p.attempted_at, t.url
       LIMIT ?`,
    )
    .pluck()
    .all(limit) as string[];
}

/**
 * Stores the image downloaded for `url` (replacing a failed attempt's row).
 * @param image the bytes and the type they were recognised as (previews/imageType.ts)
 * @param at the time of the download
 */
export function storePreview(db: Database.Database, url: string, image: PreviewImage, at: Date): void {
  db.prepare(
    `INSERT INTO template_previews (url, key, content_type, bytes, downloaded_at, attempted_at, attempts, error)
     VALUES (@url, @key, @type, @bytes, @at, @at, 1, NULL)
     ON CONFLICT (url) DO UPDATE SET content_type = @type, bytes = @bytes, downloaded_at = @at, attempted_at = @at, attempts = attempts + 1, error = NULL`,
  ).run({ url, key: previewKey(url), type: image.type, bytes: image.bytes, at: at.toISOString() });
}

/**
 * Records a failed attempt for `url`: its reason and time. An image stored before is kept.
 * @param reason what went wrong, for a person (at most 500 characters are kept)
 * @param at the time of the attempt
 */
export function recordPreviewFailure(db: Database.Database, url: string, reason: string, at: Date): void {
  db.prepare(
    `INSERT INTO template_previews (url, key, attempted_at, attempts, error) VALUES (@url, @key, @at, 1, @reason)
     ON CONFLICT (url) DO UPDATE SET attempted_at = @at, attempts = attempts + 1, error = @reason`,
  ).run({ url, key: previewKey(url), reason: reason.slice(0, 500), at: at.toISOString() });
}

/**
 * Deletes the previews of addresses that no cached order uses any more.
 * @returns how many were deleted
 */
export function removeUnusedPreviews(db: Database.Database): number {
  return db.prepare('DELETE FROM template_previews WHERE url NOT IN (SELECT template_thumbnail_url FROM orders WHERE template_thumbnail_url IS NOT NULL)').run().changes;
}

/**
 * Deletes every preview (previews turned off in the profile).
 * @returns how many were deleted
 */
export function clearPreviews(db: Database.Database): number {
  return db.prepare('DELETE FROM template_previews').run().changes;
}

/** How many previews are stored and how many failed (see {@link PreviewCounts}). */
export function countPreviews(db: Database.Database): PreviewCounts {
  return db.prepare('SELECT count(bytes) AS stored, count(*) - count(bytes) AS failed FROM template_previews').get() as PreviewCounts;
}
