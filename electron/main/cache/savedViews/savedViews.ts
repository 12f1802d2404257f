/**
 * Saved views in the profile's cache (DESIGN.md "Views"; tables in docs/cache-schema.md): create,
 * rename, change, duplicate, delete, list and read them. Each function is one statement or one
 * transaction on the connection it is given (the database worker's, worker/methods.ts); the memberships
 * are read and published by the sync process (staging.ts, publish.ts).
 *
 * A view's service query and local settings are kept as JSON objects, opaque to the cache. A
 * changed service query, and a deleted view, let go of the membership read before (its data is
 * removed by the next refresh or sync, publish.ts `collectViewGarbage`).
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { LetterdeskError } from '../../../../shared/errors.ts';
import { RESOURCES, type Resource } from '../../../../shared/serviceRecords.ts';
import {
  MAX_VIEW_JSON_CHARS, viewIdSchema, viewNameSchema,
  type NewView, type SavedView, type ViewChanges, type ViewLocalSettings, type ViewMembership, type ViewServiceQuery,
} from '../../../../shared/views.ts';

type Row = Record<string, unknown>;

const SELECT_VIEWS = `SELECT v.id, v.resource, v.name, v.service_query, v.settings, v.refresh_after_sync, v.created_at, v.updated_at,
  v.error_code, v.error_message, v.error_at, m.request, m.read_at, m.server_count, m.in_mirror, m.newer
  FROM saved_views v LEFT JOIN view_memberships m ON m.view_id = v.id`;

function membershipOf(r: Row): ViewMembership | null {
  if (r.read_at === null || r.read_at === undefined) return null;
  const inMirror = Number(r.in_mirror ?? 0);
  const newer = Number(r.newer ?? 0);
  return { refreshedAt: String(r.read_at), request: String(r.request), serverCount: Number(r.server_count ?? 0), members: inMirror + newer, newerThanMirror: newer };
}

function toView(r: Row): SavedView {
  return {
    id: String(r.id),
    resource: r.resource as Resource,
    name: String(r.name),
    serviceQuery: r.service_query === null ? null : (JSON.parse(String(r.service_query)) as ViewServiceQuery),
    settings: JSON.parse(String(r.settings)) as ViewLocalSettings,
    refreshAfterSync: r.refresh_after_sync === 1,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    membership: r.service_query === null ? null : membershipOf(r),
    lastError: r.error_code ? { code: String(r.error_code), message: String(r.error_message ?? ''), at: String(r.error_at ?? '') } : null,
  };
}

function bad(message: string): never {
  throw new LetterdeskError('VALIDATION', message);
}

/** The key a name is unique by within a resource: its NFC form in lower case. */
export function viewNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

function checkedName(name: unknown): string {
  const parsed = viewNameSchema.safeParse(name);
  if (!parsed.success) bad(`The view name is not usable: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
  return parsed.data.normalize('NFC');
}

function checkedId(id: unknown): string {
  if (!viewIdSchema.safeParse(id).success) bad(`"${String(id).slice(0, 64)}" is not a view id.`);
  return id as string;
}

/** JSON text of a plain object (settings, a service query), within {@link MAX_VIEW_JSON_CHARS}. */
function objectJson(value: unknown, what: string): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(`The view's ${what} must be a JSON object.`);
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    bad(`The view's ${what} cannot be stored as JSON.`);
  }
  if (text.length > MAX_VIEW_JSON_CHARS) bad(`The view's ${what} is ${text.length} characters of JSON; at most ${MAX_VIEW_JSON_CHARS} are kept.`);
  return text;
}

function notFound(id: string): LetterdeskError {
  return new LetterdeskError('NOT_FOUND', `There is no saved view with id ${id} in this profile's cache (it may have been deleted). List the views again.`);
}

