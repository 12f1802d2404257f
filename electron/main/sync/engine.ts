/**
 * The sync engine (DESIGN.md "Sync"): a full, paged mirror of each resource into staging, verified,
 * then published in one transaction. Plain async code over one better-sqlite3 connection and a
 * {@link PageSource}; the sync process (../syncProcess.ts) is a thin shell around {@link runSync},
 * and tests, the CLI and the benchmark can call it directly.
 *
 * Per resource, in named steps:
 *  1. begin the run (recorded as running) and plan the read: the same run, continued after its
 *     process ended (controller.ts: out of memory, killed), continues its staging and skips the
 *     pages already written; a later run starts over, because nothing in the API tells whether
 *     pages read before have changed since (service-api.md: no change token, ordering not shown);
 *  2. read page 0 to learn `count`, the page size the server really serves and one that keeps
 *     a page within budget (read.ts `readFirstPage`);
 *  3. fetch the other pages in concurrent lanes, each page written into staging in its own
 *     transaction and recorded (read.ts `readPass`);
 *  4. verify: every page reported the same `count` and the distinct ids seen in this pass equal it;
 *     otherwise (drift, a service counting pages from 1) read every page again, a new pass, up to
 *     `maxPasses` (read.ts `verifyPass`);
 *  5. build the `_next` tables and the search index in bulk from the rows of the last pass, then
 *     publish them in one transaction with the run's outcome;
 *  6. or record the run's failure or cancel, leaving the previous snapshot as it was.
 * Steps 1–4 are read.ts's, shared with the refresh of a saved view's membership (viewRefresh.ts);
 * decisions are in decisions.ts, the bookkeeping's SQL in cache/syncBookkeeping.ts. Saved views
 * asked for are refreshed after their resource (`views`), each reported as it ends; the kept
 * filters of the resources published (`keptFilters`) are read last. After a publish of the contacts,
 * the contacts that would receive a letter twice are found in them (cache/build/duplicates.ts).
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { DEFAULT_HISTORY_RETENTION_DAYS, endsSync, type DataSource, type SyncProgress, type SyncRun } from '../../../shared/contract.ts';
import { isLetterdeskError } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { logger } from '../base/log.ts';
import { changeCounts } from '../cache/build/changes.ts';
import { dropObservationsNext, pruneHistory, recordObservations } from '../cache/build/observe.ts';
import { clearDuplicates, findDuplicates } from '../cache/build/duplicates.ts';
import { dropLeftovers } from '../cache/build/publish.ts';
import { MirrorStaging } from '../cache/build/staging.ts';
import { SyncBookkeeping } from '../cache/build/syncBookkeeping.ts';
import { attachHistory } from '../cache/store/history.ts';
import { buildNextWithViews, publishNextWithViews } from '../cache/savedViews/mirror.ts';
import { collectViewGarbage } from '../cache/savedViews/publish.ts';
import { concurrencyOf } from './decisions.ts';
import { cancelled, failurePayload, keptData } from './failures.ts';
import type { PageSource } from './pageSource.ts';
import { SyncProgressMeter } from './progress.ts';
import { planRead, readUntilConsistent, type ResourceSync } from './read.ts';
import { refreshKeptFilters, type KeptReadOutcome } from './keptRefresh.ts';
import { refreshViews, skipViews, type ViewRefreshOptions } from './viewRefresh.ts';

/** Options of {@link runSync}. */
export interface RunSyncOptions {
  resources: readonly Resource[];
  /** Rows per request, 1–1000. */
  pageSize: number;
  /** Requests in flight at once (at most decisions.ts `MAX_CONCURRENCY`). @default decisions.ts `DEFAULT_CONCURRENCY` */
  concurrency?: number;
  /** Run id shared by the resources of this sync; generated when absent. */
  runId?: string;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  /** Passed through into progress events. @default '' */
  profileId?: string;
  /** Scope (`meta.account_id`); a resume only continues a staging of the same scope. */
  accountId?: string | null;
  /** Origin of the base URL the pages come from, recorded with each published copy. @default none recorded */
  origin?: string;
  /** Characters a page's response body should stay within (decisions.ts `pageSizeWithin`). @default PAGE_CHARS_BUDGET */
  pageCharsBudget?: number;
  /** Full re-reads allowed to repair drift before giving up. @default 5 */
  maxPasses?: number;
  /** Smallest interval between two progress events, in ms. @default 100 */
  progressIntervalMs?: number;
  /** Called with each resource's run as soon as it has ended (before the next resource starts). */
  onRun?: (run: SyncRun) => void;
  /**
   * Saved views whose memberships are read after the resources, each right after its resource's
   * run (views of a resource not synced now: after the resources), with their outcomes.
   */
  views?: ViewRefreshOptions;
  /**
   * Read the kept filters' memberships of each resource published now, after every resource and
   * view (keptRefresh.ts). @default false
   */
  keptFilters?: boolean;
  /**
   * Days the observed history is kept: each publish deletes the runs whose span ended earlier.
   * @default shared/contract.ts `DEFAULT_HISTORY_RETENTION_DAYS`
   */
  historyRetentionDays?: number;
  /** The local day date presets are computed from (YYYY-MM-DD). @default today in this process's time zone */
  today?: string;
  /** Called with the outcome of each kept value's read. */
  onKeptRead?: (outcome: KeptReadOutcome) => void;
}

