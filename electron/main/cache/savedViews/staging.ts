/**
 * The staging of a saved view's membership while its service query is read (the sync's read steps
 * write it through the {@link ReadStaging} interface, exactly as they write the mirror's staging):
 * one row per id the service returned, with the position it was returned at and, for an id the
 * mirror does not hold, the record as returned (`view_stage`); the pages written
 * (`view_stage_pages`); and the refresh's state (`view_refresh_state`: its run, its member key,
 * the query and scope it reads). publish.ts makes it the view's membership.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { noIdPlaceholder, usableId, type StagedPage, type StagedRecord } from '../build/ingest.ts';
import type { ReadStaging, StagingState } from '../build/staging.ts';

/** The view a membership staging belongs to, and what its query is read with. */
export interface MembershipTarget {
  viewId: string;
  resource: Resource;
  /** The view's service query as stored (JSON text): a staging of another query is never continued. */
  queryText: string;
  /** The profile's `meta.account_id` scope, or null. */
  accountId: string | null;
}

/** A position per record: the page's number times this, plus the record's index in the page. */
const PAGE_SPAN = 1_000_000;

/** What a refresh being read has recorded. */
export interface RefreshState extends StagingState {
  /** The member key its membership is written under. */
  memberKey: number;
  queryText: string;
  /** When the read began (the membership's time once published), ISO 8601 UTC. */
  startedAt: string;
}

interface RefreshStateRow {
  run_id: string;
  member_key: number;
  query: string;
  account_id: string | null;
  page_size: number;
  server_count: number;
  pass: number;
  started_at: string;
}

/** The refresh state of `viewId`, whatever query it was read with, or undefined. */
export function refreshState(db: Database.Database, viewId: string): RefreshState | undefined {
  const row = db.prepare('SELECT run_id, member_key, query, account_id, page_size, server_count, pass, started_at FROM view_refresh_state WHERE view_id = ?').get(viewId) as RefreshStateRow | undefined;
  return row && {
    runId: row.run_id, memberKey: row.member_key, queryText: row.query, accountId: row.account_id,
    pageSize: row.page_size, serverCount: row.server_count, pass: row.pass, startedAt: row.started_at,
  };
}

/** Takes the next member key (never handed out before). */
export function allocateMemberKey(db: Database.Database): number {
  return db.prepare('UPDATE view_sequence SET next_key = next_key + 1 RETURNING next_key - 1 AS key').pluck().get() as number;
}

/** The staging of one view's membership (see the module comment). */
export class MembershipStaging implements ReadStaging {
  readonly #db: Database.Database;
  readonly #target: MembershipTarget;
  readonly #inMirror: Database.Statement;
  readonly #insert: Database.Statement;
  readonly #insertPage: Database.Statement;

  constructor(db: Database.Database, target: MembershipTarget) {
    this.#db = db;
    this.#target = target;
    this.#inMirror = db.prepare(`SELECT 1 FROM ${target.resource === 'contacts' ? 'contacts' : 'orders'} WHERE id = ?`).pluck();
    this.#insert = db.prepare('INSERT OR REPLACE INTO view_stage (view_id, id, pass, position, raw, invalid_reason) VALUES (?, ?, ?, ?, ?, ?)');
    this.#insertPage = db.prepare('INSERT OR REPLACE INTO view_stage_pages (view_id, pass, page, rows, server_count) VALUES (?, ?, ?, ?, ?)');
  }

  /** The state of a refresh of this view's current query, or undefined (another query's state is not continued). */
  state(): StagingState | undefined {
    const state = refreshState(this.#db, this.#target.viewId);
    return state && state.queryText === this.#target.queryText ? state : undefined;
  }

  /** Records the state; the same run keeps its member key and start time, another run takes a new key. */
  saveState(state: StagingState): void {
    const { viewId, queryText } = this.#target;
    const now = new Date().toISOString();
    this.#db.transaction(() => {
      const before = refreshState(this.#db, viewId);
      const same = before !== undefined && before.runId === state.runId && before.queryText === queryText;
      const key = same ? before.memberKey : allocateMemberKey(this.#db);
      this.#db.prepare(`INSERT OR REPLACE INTO view_refresh_state (view_id, run_id, member_key, query, account_id, page_size, server_count, pass, started_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(viewId, state.runId, key, queryText, state.accountId, state.pageSize, state.serverCount, state.pass, same ? before.startedAt : now, now);
    }).immediate();
  }

  clear(): void {
    clearMembershipStage(this.#db, this.#target.viewId);
  }

  async writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): Promise<StagedPage> {
    const { viewId } = this.#target;
    const ids: string[] = [];
    let invalid = 0;
    this.#db.transaction(() => {
      for (const [index, rec] of records.entries()) {
        const raw = rec.ok ? rec.record : rec.raw;
        if (!rec.ok) invalid += 1;
        const own = usableId(typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined);
        // A record without a usable id is kept under the mirror's placeholder, as the sync keeps it.
        const id = own ?? (rec.ok ? null : rec.id) ?? noIdPlaceholder(raw, page, index) ?? `no-id-p${page}-r${index}`;
        ids.push(id);
        let text: string | null = null;
        let reason = rec.ok ? null : rec.reason;
        if (this.#inMirror.get(id) === undefined) {
          try {
            text = JSON.stringify(raw);
          } catch {
            text = JSON.stringify({ id });
            reason = `${reason ? `${reason}; ` : ''}the record is nested too deeply to store`;
            if (rec.ok) invalid += 1;
          }
        }
        this.#insert.run(viewId, id, pass, page * PAGE_SPAN + index, text, reason);
      }
      this.#insertPage.run(viewId, pass, page, records.length, serverCount);
    })();
    return { rows: records.length, invalid, ids };
  }

  pagesWritten(pass: number, fromPage: number): { pages: Set<number>; rows: number } {
    const { viewId } = this.#target;
    const pages = new Set(this.#db.prepare('SELECT page FROM view_stage_pages WHERE view_id = ? AND pass = ?').pluck().all(viewId, pass) as number[]);
    const rows = this.#db.prepare('SELECT coalesce(sum(rows), 0) FROM view_stage_pages WHERE view_id = ? AND pass = ? AND page >= ?').pluck().get(viewId, pass, fromPage) as number;
    return { pages, rows };
  }

  invalidStaged(pass: number): number {
    return this.#db.prepare('SELECT count(*) FROM view_stage WHERE view_id = ? AND pass = ? AND invalid_reason IS NOT NULL').pluck().get(this.#target.viewId, pass) as number;
  }

  idsStaged(pass: number): number {
    return this.rowsLastSeenIn(pass);
  }

  rowsLastSeenIn(pass: number): number {
    return this.#db.prepare('SELECT count(*) FROM view_stage WHERE view_id = ? AND pass = ?').pluck().get(this.#target.viewId, pass) as number;
  }

  keepOnlyPass(pass: number): void {
    this.#db.prepare('DELETE FROM view_stage WHERE view_id = ? AND pass < ?').run(this.#target.viewId, pass);
  }
}

/** Empties the staging of a view's membership and its refresh state. */
export function clearMembershipStage(db: Database.Database, viewId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM view_stage WHERE view_id = ?').run(viewId);
    db.prepare('DELETE FROM view_stage_pages WHERE view_id = ?').run(viewId);
    db.prepare('DELETE FROM view_refresh_state WHERE view_id = ?').run(viewId);
  })();
}
