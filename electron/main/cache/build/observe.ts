/**
 * What a sync observed change (docs/cache-schema.md "Observed history"): while the build compares
 * the new mirror with the published one (changes.ts), the fields that matter to a mailer are
 * compared too and the differences staged in the connection's `temp.observed_next`; the publish
 * then stores them in the history file (store/history.ts) with the span they happened in, inside
 * the transaction that publishes the mirror.
 *
 * Observed fields, by the record's own names: a contact's `address1`, `address2`, `city`, `state`,
 * `zip` and `ContactLabels`; an order's `status` and each recipient's `isDelivered`, `trackingCode`
 * and `status` (with the recipient's id); and `record` for a record added (`"absent"` → `"present"`)
 * or removed (the reverse). Values are JSON text.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CHANGE_TABLES } from './changes.ts';
import { OBSERVED_DELIVERED } from '../store/history.ts';

/** The observed fields of a contact and the mirror column each is read from. */
export const CONTACT_OBSERVED: readonly (readonly [field: string, column: string])[] = [
  ['address1', 'address1'], ['address2', 'address2'], ['city', 'city'], ['state', 'state'], ['zip', 'zip'], ['ContactLabels', 'label_list'],
];

/** The observed fields of an order's recipient and the recipients' column each is read from. */
export const RECIPIENT_OBSERVED: readonly (readonly [field: string, column: string])[] = [
  ['isDelivered', 'is_delivered'], ['trackingCode', 'tracking_code'], ['status', 'status'],
];

/** The JSON text of a mirror column's value: label lists are JSON already, flags are booleans. */
function jsonOf(column: string, alias: string): string {
  if (column === 'label_list') return `json(${alias}.${column})`;
  if (column === 'is_delivered') return `CASE ${alias}.${column} WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE 'null' END`;
  return `json_quote(${alias}.${column})`;
}

/**
 * Fills `temp.observed_next` (record_id, field, recipient_id, from_value, to_value) with the
 * differences of the observed fields between `<resource>` (published) and `<resource>_next`, for
 * the records the change table `<…>_changes_next` lists. Call it after changes.ts
 * `buildChangesNext`, in the connection that publishes.
 */
export function buildObservationsNext(db: Database.Database, resource: Resource): void {
  const changes = `${CHANGE_TABLES[resource].changes}_next`;
  db.exec('DROP TABLE IF EXISTS temp.observed_next');
  db.exec(`CREATE TEMP TABLE observed_next (record_id TEXT NOT NULL, field TEXT NOT NULL, recipient_id TEXT NOT NULL,
    from_value TEXT NOT NULL, to_value TEXT NOT NULL)`);
  db.exec(`INSERT INTO temp.observed_next SELECT id, 'record', '', CASE change WHEN 'added' THEN '"absent"' ELSE '"present"' END,
    CASE change WHEN 'added' THEN '"present"' ELSE '"absent"' END FROM ${changes} WHERE change IN ('added', 'removed')`);
  if (resource === 'contacts') {
    // One pass over the changed contacts, looked up by id in both copies (CROSS JOIN keeps the
    // changed ids the outer loop: without statistics the planner may scan a whole mirror instead).
    insertDifferences(db, `SELECT n.id, '' AS recipient_id, ${pairColumns(CONTACT_OBSERVED)}
      FROM ${changes} c CROSS JOIN contacts_next n ON n.id = c.id CROSS JOIN contacts p ON p.id = c.id
      WHERE c.change = 'changed' AND (${differs(CONTACT_OBSERVED)})`, CONTACT_OBSERVED);
    return;
  }
  db.exec(`INSERT INTO temp.observed_next SELECT n.id, 'status', '', json_quote(p.status), json_quote(n.status)
    FROM ${changes} c CROSS JOIN orders_next n ON n.id = c.id CROSS JOIN orders p ON p.id = c.id
    WHERE c.change = 'changed' AND p.status IS NOT n.status`);
  // The changed orders' recipients, looked up by the order's id in both copies (CROSS JOIN: in that order).
  insertDifferences(db, `SELECT n.order_id AS id, n.id AS recipient_id, ${pairColumns(RECIPIENT_OBSERVED)}
    FROM ${changes} c CROSS JOIN order_recipients_next n ON n.order_id = c.id CROSS JOIN order_recipients p ON p.order_id = n.order_id AND p.id = n.id
    WHERE c.change = 'changed' AND (${differs(RECIPIENT_OBSERVED)})`, RECIPIENT_OBSERVED);
}

/** The condition "an observed column differs" between the old row `p` and the new row `n`. */
const differs = (observed: typeof CONTACT_OBSERVED): string => observed.map(([, column]) => `p.${column} IS NOT n.${column}`).join(' OR ');

