/**
 * Which records a query may show (list.ts `ViewScope`): all of them, or the members of the saved
 * view its `view` names. Read in the caller's transaction, so the scope and the rows it selects
 * come from one snapshot.
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../shared/errors.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { stmt } from './rows.ts';
import { ALL_RECORDS, type ViewScope } from './list.ts';

interface ScopeRow {
  resource: Resource;
  has_query: number;
  member_key: number | null;
  in_mirror: number | null;
  newer: number | null;
}

/**
 * The scope of a query of `resource` limited to the saved view `viewId`.
 * @param viewId the query's `view`, or undefined (every record)
 * @returns every record for no view or a view without a service query; else the view's members
 *   (none before its membership was first read)
 * @throws LetterdeskError NOT_FOUND when there is no such view; VALIDATION when it shows the other resource
 */
export function viewScope(db: Database.Database, resource: Resource, viewId: string | undefined): ViewScope {
  if (viewId === undefined) return ALL_RECORDS;
  const row = stmt(db, `SELECT v.resource, v.service_query IS NOT NULL AS has_query, m.member_key, m.in_mirror, m.newer
    FROM saved_views v LEFT JOIN view_memberships m ON m.view_id = v.id WHERE v.id = ?`).get(viewId) as ScopeRow | undefined;
  if (!row) throw new LetterdeskError('NOT_FOUND', `There is no saved view with id ${String(viewId).slice(0, 64)} in this profile's cache (it may have been deleted). Choose another view.`);
  if (row.resource !== resource) throw new LetterdeskError('VALIDATION', `The saved view ${viewId} shows ${row.resource}, not ${resource}.`);
  if (row.has_query !== 1) return ALL_RECORDS;
  return { kind: 'members', viewId, key: row.member_key, inMirror: row.in_mirror ?? 0, newer: row.newer ?? 0 };
}
