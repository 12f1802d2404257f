/**
 * The observed history of a profile (docs/cache-schema.md "Observed history"): what Letterdesk saw
 * change between two reads of the service, kept in a file of its own beside the cache,
 * `<profile id>.history.sqlite`, so that it outlives the cache (a damaged cache moved aside,
 * "Clear cache and sync", a migration that rebuilds the cache). Connections attach it as the
 * schema `history`; the sync writes it (build/observe.ts), readers read it (read/timeline.ts).
 *
 *  - `observation_runs`: one row per sync that recorded changes: the resource, the run, the
 *    previous successful read's start (`after`) and this read's end (`at_or_before`), how many
 *    observations it stored and how many bytes the file grew by.
 *  - `observations`: one row per change of one field of one record (or of one recipient of an
 *    order), keyed by run first so that retention deletes whole runs as a range; an index by record
 *    answers a record's timeline. The field is a code of `observed_fields` (its name there), which
 *    keeps each row and its index entry small.
 *  - `delivered_counts`: per run of the orders, the recipients it observed delivered (`isDelivered`
 *    to true), written with the run (build/observe.ts), so that the Overview's deliveries per day
 *    read one row per sync instead of every observation. Added in version 2: a writer that opens
 *    the file counts the runs that lack one (a version 1 file, or runs an older Letterdesk wrote).
 */
import type Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import { moveAsideSync } from '../../base/atomicFile.ts';
import { historyFileOf, historyFileSet } from '../../base/paths.ts';
import { createPrivateFile } from './db.ts';

export { historyFileOf } from '../../base/paths.ts';

/** The schema name the history file is attached as. */
export const HISTORY_SCHEMA = 'history';

/** The history file's own schema version (`PRAGMA history.user_version`). */
export const HISTORY_VERSION = 2;

const HISTORY_SQL = `
CREATE TABLE IF NOT EXISTS history.observation_runs (
  run INTEGER PRIMARY KEY,
  resource TEXT NOT NULL CHECK (resource IN ('contacts', 'orders')),
  run_id TEXT NOT NULL,
  after TEXT NOT NULL,
  at_or_before TEXT NOT NULL,
  observations INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS history.observation_runs_time ON observation_runs(at_or_before);
CREATE TABLE IF NOT EXISTS history.observed_fields (
  code INTEGER PRIMARY KEY,
  field TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS history.observations (
  run INTEGER NOT NULL,
  record_id TEXT NOT NULL,
  field INTEGER NOT NULL,
  recipient_id TEXT NOT NULL DEFAULT '',
  from_value TEXT NOT NULL,
  to_value TEXT NOT NULL,
  PRIMARY KEY (run, record_id, field, recipient_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS history.observations_record ON observations(record_id);
CREATE TABLE IF NOT EXISTS history.delivered_counts (
  run INTEGER PRIMARY KEY,
  delivered INTEGER NOT NULL);
`;

/** The condition "observation `o` is a recipient observed delivered" (`isDelivered` to true). */
export const OBSERVED_DELIVERED = `o.to_value = 'true' AND o.field = (SELECT code FROM history.observed_fields WHERE field = 'isDelivered')`;

/** Counts the delivered recipients of each run of the orders that has no {@link HISTORY_SQL} `delivered_counts` row. */
const FILL_DELIVERED_COUNTS = `INSERT INTO history.delivered_counts (run, delivered)
  SELECT r.run, (SELECT count(*) FROM history.observations o WHERE o.run = r.run AND ${OBSERVED_DELIVERED})
  FROM history.observation_runs r WHERE r.resource = 'orders' AND r.run NOT IN (SELECT run FROM history.delivered_counts)`;

/** Whether `db` has the history attached. */
export function hasHistory(db: Database.Database): boolean {
  return (db.pragma('database_list') as { name: string }[]).some((d) => d.name === HISTORY_SCHEMA);
}

/**
 * Attaches the history of `db`'s cache file as the schema `history` (creating the file, private to
 * the user, and its tables when missing); an in-memory cache gets an in-memory history. Does
 * nothing when it is attached already. Call it outside a transaction (SQLite cannot attach inside
 * one).
 * @param readonly attach for reading only; a missing file is then not created, and false is returned
 * @returns whether the history is attached
 * @throws the SQLite error of the attach (SQLITE_CANTOPEN when the folder is not writable, for instance)
 */
export function attachHistory(db: Database.Database, readonly = false): boolean {
  if (hasHistory(db)) return true;
  if (db.memory || !db.name) {
    db.prepare('ATTACH DATABASE ? AS history').run(':memory:');
    ensureHistorySchema(db);
  } else {
    const file = historyFileOf(db.name);
    // A reader attaches only a file that exists: nothing has been observed otherwise.
    if (readonly && !existsSync(file)) return false;
    if (!readonly) createPrivateFile(file);
    db.prepare('ATTACH DATABASE ? AS history').run(file);
    if (!readonly) {
      db.pragma('history.journal_mode = WAL');
      ensureHistorySchema(db);
    }
  }
  return true;
}

/**
 * {@link attachHistory} for a connection being opened (store/db.ts), which a damaged history must
 * never keep from opening the cache: a history file SQLite cannot read is moved aside
 * (`<file>.damaged-<time>`, never deleted) and a new one started; a read-only connection then goes
 * without. Never throws.
 * @returns whether the history is attached
 */
export function attachHistoryOnOpen(db: Database.Database, readonly: boolean): boolean {
  try {
    const attached = attachHistory(db, readonly);
    if (attached) db.prepare('SELECT count(*) FROM history.sqlite_master').get();
    return attached;
  } catch (error) {
    try {
      detachHistory(db);
    } catch {
      // not attached
    }
    if (readonly || db.memory || !db.name) return false;
    const file = historyFileOf(db.name);
    try {
      const aside = moveAsideSync(file);
      for (const part of historyFileSet(file).slice(0, -1)) rmSync(part, { force: true });
      void import('../../base/log.ts').then(({ logger }) => logger.warn(`cache: the observed history ${file} could not be read (${String(error)}); moved aside to ${aside}, a new one is started`));
      return attachHistory(db, false);
    } catch {
      return false;
    }
  }
}

/**
 * Creates the history's tables in the attached schema when missing, counts the deliveries of the
 * runs that lack a count (a look-up of the few runs when none does), and records its version.
 */
function ensureHistorySchema(db: Database.Database): void {
  const version = db.pragma('history.user_version', { simple: true }) as number;
  if (version > HISTORY_VERSION) return; // a newer Letterdesk's file: its tables are a superset
  db.exec(HISTORY_SQL);
  db.exec(FILL_DELIVERED_COUNTS);
  if (version < HISTORY_VERSION) db.pragma(`history.user_version = ${HISTORY_VERSION}`);
}

/** Whether the attached history has its {@link HISTORY_SQL} `delivered_counts` (a reader of a version 1 file has not). */
export function hasDeliveredCounts(db: Database.Database): boolean {
  return db.prepare("SELECT count(*) FROM history.sqlite_master WHERE name = 'delivered_counts'").pluck().get() === 1;
}

/** Detaches the history from `db` when it is attached (outside a transaction). */
export function detachHistory(db: Database.Database): void {
  if (hasHistory(db)) db.exec('DETACH DATABASE history');
}