/**
 * Syncs each resource in turn and records every run in `sync_runs`.
 * @param db a writable connection (WAL) to the cache; readers may use other connections meanwhile
 * @param source the pages
 * @returns one {@link SyncRun} per resource attempted (`succeeded` / `failed` / `cancelled`); stops
 *   after an AUTH_REJECTED or a cancel (the remaining resources and views are not attempted)
 */
export async function runSync(db: Database.Database, source: PageSource, options: RunSyncOptions): Promise<SyncRun[]> {
  const books = new SyncBookkeeping(db);
  const runs: SyncRun[] = [];
  const runId = options.runId ?? randomUUID();
  const views = options.views;
  const viewOptions = { ...options, runId };
  for (const resource of options.resources) {
    const run = await runResource(db, books, beginRun(db, books, source, resource, runId, options), options.pageSize);
    runs.push(run);
    options.onRun?.(run);
    if (endsSync(run)) {
      if (views) skipViews(views, runId, run.error ?? { code: 'CANCELLED', message: 'The sync was cancelled.' });
      return runs;
    }
    if (resource === 'contacts' && run.outcome === 'succeeded') findDuplicatesAfterPublish(db);
    if (views) await refreshViews(db, source, views, viewOptions, resource);
  }
  if (views) await refreshViews(db, source, views, viewOptions, null);
  collectGarbage(db);
  if (options.keptFilters) {
    const published = runs.filter((run) => run.outcome === 'succeeded').map((run) => run.resource);
    for (const outcome of await refreshKeptFilters(db, source, published, viewOptions)) options.onKeptRead?.(outcome);
  }
  return runs;
}

/**
 * Finds the contacts that would receive the same letter twice in the contacts just published
 * (cache/build/duplicates.ts); readers use the new mirror meanwhile.
 */
function findDuplicatesAfterPublish(db: Database.Database): void {
  try {
    const found = findDuplicates(db);
    logger.info(`sync contacts: duplicates found in ${found.tookMs} ms over ${found.contacts} contacts (${found.groups.address} addresses, ${found.groups.household} households, ${found.groups.individual} individuals)`);
  } catch (error) {
    // The sync itself went as reported. The previous sync's groups would name contacts this
    // publish changed or removed, so they go too: the page says they come after the next sync.
    logger.warn('sync: the duplicate contacts could not be found', error);
    try {
      clearDuplicates(db);
    } catch (clearError) {
      logger.warn('sync: the previous duplicate groups could not be cleared', clearError);
    }
  }
}

/** Deletes the data of saved views' memberships no view points at any more (deleted views, replaced reads). */
function collectGarbage(db: Database.Database): void {
  try {
    collectViewGarbage(db);
  } catch (error) {
    // What is left is collected by the next sync; the sync itself went as reported.
    logger.warn('sync: the data of deleted views could not be collected', error);
  }
}

/** A resource's mirror: what the mirror's steps share. */
interface MirrorSync extends ResourceSync {
  readonly db: Database.Database;
  readonly books: SyncBookkeeping;
  /** Where the pages come from, recorded with the published copy (null: not recorded). */
  readonly dataSource: DataSource | null;
  readonly staging: MirrorStaging;
  /** Days the observed history is kept. */
  readonly historyRetentionDays: number;
}

const DAY_MS = 86_400_000;

async function runResource(db: Database.Database, books: SyncBookkeeping, run: MirrorSync, pageSize: number): Promise<SyncRun> {
  try {
    run.progress.emit(true);
    dropLeftovers(db, run.resource);
    const plan = planRead(run, pageSize);
    run.progress.setPhase('fetching');
    // The writer thread, if any, ends with the read: before the build, or before a failure is recorded.
    await readUntilConsistent(run, plan).finally(() => run.staging.endWrites());
    publish(run);
  } catch (error) {
    recordFailure(run, error);
  } finally {
    // A read that did not reach the build still has its search index thread.
    run.staging.stopIndexing();
  }
  return books.run(run.runId, run.resource);
}

