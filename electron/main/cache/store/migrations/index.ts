/**
 * The numbered, append-only list of cache migrations and their runner (DESIGN.md "Cache").
 * `PRAGMA user_version` holds the number of the last migration applied.
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../../shared/errors.ts';
import { migration as m001 } from './001_initial.ts';
import { migration as m002 } from './002_contact_filter_tokens.ts';
import { migration as m003 } from './003_filter_token_mark.ts';
import { migration as m004 } from './004_template_previews.ts';
import { migration as m005 } from './005_saved_views.ts';
import { migration as m006 } from './006_changes_and_summaries.ts';
import { migration as m007 } from './007_data_source.ts';
import { migration as m008 } from './008_kept_filters.ts';
import { migration as m009 } from './009_contact_mailing.ts';
import { migration as m010 } from './010_overview.ts';
import { migration as m011 } from './011_contact_duplicates.ts';

/** One schema step. `sql` runs inside the runner's transaction; never edit a released migration. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, in order; `MIGRATIONS[i].version === i + 1`. */
export const MIGRATIONS: readonly Migration[] = [m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011];

/** The schema version this build of Letterdesk writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `db` to {@link SCHEMA_VERSION}: all pending migrations run in ONE transaction, then
 * `user_version` is set. A file newer than this app is refused and left untouched.
 * @param target stop at this version (tests of a single migration); defaults to the latest
 * @returns the version before and after
 * @throws LetterdeskError CACHE_TOO_NEW when the file's user_version exceeds what this app knows
 */
export function migrate(db: Database.Database, target: number = SCHEMA_VERSION): { from: number; to: number } {
  const from = assertNotTooNew(db);
  if (from >= target) return { from, to: from };
  db.transaction(() => {
    for (const m of MIGRATIONS.slice(from, target)) db.exec(m.sql);
    db.pragma(`user_version = ${target}`);
  }).immediate();
  return { from, to: target };
}

/**
 * Reads `user_version` and refuses a file newer than this app (nothing is written).
 * @returns the file's schema version
 * @throws LetterdeskError CACHE_TOO_NEW
 */
export function assertNotTooNew(db: Database.Database): number {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new LetterdeskError(
      'CACHE_TOO_NEW',
      `This cache file was written by a newer Letterdesk (schema ${from}; this app knows up to ${SCHEMA_VERSION}). ` +
        'It was left untouched: update Letterdesk, or clear the cache to sync again with this version.',
    );
  }
  return from;
}
