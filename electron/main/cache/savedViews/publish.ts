/**
 * Making a refresh's staging a saved view's membership (DESIGN.md "Views"), the way a sync makes
 * its staging the mirror: the new membership is written under its own member key beside the one
 * readers see (ids, mirror rowids, search index, newer records: members.ts, newer.ts),
 * then one short transaction points the view at it. Readers never see a half-written membership;
 * a refresh that fails, is cancelled or is killed leaves the previous one as it was, and the data
 * no view points at any more is deleted afterwards ({@link collectViewGarbage}).
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../shared/errors.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import type { ViewMembership } from '../../../../shared/views.ts';
import { dropMemberKey, storedMemberKeys, writeMemberRows } from './members.ts';
import { storeNewer } from './newer.ts';
import { clearMembershipStage, refreshState } from './staging.ts';

/** A refresh whose staging is complete and verified. */
export interface MembershipRead {
  viewId: string;
  resource: Resource;
  /** The service query it read, as stored (JSON text). */
  queryText: string;
  /** The path and query string of its first page, relative to the base URL (no token). */
  request: string;
}

/**
 * Throws when the view is gone or its service query changed since the refresh began (a person
 * deleted or edited it meanwhile): what was read then belongs to nothing.
 */
function checkStillWanted(db: Database.Database, read: MembershipRead): void {
  const row = db.prepare('SELECT service_query FROM saved_views WHERE id = ?').get(read.viewId) as { service_query: string | null } | undefined;
  if (!row) throw new LetterdeskError('NOT_FOUND', 'The view was deleted while its members were read; nothing was kept.');
  if (row.service_query !== read.queryText) {
    throw new LetterdeskError('CANCELLED', "The view's service query was changed while its members were read; they are read again for the new query.");
  }
}

/**
 * Publishes the staging of a refresh as the view's membership (the ids staged, in the service's
 * order; members the mirror does not hold stored as returned).
 * @returns the view's membership now
 * @throws LetterdeskError NOT_FOUND (the view was deleted), CANCELLED (its query changed), DRIFT
 *   (the mirror changed while the view was read), INTERNAL (no refresh of this query is staged);
 *   the previous membership is kept in each case
 */
export function publishMembership(db: Database.Database, read: MembershipRead): ViewMembership {
  checkStillWanted(db, read);
  const state = refreshState(db, read.viewId);
  if (!state || state.queryText !== read.queryText) throw new LetterdeskError('INTERNAL', `No refresh of view ${read.viewId} is staged to publish.`);
  const key = state.memberKey;
  // Anything an interrupted publish of the same read left under this key is written again.
  dropMemberKey(db, key);
  db.transaction(() => db.prepare(`INSERT INTO view_members (member_key, position, id)
    SELECT ?, row_number() OVER (ORDER BY position) - 1, id FROM view_stage WHERE view_id = ?`).run(key, read.viewId))();
  const inMirror = writeMemberRows(db, read.resource, key);
  const newer = db.transaction(() => storeNewer(db, read.resource, key, read.viewId))();
  const membership: ViewMembership = { refreshedAt: state.startedAt, request: read.request, serverCount: state.serverCount, members: inMirror + newer, newerThanMirror: newer };
  db.transaction(() => {
    checkStillWanted(db, read);
    db.prepare(`INSERT OR REPLACE INTO view_memberships (view_id, member_key, request, read_at, server_count, in_mirror, newer) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(read.viewId, key, read.request, state.startedAt, state.serverCount, inMirror, newer);
    db.prepare('UPDATE saved_views SET error_code = NULL, error_message = NULL, error_at = NULL WHERE id = ?').run(read.viewId);
    clearMembershipStage(db, read.viewId);
  }).immediate();
  collectViewGarbage(db);
  return membership;
}

/**
 * Records why a refresh failed as the view's last error (its membership stays as it was), unless
 * the view is gone or now has another query.
 */
export function recordRefreshFailure(db: Database.Database, viewId: string, queryText: string, error: { code: string; message: string }): void {
  db.prepare('UPDATE saved_views SET error_code = ?, error_message = ?, error_at = ? WHERE id = ? AND service_query = ?')
    .run(error.code, error.message, new Date().toISOString(), viewId, queryText);
}

/** The membership a view shows now, or null (none yet, or no such view). */
export function currentMembership(db: Database.Database, viewId: string): ViewMembership | null {
  const row = db.prepare('SELECT request, read_at, server_count, in_mirror, newer FROM view_memberships WHERE view_id = ?').get(viewId) as
    { request: string; read_at: string; server_count: number; in_mirror: number; newer: number } | undefined;
  return row ? { refreshedAt: row.read_at, request: row.request, serverCount: row.server_count, members: row.in_mirror + row.newer, newerThanMirror: row.newer } : null;
}

/**
 * Deletes the data of every member key no view points at and no refresh is writing (left by a
 * refresh that replaced it, a view deleted or given another query, a refresh discarded), and the
 * staging of views and kept filters that no longer exist.
 * @returns the member keys deleted
 */
export function collectViewGarbage(db: Database.Database): number[] {
  const live = new Set(db.prepare('SELECT member_key FROM view_memberships UNION SELECT member_key FROM view_refresh_state').pluck().all() as number[]);
  const garbage = [...storedMemberKeys(db)].filter((key) => !live.has(key));
  for (const key of garbage) dropMemberKey(db, key);
  db.transaction(() => {
    // A kept filter's read is staged under `kept-<fid>` (kept.ts): it stays while its filter does.
    for (const table of ['view_stage', 'view_stage_pages', 'view_refresh_state']) {
      db.prepare(`DELETE FROM ${table} WHERE view_id NOT IN (SELECT id FROM saved_views) AND view_id NOT IN (SELECT 'kept-' || fid FROM kept_filters)`).run();
    }
  })();
  return garbage;
}