/** Each observed column's old and new JSON, as `p_<column>` and `n_<column>`. */
const pairColumns = (observed: typeof CONTACT_OBSERVED): string =>
  observed.map(([, column]) => `${jsonOf(column, 'p')} AS p_${column}, ${jsonOf(column, 'n')} AS n_${column}`).join(', ');

/** Stages one observation per differing column of the pairs `pairs` selects (id, recipient_id, {@link pairColumns}). */
function insertDifferences(db: Database.Database, pairs: string, observed: typeof CONTACT_OBSERVED): void {
  const fields = observed.map(([field, column]) => `SELECT id, '${field}', recipient_id, p_${column}, n_${column} FROM pairs WHERE p_${column} IS NOT n_${column}`);
  db.exec(`WITH pairs AS MATERIALIZED (${pairs}) INSERT INTO temp.observed_next ${fields.join(' UNION ALL ')}`);
}

/** When the changes a publish stores happened: between two reads of the service. */
export interface ObservationSpan {
  /** The run that read the new copy. */
  runId: string;
  /** The start of the previous successful read of the resource (ISO 8601 UTC): nothing changed before it. */
  after: string;
  /** The end of this read (ISO 8601 UTC): every change happened at or before it. */
  atOrBefore: string;
}

/** What a publish stored in the history. */
export interface ObservationsRecorded {
  /** Observations stored. */
  observations: number;
  /** Bytes the history file grew by (pages × page size; 0 when it reused free pages). */
  bytes: number;
}

/**
 * Stores what {@link buildObservationsNext} staged in the attached history (store/history.ts
 * `attachHistory`) as one run of `resource` with `span` (for orders with its count of recipients
 * observed delivered, `delivered_counts`), and empties the staging. Stores nothing
 * when nothing was staged (a first sync, or no observed field changed). Meant to run inside the
 * transaction that publishes the mirror.
 */
export function recordObservations(db: Database.Database, resource: Resource, span: ObservationSpan): ObservationsRecorded {
  const staged = db.prepare("SELECT count(*) FROM sqlite_temp_master WHERE name = 'observed_next'").pluck().get() as number;
  if (staged === 0) return { observations: 0, bytes: 0 };
  const n = db.prepare('SELECT count(*) FROM temp.observed_next').pluck().get() as number;
  if (n === 0) {
    db.exec('DROP TABLE temp.observed_next');
    return { observations: 0, bytes: 0 };
  }
  const pages = (): number => db.pragma('history.page_count', { simple: true }) as number;
  const before = pages();
  db.exec('INSERT OR IGNORE INTO history.observed_fields (field) SELECT DISTINCT field FROM temp.observed_next');
  const run = db.prepare('INSERT INTO history.observation_runs (resource, run_id, after, at_or_before) VALUES (?, ?, ?, ?)').run(resource, span.runId, span.after, span.atOrBefore).lastInsertRowid;
  db.prepare(`INSERT INTO history.observations (run, record_id, field, recipient_id, from_value, to_value)
    SELECT ?, o.record_id, f.code, o.recipient_id, o.from_value, o.to_value FROM temp.observed_next o JOIN history.observed_fields f ON f.field = o.field
    ORDER BY o.record_id, f.code, o.recipient_id`).run(run);
  if (resource === 'orders') db.prepare(`INSERT INTO history.delivered_counts (run, delivered) SELECT ?, count(*) FROM history.observations o WHERE o.run = ? AND ${OBSERVED_DELIVERED}`).run(run, run);
  const bytes = Math.max(0, pages() - before) * (db.pragma('history.page_size', { simple: true }) as number);
  db.prepare('UPDATE history.observation_runs SET observations = ?, bytes = ? WHERE run = ?').run(n, bytes, run);
  db.exec('DROP TABLE temp.observed_next');
  return { observations: n, bytes };
}

/** Drops what {@link buildObservationsNext} staged (a build that is not published). */
export function dropObservationsNext(db: Database.Database): void {
  db.exec('DROP TABLE IF EXISTS temp.observed_next');
}

/**
 * Deletes the runs of the history whose span ended before `before` (ISO 8601 UTC), with their
 * observations (whole runs, as ranges of the observations' key) and delivered counts.
 * @returns the observations deleted
 */
export function pruneHistory(db: Database.Database, before: string): number {
  const old = db.prepare('SELECT run FROM history.observation_runs WHERE at_or_before < ? ORDER BY run').pluck().all(before) as number[];
  if (old.length === 0) return 0;
  let deleted = 0;
  const del = db.prepare('DELETE FROM history.observations WHERE run = ?');
  const delRun = db.prepare('DELETE FROM history.observation_runs WHERE run = ?');
  const delCount = db.prepare('DELETE FROM history.delivered_counts WHERE run = ?');
  for (const run of old) {
    deleted += del.run(run).changes;
    delRun.run(run);
    delCount.run(run);
  }
  return deleted;
}
