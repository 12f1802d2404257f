/**
 * Saved views' memberships when a sync publishes a resource's mirror (build/publish.ts): the
 * mirror's rowids change, so the member rowids and the members' search index are built again for
 * the new mirror beside it (`_next`, from the ids each membership keeps) and published with it; in
 * the same transaction the members newer than the mirror that the new mirror holds are dropped
 * (they are now shown from the mirror) and the others placed among the new mirror's rows. The sync
 * builds and publishes a mirror through {@link buildNextWithViews} and {@link publishNextWithViews}.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { buildNext, publishNext, type BuildOptions } from '../build/publish.ts';
import { memberTables, writeMemberRows } from './members.ts';
import { NEWER_TABLE, applyNewerPositions, deleteNewer, newerPositions } from './newer.ts';

/** The member keys of the memberships of `resource`'s views. */
function currentKeys(db: Database.Database, resource: Resource): number[] {
  return db.prepare('SELECT DISTINCT m.member_key FROM view_memberships m JOIN saved_views v ON v.id = m.view_id WHERE v.resource = ? ORDER BY 1').pluck().all(resource) as number[];
}

/**
 * Fills the `_next` member tables of `resource` (created empty by the build) from the `_next`
 * mirror, for every current membership.
 */
export function buildViewRowsNext(db: Database.Database, resource: Resource): void {
  const t = memberTables(resource, '_next');
  const keys = currentKeys(db, resource);
  for (const key of keys) writeMemberRows(db, resource, key, t);
  if (keys.length > 0) db.exec(`INSERT INTO ${t.fts} (${t.fts}) VALUES ('optimize')`);
}

/**
 * Inside the transaction that publishes `resource` (after the renames): drops the newer members the
 * mirror now holds, places the others among its rows, and counts each membership again.
 */
export function reconcileViewsOnPublish(db: Database.Database, resource: Resource): void {
  const mirror = resource === 'contacts' ? 'contacts' : 'orders';
  const table = NEWER_TABLE[resource];
  deleteNewer(db, resource, `n.id IN (SELECT id FROM ${mirror})`, []);
  applyNewerPositions(db, resource, newerPositions(db, resource, mirror, '1', []));
  db.prepare(`UPDATE view_memberships AS m SET
      in_mirror = (SELECT count(*) FROM ${memberTables(resource).rows} r WHERE r.member_key = m.member_key),
      newer = (SELECT count(*) FROM ${table} n WHERE n.member_key = m.member_key)
    WHERE m.view_id IN (SELECT id FROM saved_views WHERE resource = ?)`).run(resource);
}

/**
 * Builds the `_next` tables of `resource` (build/publish.ts `buildNext`), then its saved views'
 * member rowids and members' search index for the new mirror ({@link buildViewRowsNext}).
 * @returns the number of rows built
 */
export function buildNextWithViews(db: Database.Database, resource: Resource, gen: string, options: BuildOptions = {}): number {
  const rows = buildNext(db, resource, gen, options);
  // Saved views' members are found again in the new mirror (by their ids).
  buildViewRowsNext(db, resource);
  return rows;
}

/**
 * Publishes the `_next` tables of `resource` (build/publish.ts `publishNext`) with, in the same
 * transaction after the renames, its saved views reconciled ({@link reconcileViewsOnPublish}),
 * then `inTransaction`.
 */
export function publishNextWithViews(db: Database.Database, resource: Resource, inTransaction: () => void): void {
  publishNext(db, resource, () => {
    reconcileViewsOnPublish(db, resource);
    inTransaction();
  });
}
