/**
 * The sort positions of a build (publish.ts): for every staged row its default-order position
 * (`rn`, the new mirror's rowid) and one position per sortable column (store/positions.ts), written to
 * narrow tables `(rn INTEGER PRIMARY KEY, srow, pos_…)` that the build then joins to the staged
 * rows. They are computed in the sync connection; a large build meanwhile fills its search index
 * in a worker thread (searchIndexBuild.ts), which first computes the positions of a few columns
 * for the build (`threadPositions`). Both number the default order with {@link writePositions},
 * so that the index's rowids and the thread's positions belong to the rows they are joined to.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { dropLocaleRanks, withLocaleRanks } from '../store/collation.ts';
import { CONTACT_DEFAULT_ORDER, CONTACT_POSITIONS, DISTINCT_TEXT_COLUMNS, ORDER_DEFAULT_ORDER, ORDER_POSITIONS, TIE } from '../store/positions.ts';

/** What a build of each resource sorts: see {@link BUILD_SOURCES}. */
export interface BuildSource {
  /** The staging table. */
  stage: string;
  /** Position column → its ordering expression (store/positions.ts). */
  positions: Record<string, string>;
  /** The default order, which numbers the rows (their rowids in the new mirror). */
  defaultOrder: string;
  /**
   * Position columns that a build with a search index thread has the thread compute, before it
   * fills the index, so that both cores sort: as many as make both sides end together at scale.
   * The thread ranks its own text columns (store/collation.ts), so its sorts need nothing of the
   * connection's.
   */
  threadPositions: readonly string[];
}

/** The staging table of each resource, its positions, and the default order that numbers its rows. */
export const BUILD_SOURCES: Record<Resource, BuildSource> = {
  contacts: { stage: 'stage_contacts', positions: CONTACT_POSITIONS, defaultOrder: CONTACT_DEFAULT_ORDER, threadPositions: ['pos_email', 'pos_phone', 'pos_zip', 'pos_state'] },
  orders: {
    stage: 'stage_orders', positions: ORDER_POSITIONS, defaultOrder: ORDER_DEFAULT_ORDER,
    threadPositions: ['pos_id', 'pos_recipients', 'pos_delivered', 'pos_status', 'pos_live_mode', 'pos_delivery_date'],
  },
};

/**
 * Writes table `target.<table>` (`rn INTEGER PRIMARY KEY, srow, <names>`) from `resource`'s
 * staging table in schema `source`: `rn` each staged row's place in the default order (1, 2, …;
 * its rowid in the new mirror), `srow` its rowid in staging, and each of `names` its position
 * (0 … n-1) in that column's order. The window sorts run over the staged rows' keys only; text is
 * ranked in locale order first (store/collation.ts), one key per distinct value, except where nearly
 * every value is distinct. The connection needs `locale_key` registered (store/db.ts).
 * @param source schema of the staging table
 * @param target schema of the table written (replaced if it exists)
 * @param names position columns of the resource (store/positions.ts); none gives only `rn` and `srow`
 */
export function writePositions(db: Database.Database, resource: Resource, source: string, target: string, table: string, names: readonly string[]): void {
  const { stage, positions, defaultOrder } = BUILD_SOURCES[resource];
  const staged = `${source}.${stage}`;
  // SQLite sizes each sorter by the page cache, and the window sorts run at once: a small cache
  // for this one statement keeps peak memory down at no cost in time (the sorts spill to files).
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -1024');
  try {
    const exprs = withLocaleRanks(db, staged, names.map((k) => positions[k] as string), DISTINCT_TEXT_COLUMNS);
    db.exec(`DROP TABLE IF EXISTS ${target}.${table}`);
    db.exec(`CREATE TABLE ${target}.${table} (rn INTEGER PRIMARY KEY, srow INTEGER NOT NULL${names.map((n) => `, ${n} INTEGER`).join('')})`);
    db.exec(`INSERT INTO ${target}.${table} (rn, srow${names.map((n) => `, ${n}`).join('')})
      SELECT row_number() OVER (ORDER BY ${defaultOrder}), rowid${exprs.map((e) => `, row_number() OVER (ORDER BY ${e}, ${TIE}) - 1`).join('')} FROM ${staged}`);
  } finally {
    dropLocaleRanks(db);
    db.pragma(`cache_size = ${cacheSize}`);
  }
}

/**
 * Computes sort positions `names` of `resource`'s staged rows in the sync connection, into
 * `temp.<table>`, and returns the table's qualified name. On the sync connection's bulk settings
 * (store/db.ts `useBulkWriteSettings`) the window sorts spill to temporary files and have a helper
 * thread (`PRAGMA threads`).
 */
export function computePositions(db: Database.Database, resource: Resource, table: string, names: readonly string[]): string {
  writePositions(db, resource, 'main', 'temp', table, names);
  return `temp.${table}`;
}
