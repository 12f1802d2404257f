/**
 * The `records` job: the cached JSON of each record of a view (exactly as the service sent it), in
 * view order, up to a limit. The records stream as chunks of about {@link RECORDS_CHUNK_CHARS}
 * characters of JSON through the job's progress, read on a snapshot connection (store/snapshot.ts), so a
 * view of millions of records never sits in memory at once.
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../shared/errors.ts';
import type { ContactQuery, OrderQuery } from '../../../../shared/query.ts';
import { chained, orderedParts, splitParams } from './emptyOrder.ts';
import { openSnapshot } from '../store/snapshot.ts';
import { viewScope } from './listScope.ts';
import { ALL_RECORDS, contactViewSql, orderViewSql, type EmptySplit, type ViewScope } from './list.ts';
import { deliveredCount, firstSeenAt, mailingValue, timesMailed } from './mailing.ts';
import { statusCaseSql } from './exportColumns.ts';

/** Arguments of the `records` job. */
export interface RecordsArgs {
  kind: 'contacts' | 'orders';
  /** The view (search, filters, sort) whose records are read, in its order. */
  query: ContactQuery | OrderQuery;
  /** Most records to read (a whole number ≥ 0). */
  limit: number;
  /**
   * Add what Letterdesk derives under one key, `letterdesk`, of each record that is a JSON object:
   * contacts `{ timesMailed, deliveredCount, lastOrderSeenAt }` (read/mailing.ts), orders
   * `{ statusName, firstSeenAt }` with `statusNames` (code → name; null for a code without one).
   * Absent: the records exactly as the service sent them.
   */
  derived?: { statusNames: Record<string, string> };
}

/** The SQL of a record's JSON with its {@link RecordsArgs} `derived` key, binding the status names into `params`. */
function derivedRaw(kind: RecordsArgs['kind'], statusNames: Record<string, string>, params: Record<string, unknown>): string {
  if (kind === 'contacts') {
    return `json_set(c.raw, '$.letterdesk', json_object('timesMailed', ${timesMailed('c')}, 'deliveredCount', ${deliveredCount('c')}, 'lastOrderSeenAt', ${mailingValue('c', 'last_order_seen_at')}))`;
  }
  return `json_set(o.raw, '$.letterdesk', json_object('statusName', ${statusCaseSql('o.status', statusNames, params, 'NULL')}, 'firstSeenAt', ${firstSeenAt('o')}))`;
}

/** What the job uses of the context the worker runs it with (worker/protocol.ts `JobContext`). */
export interface RecordsContext {
  /** Aborted when the client cancels the job or closes the cache. */
  readonly signal: AbortSignal;
  /** Sends one chunk of records to the client. */
  onProgress(chunk: string[]): void;
  /** Resolves once the client has handled all but `pending` of the chunks sent (or the job is aborted). */
  drained(pending: number): Promise<void>;
}

/** Characters of JSON after which a chunk is sent (about 1 MiB of mostly ASCII text). */
export const RECORDS_CHUNK_CHARS = 1 << 20;
/** Chunks sent and not yet handled by the client before the job waits for it. */
const CHUNKS_IN_FLIGHT = 4;
/** Longest stretch of reading before the job lets the worker's event loop run (cancel, other calls). */
const YIELD_EVERY_MS = 40;

/**
 * The SQL of a view's records: `SELECT <alias>.raw … ORDER BY <view order> LIMIT :limit`, with its
 * parameters, and the same records as statements to read in turn (emptyOrder.ts `orderedParts`:
 * `sql` alone, or one per part of a view with a `split`, each with `LIMIT :__limit` too; bind
 * `splitParams(db, split)` besides `params`).
 * @param scope the records of the query's saved view (listScope.ts); default every record
 */
export function recordsSql(
  kind: RecordsArgs['kind'], query: ContactQuery | OrderQuery, limit: number, scope: ViewScope = ALL_RECORDS, derived?: RecordsArgs['derived'],
): { sql: string; parts: string[]; split?: EmptySplit; params: Record<string, unknown> } {
  const view = kind === 'contacts' ? contactViewSql(query as ContactQuery, undefined, scope) : orderViewSql(query as OrderQuery, undefined, scope);
  const alias = kind === 'contacts' ? 'c' : 'o';
  const params: Record<string, unknown> = { ...view.params, __limit: limit };
  const raw = derived ? derivedRaw(kind, derived.statusNames, params) : `${alias}.raw`;
  return {
    sql: `SELECT ${raw} FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT :__limit`,
    parts: orderedParts(view).map((p) => `SELECT ${raw} FROM ${view.from} WHERE ${p.where} ORDER BY ${p.orderBy} LIMIT :__limit`),
    ...(view.split ? { split: view.split } : {}),
    params,
  };
}

function cancelled(): LetterdeskError {
  return new LetterdeskError('CANCELLED', 'Reading the records was cancelled.');
}

/**
 * Reads the raw JSON of the records of a view, in view order, at most `limit` of them, and sends
 * them as chunks (arrays of JSON texts) through `onProgress`, waiting while the client has several
 * chunks still to handle.
 * @param db an open cache connection (the records are read on a second, read-only one)
 * @returns the number of records sent
 * @throws LetterdeskError VALIDATION for an unknown kind or a limit that is not a whole number ≥ 0;
 *   NOT_FOUND for a saved view that does not exist; CANCELLED when the signal is aborted (chunks sent before stay sent)
 */
export async function readRecords(db: Database.Database, args: RecordsArgs, context: RecordsContext): Promise<{ rows: number }> {
  const { kind, query, limit, derived } = args;
  if (kind !== 'contacts' && kind !== 'orders') throw new LetterdeskError('VALIDATION', `Records are contacts or orders, not "${String(kind).slice(0, 32)}".`);
  if (!Number.isSafeInteger(limit) || limit < 0) throw new LetterdeskError('VALIDATION', `The limit of records must be a whole number of 0 or more, not ${String(limit).slice(0, 32)}.`);
  const { signal } = context;
  if (signal.aborted) throw cancelled();
  const snapshot = openSnapshot(db);
  let raws: IterableIterator<string>;
  try {
    const sql = recordsSql(kind, query ?? {}, limit, viewScope(snapshot.db, kind, query?.view), derived);
    const params = { ...sql.params, ...splitParams(snapshot.db, sql.split) };
    // Each part reads at most the limit; the loop below stops at it.
    raws = chained(sql.parts.map((part) => () => snapshot.db.prepare(part).pluck().iterate(params) as IterableIterator<string>));
  } catch (error) {
    snapshot.end();
    throw error;
  }
  try {
    let rows = 0;
    let chunk: string[] = [];
    let chars = 0;
    let lastYield = performance.now();
    for (const raw of raws) {
      if (rows === limit) break;
      chunk.push(raw);
      chars += raw.length;
      rows++;
      if (chars < RECORDS_CHUNK_CHARS) continue;
      context.onProgress(chunk);
      chunk = [];
      chars = 0;
      if (performance.now() - lastYield >= YIELD_EVERY_MS) {
        // Let cancel and acknowledgements in; the statement keeps its place.
        await new Promise<void>((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      await context.drained(CHUNKS_IN_FLIGHT - 1);
      if (signal.aborted) throw cancelled();
    }
    if (signal.aborted) throw cancelled();
    if (chunk.length > 0) context.onProgress(chunk);
    return { rows };
  } finally {
    raws.return?.();
    snapshot.end();
  }
}
