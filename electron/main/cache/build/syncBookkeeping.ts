/**
 * The sync's bookkeeping in the cache (docs/cache-schema.md): each run of a resource (`sync_runs`),
 * the staging an unfinished run leaves to continue (`sync_state`, `sync_pages`), what the staging
 * holds, and the published state of each resource (`resource_state`). The sync engine asks and
 * records through this class only; the SQL stays here.
 */
import type Database from 'better-sqlite3';
import type { DataSource, RecordChangeCounts, SyncRun } from '../../../../shared/contract.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { toSyncRun } from '../store/syncRuns.ts';

/** The staging an unfinished sync of a resource left behind (a row of `sync_state`). */
export interface StagingState {
  /** The run that wrote it. */
  runId: string;
  /** Rows per request it was written with. */
  pageSize: number;
  /** `count` the service reported when it was started. */
  serverCount: number;
  /** The read (1 = first, 2+ = drift repair) its pages belong to. */
  pass: number;
  /** The `meta.account_id` scope it was read with, or null. */
  accountId: string | null;
}

/** How a run of a resource ended without publishing. */
export interface RunFailure {
  outcome: 'failed' | 'cancelled';
  /** ISO time. */
  endedAt: string;
  /** Rows written so far. */
  rows: number;
  invalidRecords: number;
  code: string;
  message: string;
}

interface SyncStateRow {
  run_id: string;
  page_size: number;
  server_count: number;
  pass: number;
  account_id: string | null;
}

const STAGE: Record<Resource, string> = { contacts: 'stage_contacts', orders: 'stage_orders' };

/**
 * Reads and writes the sync's bookkeeping over one writable connection; statements are prepared
 * once per connection and reused. Methods are synchronous and throw what better-sqlite3 throws
 * (`SQLITE_FULL` on a full disk, for instance).
 */
export class SyncBookkeeping {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Records that a run of `resource` has started (`outcome` 'running'), replacing an earlier record of the same run. */
  beginRun(runId: string, resource: Resource, startedAt: string): void {
    this.#statement("INSERT OR REPLACE INTO sync_runs (run_id, resource, started_at, outcome) VALUES (?, ?, ?, 'running')").run(runId, resource, startedAt);
  }

