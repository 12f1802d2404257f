/**
 * Reading a template preview kept in a profile's cache (table `template_previews`, migration 004)
 * by its key, for the app scheme's `preview/<key>` (the database worker answers it; the sync
 * writes them: build/previews.ts).
 */
import type Database from 'better-sqlite3';
import type { PreviewImage, PreviewType } from '../store/previewImage.ts';

/**
 * The stored image of a preview key, or null when there is none (no such key, or no successful
 * download yet).
 * @param key 32 hex digits (shared/previewKey.ts)
 */
export function readPreview(db: Database.Database, key: string): PreviewImage | null {
  const row = db.prepare('SELECT content_type AS type, bytes FROM template_previews WHERE key = ? AND bytes IS NOT NULL').get(key) as
    | { type: PreviewType; bytes: Uint8Array }
    | undefined;
  return row ? { type: row.type, bytes: row.bytes } : null;
}
