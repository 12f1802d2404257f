/**
 * Migration 11: the contacts that would receive the same letter twice (docs/cache-schema.md
 * "Duplicates"; build/duplicates.ts). Nothing that exists changes.
 *
 *  - `contact_duplicates`: one row per member of each group of two or more contacts whose key
 *    (shared/addressKey.ts) is equal at a level (`address`, `household`, `individual`).
 *  - `contact_duplicates_state`: at most one row, when the groups were found, over how many
 *    contacts, and in how many milliseconds. No row: not found yet.
 *
 * The keys are computed by the app's normaliser, which SQL cannot run: both tables start empty
 * and the next sync of contacts fills them. Append-only: never edit this file once released.
 */
import type { Migration } from './index.ts';

export const migration: Migration = {
  version: 11,
  name: 'contact_duplicates',
  sql: `
CREATE TABLE contact_duplicates (
  level TEXT NOT NULL,
  group_key TEXT NOT NULL,
  contact_id TEXT NOT NULL,
  PRIMARY KEY (level, group_key, contact_id)
) WITHOUT ROWID;
CREATE INDEX contact_duplicates_contact ON contact_duplicates(contact_id, level);
CREATE TABLE contact_duplicates_state (computed_at TEXT NOT NULL, contacts INTEGER NOT NULL, took_ms INTEGER NOT NULL);
`,
};