/** Step 1: records the run as running and sets up what the other steps share. */
function beginRun(db: Database.Database, books: SyncBookkeeping, source: PageSource, resource: Resource, runId: string, options: RunSyncOptions): MirrorSync {
  const signal = options.signal ?? new AbortController().signal;
  const startedMs = performance.now();
  books.beginRun(runId, resource, new Date().toISOString());
  return {
    db, books, source, resource, runId, signal, startedMs,
    staging: new MirrorStaging(db, resource, books),
    query: null,
    dataSource: options.origin === undefined ? null : { origin: options.origin, accountId: options.accountId ?? null },
    label: resource,
    accountId: options.accountId ?? null,
    concurrency: concurrencyOf(options.concurrency),
    maxPasses: options.maxPasses ?? 5,
    pageCharsBudget: options.pageCharsBudget,
    kept: keptData(resource, books.wasPublished(resource)),
    historyRetentionDays: options.historyRetentionDays ?? DEFAULT_HISTORY_RETENTION_DAYS,
    progress: new SyncProgressMeter({ profileId: options.profileId ?? '', runId, resource, intervalMs: options.progressIntervalMs ?? 100, onProgress: options.onProgress }, startedMs),
    invalid: 0,
  };
}

/** How the log line says where the search index was filled (publish.ts `onSearchIndex`). */
const SEARCH_INDEX_BUILT: Record<'staging' | 'worker' | 'connection', string> = {
  staging: 'by a worker thread while the pages were staged',
  worker: 'by a worker thread',
  connection: 'in the connection',
};

/** Step 5: builds the snapshot from the rows of the consistent pass and publishes it with the run's outcome. */
function publish(run: MirrorSync): void {
  const { db, resource } = run;
  if (run.signal.aborted) throw cancelled(run.kept);
  run.progress.setPhase('indexing');
  // In a sync process (process.ts SYNC_PROCESS_FLAGS) the heap's garbage from the fetch is
  // collected first: the build allocates little on the heap, so V8 would not collect it
  // before the build's own peak is added on top.
  (globalThis as { gc?: () => void }).gc?.();
  // What changed is recorded against the copy readers see; a first sync has none to compare with.
  const compare = run.books.wasPublished(resource);
  let searchIndexIn: keyof typeof SEARCH_INDEX_BUILT = 'connection';
  const rows = buildNextWithViews(db, resource, Date.now().toString(36), { compare, staged: run.staging.takeSearchIndex(), onSearchIndex: (where) => (searchIndexIn = where) });
  if (run.signal.aborted) {
    dropLeftovers(db, resource);
    throw cancelled(run.kept);
  }
  run.progress.setPhase('publishing');
  const endedAt = new Date().toISOString();
  const changes = compare ? changeCounts(db, resource, '_next') : null;
  const after = compare ? run.books.lastPublishedStart(resource, run.runId) : null;
  attachHistory(db);
  const retainedFrom = new Date(Date.parse(endedAt) - run.historyRetentionDays * DAY_MS).toISOString();
  let observed = { observations: 0, bytes: 0 };
  publishNextWithViews(db, resource, () => {
    run.books.recordPublished(run.runId, resource, endedAt, rows, run.invalid, changes, run.dataSource);
    // The history commits with the mirror it describes; a publish that rolls back stores nothing.
    if (after !== null) observed = recordObservations(db, resource, { runId: run.runId, after, atOrBefore: endedAt });
    else dropObservationsNext(db);
    pruneHistory(db, retainedFrom);
  });
  run.progress.published(rows);
  run.progress.setPhase('done');
  const changed = changes ? `; ${changes.added} added, ${changes.changed} changed, ${changes.removed} removed; ${observed.observations} observations kept in the history (+${observed.bytes} bytes)` : '';
  logger.info(`sync ${resource}: ${rows} rows published in ${Math.round(performance.now() - run.startedMs)} ms (${run.invalid} invalid kept${changed}; pages staged ${run.staging.pagesByThread() > 0 ? 'by a writer thread' : 'in the connection'}; search index built ${SEARCH_INDEX_BUILT[searchIndexIn]})`);
}

/** Step 6: records how a run that did not publish ended (a failure also as the resource's last error). */
function recordFailure(run: MirrorSync, error: unknown): void {
  const payload = failurePayload(error, run.signal.aborted, run.kept);
  if (!isLetterdeskError(error)) logger.error(`sync ${run.resource} failed`, error);
  try {
    run.books.recordFailure(run.runId, run.resource, {
      outcome: payload.code === 'CANCELLED' ? 'cancelled' : 'failed', endedAt: new Date().toISOString(),
      rows: run.progress.rowsDone, invalidRecords: run.invalid, code: payload.code, message: payload.message,
    });
  } catch (bookkeeping) {
    logger.error('sync: could not record the failed run', bookkeeping);
  }
}
