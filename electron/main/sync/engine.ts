/**
 * The sync engine (issue 4 "Sync", DESIGN.md "Sync"): a full, paged mirror of each resource into
 * staging, verified, then published in one transaction. Plain async code over one better-sqlite3
 * connection and a {@link PageSource}; the sync process (worker.ts) is a thin shell around
 * {@link runSync}, and tests, the CLI and the benchmark can call it directly.
 *
 * Per resource:
 *  1. page 0 gives `count` (and the page size the server really uses, if it caps ours; a service
 *     that numbers its pages from 1 is found out at step 3 and read again from 1);
 *  2. the other pages are fetched with bounded concurrency; each page is written into staging in its
 *     own transaction and recorded in `sync_pages`. The same run, continued after its process
 *     ended (controller.ts: out of memory, killed), skips the pages already written; a later run
 *     starts over, because nothing in the API tells whether pages read before have changed since
 *     (service-api.md: no change token, ordering not shown), and a change that keeps the count
 *     — one contact deleted, another added — would leave a stale row and miss a new one;
 *  3. verify: every page reported the same `count` and the distinct ids seen in this pass equal it;
 *     otherwise (drift: rows shifted or changed while paging) read every page again (a new pass)
 *     and keep only the rows seen in the last, consistent pass;
 *  4. build the `_next` tables and the search index in bulk, then publish them in one transaction.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { endsSync, type SyncPhase, type SyncProgress, type SyncRun } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError, toErrorPayload } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { logger } from '../log.ts';
import { StageWriter, type StagedRecord } from '../cache/ingest.ts';
import { buildNext, clearStage, dropLeftovers, publishNext } from '../cache/publish.ts';
import { toSyncRun } from '../cache/queries.ts';

/** One page as the engine needs it. */
export interface FetchedPage {
  count: number;
  records: StagedRecord[];
  /**
   * Characters of the page's response body, when the source knows them: the sync then keeps its
   * pages within {@link PAGE_CHARS_BUDGET} ({@link pageSizeWithin}).
   */
  bodyLength?: number;
}

/** Where pages come from (the API client in the app; anything in tests). */
export interface PageSource {
  /**
   * Fetches one page. Must reject with a LetterdeskError (AUTH_REJECTED on 401/403, other codes
   * after its own retries) and honour `signal` promptly (CANCELLED).
   */
  fetchPage(resource: Resource, page: number, pageSize: number, signal: AbortSignal): Promise<FetchedPage>;
}

/** Options of {@link runSync}. */
export interface RunSyncOptions {
  resources: readonly Resource[];
  /** Rows per request, 1–1000. */
  pageSize: number;
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Run id shared by the resources of this sync; generated when absent. */
  runId?: string;
  signal?: AbortSignal;
  onProgress?: (progress: Omit<SyncProgress, 'profileId'> & { profileId: string }) => void;
  /** Passed through into progress events. @default '' */
  profileId?: string;
  /** Scope (`meta.account_id`); a resume only continues a staging of the same scope. */
  accountId?: string | null;
  /** Characters a page's response body should stay within (see {@link pageSizeWithin}). @default PAGE_CHARS_BUDGET */
  pageCharsBudget?: number;
  /** Full re-reads allowed to repair drift before giving up. @default 5 */
  maxPasses?: number;
  /** Smallest interval between two progress events, in ms. @default 100 */
  progressIntervalMs?: number;
  /** Called with each resource's run as soon as it has ended (before the next resource starts). */
  onRun?: (run: SyncRun) => void;
}

/**
 * What the person still has when a resource's run ends without publishing: the copy of an earlier
 * sync, shown unchanged, or nothing yet (a first sync). Error messages say which, so a first sync
 * never promises "previous data".
 * @param published the resource has been published before (`resource_state.last_synced_at`)
 */
export function keptData(resource: Resource, published: boolean): string {
  return published ? `The ${resource} cached before are still shown, unchanged.` : `No ${resource} are cached yet.`;
}

function cancelled(kept: string): LetterdeskError {
  return new LetterdeskError('CANCELLED', `The sync was cancelled. ${kept} Start it again whenever you like; it reads every page anew.`);
}

/** Largest `count` a sync accepts from the service (the spec's scale is 10^6 contacts, 3·10^5 orders). */
export const MAX_RECORDS = 50_000_000;
/** Largest number of pages a sync plans (`count / pageSize`). */
export const MAX_PAGES = 5_000_000;