function nameTaken(resource: Resource, name: string): LetterdeskError {
  return new LetterdeskError('VALIDATION', `A ${resource} view named "${name}" exists already (names are compared without regard to case). Choose another name.`);
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Every saved view, or those of one resource, by resource and then name.
 * @returns each with its membership's counts, time and request, and its last refresh error
 */
export function listViews(db: Database.Database, resource?: Resource): SavedView[] {
  const rows = resource === undefined
    ? (db.prepare(`${SELECT_VIEWS} ORDER BY v.resource, v.name_key`).all() as Row[])
    : (db.prepare(`${SELECT_VIEWS} WHERE v.resource = ? ORDER BY v.name_key`).all(resource) as Row[]);
  return rows.map(toView);
}

/** One saved view, or null when there is none with that id. */
export function getView(db: Database.Database, id: string): SavedView | null {
  const row = db.prepare(`${SELECT_VIEWS} WHERE v.id = ?`).get(id) as Row | undefined;
  return row ? toView(row) : null;
}

/** The saved views named `name` (without regard to case), one per resource at most, contacts first. */
export function viewsNamed(db: Database.Database, name: string): SavedView[] {
  return (db.prepare(`${SELECT_VIEWS} WHERE v.name_key = ? ORDER BY v.resource`).all(viewNameKey(name.trim())) as Row[]).map(toView);
}

function mustGet(db: Database.Database, id: string): SavedView {
  const view = getView(db, id);
  if (!view) throw notFound(id);
  return view;
}

/**
 * Creates a view.
 * @returns the view, without a membership (a service query is read by a refresh)
 * @throws LetterdeskError VALIDATION for an unknown resource, an unusable or taken name, settings or
 *   a service query that are not JSON objects (or larger than {@link MAX_VIEW_JSON_CHARS})
 */
export function createView(db: Database.Database, input: NewView): SavedView {
  if (!RESOURCES.includes(input.resource)) bad(`A view shows contacts or orders, not "${String(input.resource).slice(0, 32)}".`);
  const name = checkedName(input.name);
  const query = input.serviceQuery === undefined || input.serviceQuery === null ? null : objectJson(input.serviceQuery, 'service query');
  const settings = objectJson(input.settings ?? {}, 'settings');
  const id = randomUUID();
  const now = new Date().toISOString();
  try {
    db.prepare(`INSERT INTO saved_views (id, resource, name, name_key, service_query, settings, refresh_after_sync, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(id, input.resource, name, viewNameKey(name), query, settings, input.refreshAfterSync === false ? 0 : 1, now, now);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.resource, name);
    throw error;
  }
  return mustGet(db, id);
}

/**
 * Renames a view (a change of case alone is a rename too).
 * @throws LetterdeskError NOT_FOUND, VALIDATION (unusable or taken name)
 */
export function renameView(db: Database.Database, id: string, name: string): SavedView {
  const view = mustGet(db, checkedId(id));
  const next = checkedName(name);
  try {
    db.prepare('UPDATE saved_views SET name = ?, name_key = ?, updated_at = ? WHERE id = ?').run(next, viewNameKey(next), new Date().toISOString(), id);
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(view.resource, next);
    throw error;
  }
  return mustGet(db, id);
}

/**
 * Changes a view's service query, settings or refresh-after-sync. A service query that differs
 * from the stored one (as JSON text) drops the membership and the last error: the view has no
 * members until it is read again.
 * @throws LetterdeskError NOT_FOUND, VALIDATION (not JSON objects, too large)
 */
export function updateView(db: Database.Database, id: string, changes: ViewChanges): SavedView {
  checkedId(id);
  const query = changes.serviceQuery === undefined ? undefined : changes.serviceQuery === null ? null : objectJson(changes.serviceQuery, 'service query');
  const settings = changes.settings === undefined ? undefined : objectJson(changes.settings, 'settings');
  db.transaction(() => {
    const row = db.prepare('SELECT service_query FROM saved_views WHERE id = ?').get(id) as { service_query: string | null } | undefined;
    if (!row) throw notFound(id);
    const now = new Date().toISOString();
    if (query !== undefined && query !== row.service_query) {
      db.prepare('UPDATE saved_views SET service_query = ?, error_code = NULL, error_message = NULL, error_at = NULL, updated_at = ? WHERE id = ?').run(query, now, id);
      forgetMembership(db, id);
    }
    if (settings !== undefined) db.prepare('UPDATE saved_views SET settings = ?, updated_at = ? WHERE id = ?').run(settings, now, id);
    if (changes.refreshAfterSync !== undefined) db.prepare('UPDATE saved_views SET refresh_after_sync = ?, updated_at = ? WHERE id = ?').run(changes.refreshAfterSync ? 1 : 0, now, id);
  }).immediate();
  return mustGet(db, id);
}

/** Lets go of a view's membership and of a refresh of it in progress (their data is collected later). */
function forgetMembership(db: Database.Database, id: string): void {
  db.prepare('DELETE FROM view_memberships WHERE view_id = ?').run(id);
  db.prepare('DELETE FROM view_refresh_state WHERE view_id = ?').run(id);
}

/** The name of a copy: "<name> (copy)", then "(copy 2)", "(copy 3)" … whichever is free. */
function copyName(db: Database.Database, resource: Resource, name: string): string {
  const taken = db.prepare('SELECT 1 FROM saved_views WHERE resource = ? AND name_key = ?').pluck();
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? ' (copy)' : ` (copy ${n})`;
    const candidate = `${name.slice(0, 100 - suffix.length)}${suffix}`;
    if (taken.get(resource, viewNameKey(candidate)) === undefined) return candidate;
  }
}

/**
 * Copies a view: its query, settings, refresh setting and membership (shared with the original
 * until either is read again), under `name` or "<name> (copy)".
 * @throws LetterdeskError NOT_FOUND, VALIDATION (unusable or taken name)
 */
export function duplicateView(db: Database.Database, id: string, name?: string): SavedView {
  checkedId(id);
  const copyId = randomUUID();
  db.transaction(() => {
    const source = db.prepare('SELECT * FROM saved_views WHERE id = ?').get(id) as Row | undefined;
    if (!source) throw notFound(id);
    const resource = source.resource as Resource;
    const next = name === undefined ? copyName(db, resource, String(source.name)) : checkedName(name);
    const now = new Date().toISOString();
    try {
      db.prepare(`INSERT INTO saved_views (id, resource, name, name_key, service_query, settings, refresh_after_sync, created_at, updated_at, error_code, error_message, error_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        copyId, resource, next, viewNameKey(next), source.service_query, source.settings, source.refresh_after_sync, now, now,
        source.error_code, source.error_message, source.error_at,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(resource, next);
      throw error;
    }
    db.prepare(`INSERT INTO view_memberships (view_id, member_key, request, read_at, server_count, in_mirror, newer)
      SELECT ?, member_key, request, read_at, server_count, in_mirror, newer FROM view_memberships WHERE view_id = ?`).run(copyId, id);
  }).immediate();
  return mustGet(db, copyId);
}

/**
 * Deletes a view and lets go of its membership.
 * @throws LetterdeskError NOT_FOUND
 */
export function deleteView(db: Database.Database, id: string): void {
  checkedId(id);
  db.transaction(() => {
    if (db.prepare('DELETE FROM saved_views WHERE id = ?').run(id).changes === 0) throw notFound(id);
    forgetMembership(db, id);
  }).immediate();
}

/**
 * The ids of a view's members that are newer than the mirror (shown from the records the refresh
 * stored, until a full sync brings them), in the service's order.
 * @throws LetterdeskError NOT_FOUND
 */
export function viewNewerIds(db: Database.Database, id: string): string[] {
  const view = db.prepare('SELECT resource FROM saved_views WHERE id = ?').get(id) as { resource: Resource } | undefined;
  if (!view) throw notFound(id);
  const table = view.resource === 'contacts' ? 'view_newer_contacts' : 'view_newer_orders';
  return db.prepare(`SELECT n.id FROM view_memberships m JOIN view_members vm ON vm.member_key = m.member_key
    JOIN ${table} n ON n.member_key = m.member_key AND n.id = vm.id WHERE m.view_id = ? ORDER BY vm.position`).pluck().all(id) as string[];
}

/** What a refresh of a view reads: its resource, name and service query as stored (JSON text). */
export interface RefreshTarget {
  resource: Resource;
  name: string;
  queryText: string | null;
}

/** The refresh target of view `id`, or null when there is no such view. */
export function refreshTarget(db: Database.Database, id: string): RefreshTarget | null {
  const row = db.prepare('SELECT resource, name, service_query FROM saved_views WHERE id = ?').get(id) as { resource: Resource; name: string; service_query: string | null } | undefined;
  return row ? { resource: row.resource, name: row.name, queryText: row.service_query } : null;
}
