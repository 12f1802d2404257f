/**
 * Migration 7: where each resource's published copy came from — the origin of the profile's base
 * URL and its account scope at the sync that published it. When a profile is pointed at another
 * address or account, the cache keeps its data but can say, until the next sync, that it came from
 * the previous one (DESIGN.md "Credentials and profiles"). NULL for copies published before.
 *
 * Append-only: never edit this file once released.
 */
import type { Migration } from './index.ts';

export const migration: Migration = {
  version: 7,
  name: 'data_source',
  sql: `
ALTER TABLE resource_state ADD COLUMN source_origin TEXT;
ALTER TABLE resource_state ADD COLUMN source_account_id TEXT;
`,
};
