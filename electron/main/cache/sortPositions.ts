/**
 * The sort positions of a build (publish.ts): for every staged row its default-order position
 * (`rn`, the new mirror's rowid) and one position per sortable column (positions.ts), written to a
 * narrow table `build_positions (rn INTEGER PRIMARY KEY, srow, pos_…)` that the build then joins to
 * the staged rows. They are computed in the sync connection; a large build meanwhile fills its
 * search index in a worker thread (searchIndexBuild.ts): the two are the largest parts of a build
 * and need nothing of each other.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { dropLocaleRanks, withLocaleRanks } from './collation.ts';
import { CONTACT_DEFAULT_ORDER, CONTACT_POSITIONS, DISTINCT_TEXT_COLUMNS, ORDER_DEFAULT_ORDER, ORDER_POSITIONS, TIE } from './positions.ts';

/** The staging table of each resource, and its positions. */
const SOURCES: Record<Resource, { stage: string; positions: Record<string, string>; defaultOrder: string }> = {
  contacts: { stage: 'stage_contacts', positions: CONTACT_POSITIONS, defaultOrder: CONTACT_DEFAULT_ORDER },
  orders: { stage: 'stage_orders', positions: ORDER_POSITIONS, defaultOrder: ORDER_DEFAULT_ORDER },
};

/**
 * Writes `build_positions` of `resource` into schema `target` of `db` from its staging table in
 * schema `source`.
 * The window sorts run over the staged rows' keys only; text is ranked in locale order first
 * (collation.ts), one key per distinct value, except where nearly every value is distinct.
 * @param source schema of the staging table
 * @param target schema of the table written
 */
export function writePositions(db: Database.Database, resource: Resource, source: string, target: string): void {
  const { stage, positions, defaultOrder } = SOURCES[resource];
  const names = Object.keys(positions);
  const table = `${source}.${stage}`;
  // SQLite sizes each sorter by the page cache, and the window sorts run at once: a small cache
  // for this one statement keeps peak memory down at no cost in time (the sorts spill to files).
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -1024');
  try {
    const exprs = withLocaleRanks(db, table, names.map((k) => positions[k] as string), DISTINCT_TEXT_COLUMNS);
    db.exec(`DROP TABLE IF EXISTS ${target}.build_positions`);
    db.exec(`CREATE TABLE ${target}.build_positions (rn INTEGER PRIMARY KEY, srow INTEGER NOT NULL, ${names.map((n) => `${n} INTEGER`).join(', ')})`);
    db.exec(`INSERT INTO ${target}.build_positions (rn, srow, ${names.join(', ')})
      SELECT row_number() OVER (ORDER BY ${defaultOrder}), rowid, ${exprs.map((e) => `row_number() OVER (ORDER BY ${e}, ${TIE}) - 1`).join(', ')} FROM ${table}`);
  } finally {
    dropLocaleRanks(db);
    db.pragma(`cache_size = ${cacheSize}`);
  }
}

/**
 * Computes the sort positions of `resource`'s staged rows in the sync connection, into
 * `temp.build_positions`, and returns that table's name. On the sync connection's bulk settings
 * (db.ts `useBulkWriteSettings`) the window sorts spill to temporary files and have a helper
 * thread (`PRAGMA threads`).
 */
export function computePositions(db: Database.Database, resource: Resource): string {
  writePositions(db, resource, 'main', 'temp');
  return 'temp.build_positions';
}
