/**
 * The memberships of kept filters (shared/keptFilters.ts; tables in docs/cache-schema.md), as the
 * sync process reads and publishes them: a read is staged like a saved view's (staging.ts, under
 * the view id `kept-<fid>`), then one transaction replaces the value's members with the ids staged.
 * A read that fails or is cancelled leaves the previous members and records its error.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { clearMembershipStage, refreshState } from './staging.ts';

/** A kept value the sync reads. */
export interface KeptTarget {
  fid: number;
  resource: Resource;
  param: string;
  value: string;
}

/** The staging's view id of kept value `fid` (never a saved view's id: those are UUIDs). */
export function keptStagingId(fid: number): string {
  return `kept-${fid}`;
}

/** The kept values of `resource`, in the filter pane's order of their parameters, then as kept. */
export function keptTargets(db: Database.Database, resource: Resource): KeptTarget[] {
  return db.prepare('SELECT fid, resource, param, value FROM kept_filters WHERE resource = ? ORDER BY fid').all(resource) as KeptTarget[];
}

/** Members of kept value `fid` that the mirror of `resource` holds. */
function membersInMirror(db: Database.Database, resource: Resource, fid: number): number {
  const mirror = resource === 'contacts' ? 'contacts' : 'orders';
  return db.prepare(`SELECT count(*) FROM kept_members k WHERE k.fid = ? AND EXISTS (SELECT 1 FROM ${mirror} x WHERE x.id = k.id)`).pluck().get(fid) as number;
}

/** What a verified read of a kept value is published with. */
export interface KeptRead {
  target: KeptTarget;
  /** The service query it sent (JSON text, dates resolved). */
  queryText: string;
  /** A date preset's local day, else null. */
  asOfDay: string | null;
}

/**
 * Replaces the members of a kept value with the ids its read staged, in one transaction, and
 * clears the staging.
 * @returns the members the mirror holds
 * @throws Error when no read of this query is staged (nothing changes)
 */
export function publishKept(db: Database.Database, read: KeptRead): number {
  const { fid, resource } = read.target;
  const viewId = keptStagingId(fid);
  const state = refreshState(db, viewId);
  if (!state || state.queryText !== read.queryText) throw new Error(`No read of kept filter ${fid} is staged to publish.`);
  return db.transaction(() => {
    // The value was dropped from the kept ones while it was read: its members go with it.
    if (db.prepare('SELECT 1 FROM kept_filters WHERE fid = ?').get(fid) === undefined) {
      clearMembershipStage(db, viewId);
      return 0;
    }
    db.prepare('DELETE FROM kept_members WHERE fid = ?').run(fid);
    db.prepare('INSERT OR IGNORE INTO kept_members (fid, id) SELECT ?, id FROM view_stage WHERE view_id = ?').run(fid, viewId);
    const members = membersInMirror(db, resource, fid);
    db.prepare(`UPDATE kept_filters SET query = ?, as_of_day = ?, read_at = ?, server_count = ?, members = ?, error_code = NULL, error_message = NULL, error_at = NULL
      WHERE fid = ?`).run(read.queryText, read.asOfDay, state.startedAt, state.serverCount, members, fid);
    clearMembershipStage(db, viewId);
    return members;
  }).immediate();
}

/**
 * Records why a read of a kept value failed; its previous members stay, counted again against
 * the mirror (which the sync may just have replaced).
 */
export function recordKeptFailure(db: Database.Database, target: KeptTarget, error: { code: string; message: string }): void {
  db.transaction(() => {
    const members = db.prepare('SELECT read_at FROM kept_filters WHERE fid = ?').pluck().get(target.fid) === null ? null : membersInMirror(db, target.resource, target.fid);
    db.prepare('UPDATE kept_filters SET error_code = ?, error_message = ?, error_at = ?, members = ? WHERE fid = ?')
      .run(error.code, error.message, new Date().toISOString(), members, target.fid);
    clearMembershipStage(db, keptStagingId(target.fid));
  }).immediate();
}
