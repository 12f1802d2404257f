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

/** Contacts read and keyed per batch: a bounded slice of the mirror in memory at a time. */
const BATCH = 5_000;

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
  // The keys are computed here, not by an SQL function registered on the connection: a function
  // outlives the call on the sync's long-lived connection and ties it to this thread's isolate.
  // Batches by rowid, each read whole before its keys are written: a connection runs one
  // statement at a time, so rows cannot be written while an iterator over the contacts is open.
  try {
    db.exec('DROP TABLE IF EXISTS temp.duplicate_levels');
    db.exec('CREATE TEMP TABLE duplicate_levels (id TEXT NOT NULL, address TEXT NOT NULL, household TEXT NOT NULL, individual TEXT NOT NULL)');
    const page = db.prepare('SELECT rowid, id, first_name, last_name, address1, address2, city, state, zip FROM main.contacts WHERE rowid > ? ORDER BY rowid LIMIT ?').raw(true);
    const insert = db.prepare('INSERT INTO temp.duplicate_levels (id, address, household, individual) VALUES (?, ?, ?, ?)');
    const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
    const keyBatch = db.transaction((rows: unknown[][]) => {
      for (const [, id, firstName, lastName, address1, address2, city, state, zip] of rows) {
        const keys = duplicateKeys({ firstName: text(firstName), lastName: text(lastName), address1: text(address1), address2: text(address2), city: text(city), state: text(state), zip: text(zip) });
        if (keys) insert.run(text(id), keys.address, keys.household, keys.individual);
      }
    });
    let contacts = 0;
    let after = -Infinity;
    for (;;) {
      const rows = page.all(after, BATCH) as unknown[][];
      const last = rows.at(-1);
      if (!last) break;
      keyBatch(rows);
      contacts += rows.length;
      after = Number(last[0]);
    }
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
    db.exec('DROP TABLE IF EXISTS temp.duplicate_levels');
    db.exec('DROP TABLE IF EXISTS temp.duplicate_shared');
  }
}

/**
 * Deletes the groups and their time: the page then says they are found after the next sync. For a
 * find that failed after a publish, whose previous groups would name contacts it changed.
 * @param db a writable connection (the sync's)
 */
export function clearDuplicates(db: Database.Database): void {
  db.transaction(() => {
    db.exec('DELETE FROM main.contact_duplicates');
    db.exec('DELETE FROM main.contact_duplicates_state');
  }).immediate();
}
