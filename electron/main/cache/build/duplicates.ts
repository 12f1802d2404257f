/**
 * The contacts that would receive the same letter twice (docs/cache-schema.md "Duplicates"),
 * found after each publish of the contacts (sync/engine.ts) from the published mirror: each
 * contact's keys (shared/addressKey.ts) into a temporary table, the keys shared by two or more
 * contacts at each level into `contact_duplicates`. Readers keep using the contacts meanwhile
 * (only the last step writes, one short transaction of the groups' rows); until it commits they
 * see the groups found after the previous sync.
 */
import type Database from 'better-sqlite3';
import { DUPLICATE_LEVELS, duplicateKeys } from '../../../../shared/addressKey.ts';

/** Separates a contact's three keys in the one value the SQL function returns. */
const SEPARATOR = '\u001f';

/** What {@link findDuplicates} found. */
export interface DuplicatesFound {
  /** Contacts looked at. */
  contacts: number;
  /** Groups at each level. */
  groups: Record<(typeof DUPLICATE_LEVELS)[number], number>;
  /** Milliseconds from the first read to the commit. */
  tookMs: number;
}

/**
 * Replaces the cache's duplicate groups with those of its published contacts, and records when.
 * @param db a writable connection (the sync's); the contacts must be published
 * @param computedAt ISO 8601 UTC instant recorded as the groups' time @default now
 * @returns the contacts and groups found, and the time taken
 */
export function findDuplicates(db: Database.Database, computedAt: string = new Date().toISOString()): DuplicatesFound {
  const started = performance.now();
  db.function('letterdesk_duplicate_keys', { deterministic: true }, (first, last, address1, address2, city, state, zip) => {
    const keys = duplicateKeys({
      firstName: String(first ?? ''), lastName: String(last ?? ''), address1: String(address1 ?? ''), address2: String(address2 ?? ''),
      city: String(city ?? ''), state: String(state ?? ''), zip: String(zip ?? ''),
    });
    return keys === null ? null : `${keys.address}${SEPARATOR}${keys.household}${SEPARATOR}${keys.individual}`;
  });
  try {
    db.exec('DROP TABLE IF EXISTS temp.duplicate_keys');
    db.exec(`CREATE TEMP TABLE duplicate_keys AS SELECT id, k FROM (
      SELECT id, letterdesk_duplicate_keys(first_name, last_name, address1, address2, city, state, zip) AS k FROM main.contacts) WHERE k IS NOT NULL`);
    const contacts = db.prepare('SELECT count(*) FROM main.contacts').pluck().get() as number;
    // The three keys apart: the household and individual keys begin with the address key.
    db.exec(`CREATE TEMP TABLE duplicate_levels AS SELECT id,
        substr(k, 1, instr(k, char(31)) - 1) AS address,
        substr(substr(k, instr(k, char(31)) + 1), 1, instr(substr(k, instr(k, char(31)) + 1), char(31)) - 1) AS household,
        substr(substr(k, instr(k, char(31)) + 1), instr(substr(k, instr(k, char(31)) + 1), char(31)) + 1) AS individual
      FROM temp.duplicate_keys`);
    db.exec('DROP TABLE temp.duplicate_keys');
    // Only a contact whose address key is shared can share a longer key: the grouping of the
    // name levels reads the few contacts of shared addresses, not the whole mirror.
    db.exec(`CREATE TEMP TABLE duplicate_shared AS SELECT * FROM temp.duplicate_levels
      WHERE address IN (SELECT address FROM temp.duplicate_levels GROUP BY address HAVING count(*) > 1)`);
    db.exec('DROP TABLE temp.duplicate_levels');
    const groups = { address: 0, household: 0, individual: 0 };
    db.transaction(() => {
      db.exec('DELETE FROM main.contact_duplicates');
      for (const level of DUPLICATE_LEVELS) {
        db.exec(`INSERT INTO main.contact_duplicates (level, group_key, contact_id)
          SELECT '${level}', ${level}, id FROM temp.duplicate_shared WHERE ${level} IN (SELECT ${level} FROM temp.duplicate_shared GROUP BY 1 HAVING count(*) > 1)`);
        groups[level] = db.prepare('SELECT count(DISTINCT group_key) FROM main.contact_duplicates WHERE level = ?').pluck().get(level) as number;
      }
      db.exec('DELETE FROM main.contact_duplicates_state');
      db.prepare('INSERT INTO main.contact_duplicates_state (computed_at, contacts, took_ms) VALUES (?, ?, ?)').run(computedAt, contacts, Math.round(performance.now() - started));
    }).immediate();
    return { contacts, groups, tookMs: Math.round(performance.now() - started) };
  } finally {
    db.exec('DROP TABLE IF EXISTS temp.duplicate_keys');
    db.exec('DROP TABLE IF EXISTS temp.duplicate_levels');
    db.exec('DROP TABLE IF EXISTS temp.duplicate_shared');
  }
}