/**
 * Largest response body a sync asks for in one request, in characters of JSON (≈ bytes). The
 * profile's pageSize is a number of rows, but what a page costs the syncing process is its size:
 * the body, its parse (a page of 1,000 orders, 2.7 MB of JSON, is ~25 MiB of live objects), the
 * bound values, times the requests in flight. Contacts of the sample API are ~660 characters a
 * row (1,000 a page stay within the budget), orders ~2,700 (a page of 1,000 becomes 4 pages of
 * 250). Issue 8 (peak RSS of the syncing process ≤ 300 MB); docs/benchmarks.md has the figures.
 */
export const PAGE_CHARS_BUDGET = 1_048_576;

/**
 * Rows per request that keep a page within `budget`, judged from the first page of a sync. Prefers
 * a divisor of `pageSize` (then the first page's rows are exactly the first `pageSize / result`
 * pages at the new size, and nothing is read twice) unless it would give pages less than half the
 * size that fits (a pageSize of 997, say): then the size that fits, and page 0 is read again.
 * @param pageSize rows the first page was asked for (≥ 1)
 * @param rows rows it returned (fewer than asked: the page is the whole result, kept as is)
 * @param bodyLength characters of its response body
 * @param budget characters a page should stay within; @default PAGE_CHARS_BUDGET
 * @returns `pageSize` when its page is within the budget (or holds one row), else a smaller size ≥ 1
 */
export function pageSizeWithin(pageSize: number, rows: number, bodyLength: number, budget = PAGE_CHARS_BUDGET): number {
  if (rows < pageSize || rows <= 1 || bodyLength <= budget) return pageSize;
  const fits = Math.max(1, Math.floor((budget * rows) / bodyLength));
  for (let size = fits; size * 2 > fits; size--) if (pageSize % size === 0) return size;
  return fits;
}

/** SQLite's "database or disk is full" (a full disk, or the file's page limit) as DISK_FULL; else null. */
function diskFull(error: unknown, kept: string): LetterdeskError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'SQLITE_FULL') return null;
  return new LetterdeskError(
    'DISK_FULL',
    `The disk is full, so the sync could not write to the cache. ${kept} Free some space on the disk, then sync again.`,
    { cause: error },
  );
}

interface SyncStateRow {
  run_id: string;
  page_size: number;
  server_count: number;
  pass: number;
  account_id: string | null;
}

/**
 * Syncs each resource in turn and records every run in `sync_runs`.
 * @param db a writable connection (WAL) to the cache; readers may use other connections meanwhile
 * @param source the pages
 * @returns one {@link SyncRun} per resource attempted (`succeeded` / `failed` / `cancelled`); stops
 *   after an AUTH_REJECTED or a cancel (the remaining resources are not attempted)
 */
export async function runSync(db: Database.Database, source: PageSource, options: RunSyncOptions): Promise<SyncRun[]> {
  const runs: SyncRun[] = [];
  const runId = options.runId ?? randomUUID();
  for (const resource of options.resources) {
    const run = await runResource(db, source, resource, runId, options);
    runs.push(run);
    options.onRun?.(run);
    if (endsSync(run)) break;
  }
  return runs;
}

