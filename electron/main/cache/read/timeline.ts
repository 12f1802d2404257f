/**
 * Reading the observed history (store/history.ts; docs/cache-schema.md "Observed history"): the
 * changes syncs observed in one record, and the orders whose recipients were observed delivered
 * since a time. The history file is attached read-only on first use; until a sync has written one
 * there is nothing to read, and every answer is empty.
 */
import type Database from 'better-sqlite3';
import type { Observation } from '../../../../shared/contract.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import type { JsonValue } from '../../../../shared/views.ts';
import { attachHistory, hasHistory } from '../store/history.ts';
import { stmt } from './rows.ts';

/**
 * Attaches the history to the reading connection `db` when a sync has written one and `db` is not
 * inside a transaction (SQLite cannot attach there).
 * @returns whether it is attached
 */
export function historyReadable(db: Database.Database): boolean {
  if (hasHistory(db)) return true;
  return !db.inTransaction && attachHistory(db, true);
}

interface ObservationRow {
  field: string;
  recipient_id: string;
  from_value: string;
  to_value: string;
  after: string;
  at_or_before: string;
}

/**
 * The changes observed in record `id` of `resource`, oldest first (by sync, then field and
 * recipient), as {@link Observation}s. Empty when the history holds none or is not attached.
 */
export function timelineOf(db: Database.Database, resource: Resource, id: string): Observation[] {
  if (!historyReadable(db)) return [];
  const rows = stmt(db, `SELECT f.field, o.recipient_id, o.from_value, o.to_value, r.after, r.at_or_before
    FROM history.observations o JOIN history.observation_runs r ON r.run = o.run JOIN history.observed_fields f ON f.code = o.field
    WHERE o.record_id = ? AND r.resource = ? ORDER BY o.run, f.field, o.recipient_id`).all(id, resource) as ObservationRow[];
  return rows.map((r) => ({
    field: r.field,
    from: JSON.parse(r.from_value) as JsonValue,
    to: JSON.parse(r.to_value) as JsonValue,
    ...(r.recipient_id === '' ? {} : { recipientId: r.recipient_id }),
    after: r.after,
    atOrBefore: r.at_or_before,
  }));
}

/** {@link timelineOf} as a database worker method (worker/methods.ts). */
export function recordTimeline(db: Database.Database, resource: Resource, id: string): Observation[] {
  return timelineOf(db, resource, id);
}

/**
 * The SQL of the ids of the orders with a recipient observed delivered (`isDelivered` false → true)
 * in a sync whose read ended at or after the bound parameter `:deliveredSince` (ISO 8601 UTC).
 * Needs the history attached ({@link historyReadable}).
 */
export const DELIVERED_SINCE_IDS = `SELECT o.record_id FROM history.observation_runs r JOIN history.observations o ON o.run = r.run
  WHERE r.resource = 'orders' AND r.at_or_before >= :deliveredSince AND o.to_value = 'true'
    AND o.field = (SELECT code FROM history.observed_fields WHERE field = 'isDelivered')`;

/**
 * The SQL of the ids of the orders with a recipient observed delivered (`isDelivered` to true) in
 * a sync whose read ended at or after `:deliveredFrom` and before `:deliveredTo` (ISO 8601 UTC).
 * Needs the history attached ({@link historyReadable}).
 */
export const DELIVERED_BETWEEN_IDS = `SELECT o.record_id FROM history.observation_runs r JOIN history.observations o ON o.run = r.run
  WHERE r.resource = 'orders' AND r.at_or_before >= :deliveredFrom AND r.at_or_before < :deliveredTo AND o.to_value = 'true'
    AND o.field = (SELECT code FROM history.observed_fields WHERE field = 'isDelivered')`;
