/**
 * Limits of the table queries, without any schema library, so the page (which must not load zod
 * under its strict CSP) can read them; query.ts re-exports them and its schemas enforce them.
 *
 * Pure module: no imports.
 */

/** Most sort keys after the first (`thenBy`): three keys in all. */
export const MAX_THEN_BY = 2;

/**
 * Most record ids a query's `ids` may name: a partial selection of the table (exports, copies).
 * A selection of every matching row is sent as the query itself, never as a list of ids.
 */
export const MAX_QUERY_IDS = 100_000;

/** The "mailed at least N times" options of the contacts' times-mailed filter (its facet counts each). */
export const MAILED_AT_LEAST = [1, 2, 3, 5] as const;