  /**
   * When the last run of `resource` that published started (ISO time), other than `runId`; null
   * when none did. The changes a new read observes happened after it.
   */
  lastPublishedStart(resource: Resource, runId: string): string | null {
    return (this.#statement("SELECT started_at FROM sync_runs WHERE resource = ? AND outcome = 'succeeded' AND run_id <> ? ORDER BY ended_at DESC LIMIT 1").pluck().get(resource, runId) as string | undefined) ?? null;
  }

  /** Whether `resource` has been published before (`resource_state.last_synced_at` is set). */
  wasPublished(resource: Resource): boolean {
    return (this.#statement('SELECT last_synced_at FROM resource_state WHERE resource = ?').get(resource) as { last_synced_at: string | null } | undefined)?.last_synced_at != null;
  }

  /** The staging an unfinished sync of `resource` left, or undefined when there is none. */
  stagingState(resource: Resource): StagingState | undefined {
    const row = this.#statement('SELECT run_id, page_size, server_count, pass, account_id FROM sync_state WHERE resource = ?').get(resource) as SyncStateRow | undefined;
    return row && { runId: row.run_id, pageSize: row.page_size, serverCount: row.server_count, pass: row.pass, accountId: row.account_id };
  }

  /** Records what the staging of `resource` is being written with, so the same run can continue it. */
  saveStagingState(resource: Resource, state: StagingState, updatedAt: string): void {
    this.#statement('INSERT OR REPLACE INTO sync_state (resource, run_id, page_size, server_count, pass, account_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      resource, state.runId, state.pageSize, state.serverCount, state.pass, state.accountId, updatedAt,
    );
  }

  /**
   * The pages of `pass` already in staging (written by an earlier process of the same run).
   * @param fromPage the rows of pages below this one are not counted in `rows`
   * @returns the page numbers, and the rows of those from `fromPage` on
   */
  pagesWritten(resource: Resource, pass: number, fromPage: number): { pages: Set<number>; rows: number } {
    const pages = new Set(this.#statement('SELECT page FROM sync_pages WHERE resource = ? AND pass = ?').pluck().all(resource, pass) as number[]);
    const rows = this.#statement('SELECT coalesce(sum(rows), 0) FROM sync_pages WHERE resource = ? AND pass = ? AND page >= ?').pluck().get(resource, pass, fromPage) as number;
    return { pages, rows };
  }

  /** Staged records of `pass` kept as invalid (with a reason). */
  invalidStaged(resource: Resource, pass: number): number {
    return this.#statement(`SELECT count(*) FROM ${STAGE[resource]} WHERE pass = ? AND invalid_reason IS NOT NULL`).pluck().get(pass) as number;
  }

  /**
   * Distinct ids staged in `pass`. Staging holds rows of this pass and earlier ones only, so in
   * pass 1 every row is of it and SQLite counts them from the id index instead of reading each row.
   */
  idsStaged(resource: Resource, pass: number): number {
    return pass === 1 ? (this.#statement(`SELECT count(*) FROM ${STAGE[resource]}`).pluck().get() as number) : this.#rowsOfPass(resource, pass);
  }

  /** Staged rows whose last sighting was in `pass` (not seen again by a later pass). */
  rowsLastSeenIn(resource: Resource, pass: number): number {
    return this.#rowsOfPass(resource, pass);
  }

  #rowsOfPass(resource: Resource, pass: number): number {
    return this.#statement(`SELECT count(*) FROM ${STAGE[resource]} WHERE pass = ?`).pluck().get(pass) as number;
  }

  /** Drops the staged rows not seen in `pass` (deleted on the server or moved away while paging). */
  keepOnlyPass(resource: Resource, pass: number): void {
    this.#statement(`DELETE FROM ${STAGE[resource]} WHERE pass < ?`).run(pass);
  }

  /**
   * Records a published run: its outcome and counts, the resource's published state, and no
   * staging left to continue. Meant to run inside the transaction that publishes the snapshot.
   * @param changes what it added, changed and removed; null when nothing was compared (a first sync)
   * @param source the address and account the pages came from; null keeps the one recorded before
   */
  recordPublished(
    runId: string, resource: Resource, endedAt: string, rows: number, invalidRecords: number,
    changes: RecordChangeCounts | null = null, source: DataSource | null = null,
  ): void {
    this.#statement("UPDATE sync_runs SET ended_at = ?, outcome = 'succeeded', rows = ?, invalid_records = ?, added = ?, changed = ?, removed = ? WHERE run_id = ? AND resource = ?").run(
      endedAt, rows, invalidRecords, changes?.added ?? null, changes?.changed ?? null, changes?.removed ?? null, runId, resource,
    );
    this.#statement('UPDATE resource_state SET rows = ?, last_synced_at = ?, last_error_code = NULL, last_error_message = NULL WHERE resource = ?').run(rows, endedAt, resource);
    if (source) {
      this.#statement('UPDATE resource_state SET source_origin = ?, source_account_id = ? WHERE resource = ?').run(source.origin, source.accountId, resource);
    }
    this.#statement('DELETE FROM sync_state WHERE resource = ?').run(resource);
    this.#statement('DELETE FROM sync_pages WHERE resource = ?').run(resource);
  }

  /** Records a run that ended without publishing; a failure (not a cancel) is also the resource's last error. */
  recordFailure(runId: string, resource: Resource, failure: RunFailure): void {
    this.#statement('UPDATE sync_runs SET ended_at = ?, outcome = ?, rows = ?, invalid_records = ?, error_code = ?, error_message = ? WHERE run_id = ? AND resource = ?').run(
      failure.endedAt, failure.outcome, failure.rows, failure.invalidRecords, failure.code, failure.message, runId, resource,
    );
    if (failure.outcome === 'failed') {
      this.#statement('UPDATE resource_state SET last_error_code = ?, last_error_message = ? WHERE resource = ?').run(failure.code, failure.message, resource);
    }
  }

  /** The recorded run of `resource` in `runId`. @throws TypeError when there is none (beginRun was not called) */
  run(runId: string, resource: Resource): SyncRun {
    return toSyncRun(this.#statement('SELECT * FROM sync_runs WHERE run_id = ? AND resource = ?').get(runId, resource) as Record<string, unknown>);
  }
}