async function runResource(db: Database.Database, source: PageSource, resource: Resource, runId: string, options: RunSyncOptions): Promise<SyncRun> {
  const signal = options.signal ?? new AbortController().signal;
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, 16));
  const maxPasses = options.maxPasses ?? 5;
  const interval = options.progressIntervalMs ?? 100;
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  db.prepare("INSERT OR REPLACE INTO sync_runs (run_id, resource, started_at, outcome) VALUES (?, ?, ?, 'running')").run(runId, resource, startedAt);
  const published = (db.prepare('SELECT last_synced_at FROM resource_state WHERE resource = ?').pluck().get(resource) ?? null) !== null;
  const kept = keptData(resource, published);

  let phase: SyncPhase = 'starting';
  let pagesDone = 0;
  let pagesTotal: number | null = null;
  let rowsDone = 0;
  let rowsTotal: number | null = null;
  let invalid = 0;
  let lastEmit = 0;
  const emit = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastEmit < interval) return;
    lastEmit = now;
    const seconds = (now - t0) / 1000;
    const rate = seconds > 0 ? rowsDone / seconds : 0;
    options.onProgress?.({
      profileId: options.profileId ?? '', runId, resource, phase, pagesDone, pagesTotal, rowsDone, rowsTotal,
      rowsPerSecond: Math.round(rate),
      etaSeconds: rowsTotal !== null && rate > 0 ? Math.max(0, Math.round((rowsTotal - rowsDone) / rate)) : null,
    });
  };
  const setPhase = (p: SyncPhase) => {
    phase = p;
    emit(true);
  };

  try {
    emit(true);
    dropLeftovers(db, resource);
    const writer = new StageWriter(db);
    const stage = resource === 'contacts' ? 'stage_contacts' : 'stage_orders';
    /**
     * The staging left by an unfinished sync. When this run continues it (the same run, interrupted),
     * it is compared with the server's first answer once; after that it is history: a later pass
     * measured against it would start over again and again instead of ending at `maxPasses`.
     */
    let state = db.prepare('SELECT * FROM sync_state WHERE resource = ?').get(resource) as SyncStateRow | undefined;
    let pass = 1;
    // Only the same run continues its staging (see step 2 above).
    let resumable = state !== undefined && state.run_id === runId && (state.account_id ?? null) === (options.accountId ?? null);
    if (resumable && state) pass = state.pass;
    else {
      if (state) logger.info(`sync ${resource}: the staging of an earlier, unfinished sync is discarded; reading every page again`);
      clearStage(db, resource);
    }

    setPhase('fetching');
    let pageSize = resumable && state ? state.page_size : options.pageSize;
    /** The page size was fitted to the budget (a resumed staging keeps the size it was written with). */
    let sized = resumable && state !== undefined;
    /** Distinct ids of the previous complete pass (duplicate detection), null before the first. */
    let previousSeen: number | null = null;
    let previousCount: number | null = null;
    /**
     * The number the service gives the first page. §4.2 says of the orders' `page` only "Current
     * page number" (contacts: "zero-based start", §4.1), so 0 is asked first; a service that counts
     * from 1 shows itself by serving rows past the last zero-based page (see the verify step), and
     * is then read again from 1.
     */
    let firstPageNumber = 0;
    const fetchPage = (page: number, size: number, pageSignal: AbortSignal) => source.fetchPage(resource, page + firstPageNumber, size, pageSignal);
    /**
     * The page after the last one counting from 0, asked only when a read comes up short: rows there
     * mean the service counts from 1. A service that counts from 0 may refuse a page past the end
     * (HTTP 404 or 400, §7 shows no error format): that is an answer too — no rows — and must not
     * fail the sync; null then. A cancel or rejected tokens still end the sync.
     */
    const pastLastPage = async (page: number): Promise<FetchedPage | null> => {
      try {
        return await fetchPage(page, pageSize, signal);
      } catch (error) {
        if (signal.aborted || (isLetterdeskError(error) && (error.code === 'CANCELLED' || error.code === 'AUTH_REJECTED'))) throw error;
        logger.info(`sync ${resource}: page ${page} (past the last) was refused (${isLetterdeskError(error) ? error.code : 'error'}); the service counts pages from 0`);
        return null;
      }
    };
    for (;;) {
      if (signal.aborted) throw cancelled(kept);
      let first = await fetchPage(0, pageSize, signal);
      let capped = false;
      if (first.records.length < pageSize && first.records.length < first.count && first.records.length > 0) {
        // The server caps the page size below ours: page with what it really returns.
        logger.info(`sync ${resource}: server caps pageSize at ${first.records.length} (asked ${pageSize})`);
        pageSize = first.records.length;
        capped = true;
        first = await fetchPage(0, pageSize, signal);
      }
      /** Pages the first answer holds: 1, or n when the page size was just divided by n. */
      let firstHolds = 1;
      if (!sized) {
        sized = true;
        const fitted = first.bodyLength === undefined ? pageSize : pageSizeWithin(pageSize, first.records.length, first.bodyLength, options.pageCharsBudget);
        if (fitted !== pageSize) {
          logger.info(`sync ${resource}: a page of ${pageSize} is ${first.bodyLength} characters; asking ${fitted} rows a request`);
          if (pageSize % fitted === 0) firstHolds = pageSize / fitted;
          else first = await fetchPage(0, fitted, signal);
          pageSize = fitted;
        }
      }
      const count = first.count;
      const plannedPages = Math.ceil(count / pageSize);
      if (count > MAX_RECORDS || plannedPages > MAX_PAGES) {
        // A lying or broken service (count 10^15 with five rows): planning that many pages would
        // exhaust memory long before any request; refuse the answer instead.
        throw new LetterdeskError(
          'BAD_RESPONSE',
          `The service reported ${count} ${resource} in pages of ${pageSize}, more than Letterdesk can mirror (at most ${MAX_RECORDS} records in ${MAX_PAGES} pages). ${kept} Check the base URL and the account scope of the profile.`,
        );
      }
      const resumed = resumable ? state : undefined;
      state = undefined;
      if (resumed && (resumed.server_count !== count || capped) && pass === resumed.pass) {
        logger.info(`sync ${resource}: the server changed since the interrupted sync (count ${resumed.server_count} → ${count}); starting over`);
        clearStage(db, resource);
        resumable = false;
        pass = 1;
        continue;
      }
      db.prepare('INSERT OR REPLACE INTO sync_state (resource, run_id, page_size, server_count, pass, account_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        resource, runId, pageSize, count, pass, options.accountId ?? null, new Date().toISOString(),
      );
      resumable = true;
      pagesTotal = Math.max(1, Math.ceil(count / pageSize));
      rowsTotal = count;
      const firstPages = firstHolds === 1 ? [first.records] : Array.from({ length: firstHolds }, (_, i) => first.records.slice(i * pageSize, (i + 1) * pageSize));
      const done = new Set((db.prepare('SELECT page FROM sync_pages WHERE resource = ? AND pass = ?').all(resource, pass) as { page: number }[]).map((r) => r.page));
      rowsDone = (db.prepare('SELECT coalesce(sum(rows), 0) AS n FROM sync_pages WHERE resource = ? AND pass = ? AND page >= ?').get(resource, pass, firstPages.length) as { n: number }).n;
      pagesDone = [...done].filter((p) => p >= firstPages.length).length;
      let drift = false;
      invalid = 0;
      for (const [page, records] of firstPages.entries()) {
        const w = writer.writePage(resource, pass, page, count, records);
        invalid += w.invalid;
        rowsDone += w.rows;
        pagesDone += 1;
      }
      // Invalid records are those of this pass (a pass reads every page again), counted as pages
      // are written; when this run continues a staging, the pages an interrupted process wrote are
      // counted from it, after the first pages were written again over their own rows (counting
      // both would count the first pages' invalid rows twice).
      if (done.size > 0) invalid = (db.prepare(`SELECT count(*) AS n FROM ${stage} WHERE pass = ? AND invalid_reason IS NOT NULL`).get(pass) as { n: number }).n;
      emit(false);

      const todo: number[] = [];
      for (let p = firstPages.length; p < pagesTotal; p++) if (!done.has(p)) todo.push(p);
      let next = 0;
      const local = new AbortController();
      const onAbort = () => local.abort();
      signal.addEventListener('abort', onAbort);
      const lane = async () => {
        while (next < todo.length) {
          if (local.signal.aborted) return;
          const page = todo[next++] as number;
          const res = await fetchPage(page, pageSize, local.signal);
          if (signal.aborted) throw cancelled(kept);
          const w = writer.writePage(resource, pass, page, res.count, res.records);
          invalid += w.invalid;
          if (res.count !== count) drift = true;
          if (page < (pagesTotal ?? 0) - 1 && res.records.length < pageSize) drift = true;
          rowsDone += w.rows;
          pagesDone += 1;
          emit(false);
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, async () => {
          try {
            await lane();
          } catch (error) {
            local.abort(); // stop the other lanes promptly
            throw error;
          }
        }));
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
      if (signal.aborted) throw cancelled(kept);

      setPhase('verifying');
      // Staging holds rows of this pass and of earlier ones only (a fresh or a resumed staging of
      // this pass). In pass 1, then, every row is of this pass, and SQLite counts them from the id
      // index instead of reading every wide row: 1M contacts 0.7 s → ms.
      const seen = ((pass === 1
        ? db.prepare(`SELECT count(*) AS n FROM ${stage}`).get()
        : db.prepare(`SELECT count(*) AS n FROM ${stage} WHERE pass = ?`).get(pass)) as { n: number }).n;
      if (!drift && seen === count) break;
      let countsFromOne = false;
      if (!drift && seen < count && firstPageNumber === 0 && pagesTotal !== null) {
        const past = await pastLastPage(pagesTotal);
        // A count that moved means records changed meanwhile (drift), not a service counting from 1:
        // rows past the end then are new records, and reading from 1 would skip page 0.
        if (past !== null && past.count !== count) drift = true;
        else countsFromOne = past !== null && past.records.length > 0;
      }
      if (countsFromOne) {
        // Rows past the last page: the service numbers its pages from 1, so page 0 was served as
        // page 1 again and the last page was never asked for. Without this the read below would
        // look like a stable service that lists ids twice, and the last rows would be lost.
        logger.warn(`sync ${resource}: page ${pagesTotal} (past the last, counting from 0) has rows: the service counts pages from 1; reading every page again from 1`);
        firstPageNumber = 1;
        previousSeen = null;
        previousCount = null;
      } else {
        if (!drift && seen < count && seen === previousSeen && count === previousCount) {
          // Two consecutive full reads with the same count, full pages and the very same id set (no
          // row of the previous pass is missing from this one): the service is stable but lists
          // some ids more than once. Keep one record per id and report the duplicates instead of
          // failing every sync with "kept changing".
          const missing = (db.prepare(`SELECT count(*) AS n FROM ${stage} WHERE pass = ?`).get(pass - 1) as { n: number }).n;
          if (missing === 0) {
            logger.warn(`sync ${resource}: the service listed ${count - seen} id(s) more than once (count ${count}, distinct ids ${seen}, stable over two reads); one record per id kept`);
            invalid += count - seen;
            break;
          }
        }
        previousSeen = drift ? null : seen;
        previousCount = count;
        logger.warn(`sync ${resource}: drift in pass ${pass} (server count ${count}, ids seen ${seen}, count changed: ${drift}); reading again`);
      }
      if (pass >= maxPasses) {
        throw new LetterdeskError('DRIFT', `The service's ${resource} kept changing while they were read (${maxPasses} full reads did not agree). ${kept} Try the sync again later.`);
      }
      pass += 1;
      setPhase('fetching');
    }

    // Keep only the rows seen in the last (consistent) pass: the others were deleted or moved away.
    // (In pass 1 there are none, and the statement would read every wide row to find that out.)
    if (pass > 1) db.prepare(`DELETE FROM ${stage} WHERE pass < ?`).run(pass);
    if (signal.aborted) throw cancelled(kept);
    setPhase('indexing');
    const gen = Date.now().toString(36);
    const rows = buildNext(db, resource, gen);
    if (signal.aborted) {
      dropLeftovers(db, resource);
      throw cancelled(kept);
    }
    setPhase('publishing');
    const endedAt = new Date().toISOString();
    publishNext(db, resource, () => {
      db.prepare("UPDATE sync_runs SET ended_at = ?, outcome = 'succeeded', rows = ?, invalid_records = ? WHERE run_id = ? AND resource = ?").run(endedAt, rows, invalid, runId, resource);
      db.prepare('UPDATE resource_state SET rows = ?, last_synced_at = ?, last_error_code = NULL, last_error_message = NULL WHERE resource = ?').run(rows, endedAt, resource);
      db.prepare('DELETE FROM sync_state WHERE resource = ?').run(resource);
      db.prepare('DELETE FROM sync_pages WHERE resource = ?').run(resource);
    });
    rowsDone = rows;
    setPhase('done');
    logger.info(`sync ${resource}: ${rows} rows published in ${Math.round(performance.now() - t0)} ms (${invalid} invalid kept)`);
  } catch (error) {
    const payload = signal.aborted && !(isLetterdeskError(error) && error.code !== 'CANCELLED') ? cancelled(kept).toPayload() : toErrorPayload(diskFull(error, kept) ?? error);
    if (!isLetterdeskError(error)) logger.error(`sync ${resource} failed`, error);
    const outcome = payload.code === 'CANCELLED' ? 'cancelled' : 'failed';
    try {
      db.prepare('UPDATE sync_runs SET ended_at = ?, outcome = ?, rows = ?, invalid_records = ?, error_code = ?, error_message = ? WHERE run_id = ? AND resource = ?').run(
        new Date().toISOString(), outcome, rowsDone, invalid, payload.code, payload.message, runId, resource,
      );
      if (outcome === 'failed') db.prepare('UPDATE resource_state SET last_error_code = ?, last_error_message = ? WHERE resource = ?').run(payload.code, payload.message, resource);
    } catch (bookkeeping) {
      logger.error('sync: could not record the failed run', bookkeeping);
    }
  }
  return toSyncRun(db.prepare('SELECT * FROM sync_runs WHERE run_id = ? AND resource = ?').get(runId, resource) as Record<string, unknown>);
}
