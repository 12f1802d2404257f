/**
 * Saved views (DESIGN.md "Views"): a resource, a name, local settings and an optional service
 * query whose membership — the ids the service returns for it, read with every page — is kept in
 * the profile's cache. The types the cache answers with and the IPC contract and the CLI pass on,
 * and the schemas of what a person may type for them.
 *
 * Pure module: zod and other shared/ files only.
 */
import { z } from 'zod';
import type { Resource } from './serviceRecords.ts';

/** A JSON value (what the cache stores as JSON text and gives back unchanged). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A view's local settings: search text, filter-pane selections, sort, visible columns with their
 * order and widths. The cache keeps them as an opaque JSON object; the page gives them their shape.
 */
export type ViewLocalSettings = { [key: string]: JsonValue };

/**
 * A view's service query: §4.1 (contacts) or §4.2 (orders) parameters by the spec's own names,
 * without `page` and `pageSize`, as the API client takes them. Kept as JSON by the cache and sent
 * with every page of a membership refresh.
 */
export type ViewServiceQuery = { [name: string]: JsonValue };

/** What went wrong with the last refresh of a membership (the previous membership is kept). */
export interface ViewError {
  code: string;
  message: string;
  /** ISO 8601 UTC. */
  at: string;
}

/** The membership a view's service query last read, as the cache holds it. */
export interface ViewMembership {
  /** When the service was read (the time the read started), ISO 8601 UTC. */
  refreshedAt: string;
  /** The request that produced it: path and query string of its first page, relative to the base URL; never a token. */
  request: string;
  /** `count` the service reported for the query. */
  serverCount: number;
  /** Members the view shows: those the mirror holds plus those newer than the mirror. */
  members: number;
  /** Members the last full sync did not bring (their records as the service returned them are kept and shown). */
  newerThanMirror: number;
}

/** A saved view as the cache lists it. */
export interface SavedView {
  /** Opaque id (letters, digits, `-`). */
  id: string;
  resource: Resource;
  /** Unique per resource, compared without regard to case. */
  name: string;
  /** null: a saved local view (no membership; it opens every record with its settings applied). */
  serviceQuery: ViewServiceQuery | null;
  settings: ViewLocalSettings;
  /** Read the membership again after every sync. */
  refreshAfterSync: boolean;
  /** ISO 8601 UTC. */
  createdAt: string;
  updatedAt: string;
  /** null when the view has no service query or its membership was never read. */
  membership: ViewMembership | null;
  /** The last refresh's failure, null after a success (or before any refresh). */
  lastError: ViewError | null;
}

/** A new view. */
export interface NewView {
  resource: Resource;
  name: string;
  serviceQuery?: ViewServiceQuery | null;
  settings?: ViewLocalSettings;
  /** @default true */
  refreshAfterSync?: boolean;
}

/**
 * Changes to a view (absent fields stay). A changed service query drops the membership read for
 * the previous one: the view has no members until it is read again.
 */
export interface ViewChanges {
  serviceQuery?: ViewServiceQuery | null;
  settings?: ViewLocalSettings;
  refreshAfterSync?: boolean;
}

/** How one membership refresh ended (the sync process reports one per view it was asked to refresh). */
export interface ViewRefresh {
  viewId: string;
  /** The sync run the refresh belonged to. */
  runId: string;
  outcome: 'succeeded' | 'failed' | 'cancelled';
  /** The membership the view shows now (the new one, or the previous one kept), or null when it has none. */
  membership: ViewMembership | null;
  /** Why it failed or was cancelled (also recorded as the view's last error when it failed). */
  error: { code: string; message: string } | null;
}

/** Longest view name. */
export const MAX_VIEW_NAME = 100;
/** Largest JSON text of a view's settings or service query. */
export const MAX_VIEW_JSON_CHARS = 65_536;

/** A view id as the cache makes them (a UUID); anything of this shape is accepted as input. */
export const viewIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9-]+$/, 'a view id is letters, digits and -');

/** A view name: 1–100 characters after trimming, no control characters. */
export const viewNameSchema = z
  .string()
  .trim()
  .min(1, 'a view needs a name')
  .max(MAX_VIEW_NAME, `a view name is at most ${MAX_VIEW_NAME} characters`)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'a view name cannot hold control characters');
