/**
 * Migration 4: template previews (DESIGN.md "App scheme"). The sync downloads each distinct
 * `template.thumbnailUrl` (§2.3) of the cached orders once and keeps the image here, so the page
 * shows previews offline and the image host never learns who opened which order.
 *
 * One row per thumbnail address: `key` is the page's name for it (shared/previewKey.ts), `bytes` and
 * `content_type` the image (both NULL until a download succeeded; only PNG, JPEG, WebP or GIF),
 * `error` the reason of the last failed attempt (NULL after a success). Nothing else changes.
 *
 * Append-only: never edit this file once released.
 */
import type { Migration } from './index.ts';

export const migration: Migration = {
  version: 4,
  name: 'template_previews',
  sql: `
CREATE TABLE template_previews (
  url TEXT NOT NULL PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  content_type TEXT CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif')),
  bytes BLOB,
  downloaded_at TEXT,
  attempted_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  CHECK ((bytes IS NULL) = (content_type IS NULL))
);
`,
};
