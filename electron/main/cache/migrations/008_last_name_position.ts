/**
 * Migration 8: the mirror's contacts keep a sort position by last name (positions.ts
 * `CONTACT_MIRROR_POSITIONS`), so a window of the last-name order is a range of an index instead
 * of a sort of every contact. A sync's build fills it. The contacts already cached have none
 * (NULL) until their next sync, and are sorted by last name as before (viewScope.ts
 * `lastName`): filling it here would rewrite every cached row at the first open.
 *
 * Append-only: never edit this file once released.
 */
import type { Migration } from './index.ts';

export const migration: Migration = {
  version: 8,
  name: 'last_name_position',
  sql: `
ALTER TABLE contacts ADD COLUMN pos_last_name INTEGER;
CREATE INDEX contacts_pos_last_name ON contacts(pos_last_name);
`,
};
