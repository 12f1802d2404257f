/**
 * The sync's last step (DESIGN.md "App scheme"): bring the cache's template previews in line with
 * the cached orders. Downloads the thumbnails not stored yet (new ones and earlier failures), drops
 * the ones no order uses, and never fails: whatever goes wrong is in the result, the sync's outcome
 * does not depend on it, and a failed address is tried again at the next sync.
 */
import type Database from 'better-sqlite3';
import { clearPreviews, countPreviews, previewUrlsToFetch, recordPreviewFailure, removeUnusedPreviews, storePreview, type PreviewCounts } from '../cache/build/previews.ts';
import { downloadPreviews, type DownloadOptions } from './download.ts';

/** Options of {@link refreshPreviews}. */
export interface RefreshPreviewsOptions extends DownloadOptions {
  /** The profile's previews setting (`Profile.previews !== false`); off deletes every stored preview and downloads nothing. @default true */
  enabled?: boolean;
  /** Most addresses tried in one refresh; the rest wait for the next sync. @default 500 */
  maxUrls?: number;
  /**
   * Time for the whole refresh, ms: then no download starts and the ones under way stop, reported
   * to nobody (tried at the next sync), so an image host that never answers cannot hold the sync's
   * end back for long. @default 60000
   */
  budgetMs?: number;
  /** The clock for the rows' times. @default () => new Date() */
  now?: () => Date;
}

/** What {@link refreshPreviews} did. */
export interface RefreshPreviewsResult {
  /** Addresses tried this time. */
  attempted: number;
  /** Images downloaded and stored this time. */
  stored: number;
  /** Downloads that failed this time (kept as failed, tried again at the next sync). */
  failed: number;
  /** Previews deleted: no order uses their address any more, or previews are off. */
  removed: number;
  /** True when the signal or the time budget stopped it before every address was tried. */
  cancelled: boolean;
  /** What the cache holds afterwards (null when it could not be read). */
  counts: PreviewCounts | null;
  /** Set when the cache could not be read or written: what happened. Downloads are never a problem. */
  problem: string | null;
}

/**
 * Refreshes the previews of the cache `db` (a connection at schema ≥ 4, e.g. the sync's own):
 * with previews on, removes unused ones and downloads up to `maxUrls` missing or failed addresses
 * (previews/download.ts rules, which depend on `profileBaseUrl`) within `budgetMs`; with previews off, deletes them all. Call it after
 * the orders of a sync were published. Never rejects.
 * @returns counts of this refresh and of the cache afterwards, and a cache problem if there was one
 */
export async function refreshPreviews(db: Database.Database, options: RefreshPreviewsOptions): Promise<RefreshPreviewsResult> {
  const now = options.now ?? (() => new Date());
  const result: RefreshPreviewsResult = { attempted: 0, stored: 0, failed: 0, removed: 0, cancelled: false, counts: null, problem: null };
  const problem = (error: unknown): void => {
    result.problem ??= `The template previews could not be updated in the cache: ${(error as Error).message}`;
  };
  try {
    if (options.enabled === false) {
      result.removed = clearPreviews(db);
    } else {
      result.removed = removeUnusedPreviews(db);
      const urls = previewUrlsToFetch(db, options.maxUrls ?? 500);
      result.attempted = urls.length;
      const budget = AbortSignal.timeout(options.budgetMs ?? 60_000);
      const summary = await downloadPreviews(
        urls,
        {
          stored: (url, image) => storePreview(db, url, image, now()),
          failed: (url, reason) => recordPreviewFailure(db, url, reason, now()),
        },
        { ...options, signal: options.signal ? AbortSignal.any([options.signal, budget]) : budget },
      );
      result.stored = summary.stored;
      result.failed = summary.failed;
      result.cancelled = summary.cancelled;
    }
  } catch (error) {
    problem(error);
  }
  try {
    result.counts = countPreviews(db);
  } catch (error) {
    problem(error);
  }
  return result;
}
