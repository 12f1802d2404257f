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

/** Deepest nesting of a view's settings or service query. */
export const MAX_VIEW_JSON_DEPTH = 16;

/**
 * Why `value` is not a plain JSON object of at most {@link MAX_VIEW_JSON_DEPTH} levels and
 * {@link MAX_VIEW_JSON_CHARS} characters, or null when it is. Walks without recursion, so a hostile
 * depth cannot exhaust the stack.
 */
export function boundedJsonObjectProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object';
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'holds a number that is not finite';
      continue;
    }
    if (typeof v !== 'object') return `holds a ${typeof v}, which JSON cannot`;
    if (depth > MAX_VIEW_JSON_DEPTH) return `is nested deeper than ${MAX_VIEW_JSON_DEPTH} levels`;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return 'holds an object that is not plain JSON';
    for (const child of Object.values(v)) stack.push({ value: child, depth: depth + 1 });
  }
  return JSON.stringify(value).length <= MAX_VIEW_JSON_CHARS ? null : `is longer than ${MAX_VIEW_JSON_CHARS} characters of JSON`;
}

/** A plain JSON object, bounded in depth and size (a view's settings, a service query's parameters). */
export const boundedJsonObjectSchema = z.custom<{ [key: string]: JsonValue }>((value) => boundedJsonObjectProblem(value) === null, {
  error: (issue) => boundedJsonObjectProblem(issue.input) ?? 'is not a JSON object',
});

/** A view's local settings. */
export const viewSettingsSchema = boundedJsonObjectSchema as z.ZodType<ViewLocalSettings>;

/**
 * The local filters and sort a view's settings hold under `query` (search, filter-pane selections,
 * sort; the page keeps its column layout beside it), as a query of `resource`'s table. Settings
 * that are not such a query (written by another version) give no filter.
 * @param parse the resource's query schema (shared/query.ts `contactQuerySchema` / `orderQuerySchema`)
 */
export function viewLocalQuery<Q>(settings: ViewLocalSettings, parse: { safeParse(value: unknown): { success: true; data: Q } | { success: false } }): Q | Record<string, never> {
  const parsed = parse.safeParse(settings.query ?? {});
  if (!parsed.success) return {};
  const query = parsed.data as Q & { view?: string };
  delete query.view;
  return query;
}
