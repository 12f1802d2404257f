/**
 * A full, paged read of a listing into a staging (DESIGN.md "Sync"), in named steps: plan the read
 * (continue the same run's staging or start over), read the first page and fit the page size,
 * write it and fetch the other pages in concurrent lanes, verify the pass, and read again until a
 * pass is consistent. The mirror of a resource (engine.ts) and a saved view's membership
 * (viewRefresh.ts) are read by these same steps; only their staging (cache/build/staging.ts) and what
 * they publish differ. The decisions the steps take are in decisions.ts.
 */
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../../shared/views.ts';
import { isLetterdeskError } from '../../../shared/errors.ts';
import { logger } from '../base/log.ts';
import type { ReadStaging, StagingState } from '../cache/build/staging.ts';
import {
  countInvalidFromStaging, duplicateIds, exceedsMirrorLimits, fitFirstPage, isConsistent, isResumable, lanesFor, listsIdsTwice, mayCountFromOne, mustGiveUp,
  NO_PREVIOUS_PASS, pagesOf, pageShowsDrift, pagesToFetch, passAfterProbe, previousFor, readPastLastPage, refusalEndsSync, resumedStagingIsStale,
  servedPageSize, servedPagesTooSmall, splitFirstPage, type PassSeen, type PastLastPage, type PreviousPass,
} from './decisions.ts';
import { cancelled, keptChanging, pagesTooSmall, tooManyRecords } from './failures.ts';
import type { FetchedPage, PageSource } from './pageSource.ts';
import type { SyncProgressMeter } from './progress.ts';

/** One read of a listing: what every step needs. */
export interface ResourceSync {
  /** Where the pages are written. */
  readonly staging: ReadStaging;
  readonly source: PageSource;
  readonly resource: Resource;
  /** The service query sent with every page (a saved view's), or null: the whole listing. */
  readonly query: ViewServiceQuery | null;
  /** What the log lines call it: the resource, or the view. */
  readonly label: string;
  readonly runId: string;
  readonly accountId: string | null;
  readonly signal: AbortSignal;
  /** Requests in flight. */
  readonly concurrency: number;
  /** Full reads allowed before giving up with DRIFT. */
  readonly maxPasses: number;
  /** Characters a page should stay within; undefined = the default budget. */
  readonly pageCharsBudget: number | undefined;
  /** What the person still has if the run does not publish (failures.ts `keptData`). */
  readonly kept: string;
  /** `performance.now()` at the start of the run. */
  readonly startedMs: number;
  readonly progress: SyncProgressMeter;
  /** Invalid records of the current pass, as far as it has been read. */
  invalid: number;
}

/** How the listing is being read; the steps update it from pass to pass. */
export interface ReadPlan {
  /** Rows per request. */
  pageSize: number;
  /** The page size was fitted to the budget (a continued staging keeps the size it was written with). */
  sized: boolean;
  /** The current pass (1 = the first read, 2+ = drift repair). */
  pass: number;
  /**
   * The staging this run continues. It is compared with the server's first answer once; after that
   * it is history: a later pass measured against it would start over again and again instead of
   * ending at `maxPasses`.
   */
  resumed: StagingState | undefined;
  /** The number the service gives its first page: 0, or 1 once it has shown it counts from 1. */
  firstPageNumber: number;
  /** What the pass before saw (duplicate detection). */
  previous: PreviousPass;
}

/** The first answer of a pass. */
export interface FirstAnswer {
  page: FetchedPage;
  /** The server capped the page size asked. */
  capped: boolean;
  /** Pages at the plan's page size that the answer holds (more than 1 when the size was just divided). */
  holds: number;
}

/** A pass that has been read: `count` of its first page, pages planned, whether a page drifted. */
export interface PassRead {
  count: number;
  pagesTotal: number;
  drift: boolean;
}

/** How a pass ended: consistent, consistent but for ids the service lists twice, or to be read again. */
export type PassVerdict = 'consistent' | 'duplicates' | 'read again';

function fetchPage(run: ResourceSync, plan: ReadPlan, page: number, pageSize: number, signal: AbortSignal): Promise<FetchedPage> {
  return run.source.fetchPage(run.resource, page + plan.firstPageNumber, pageSize, signal, run.query ?? undefined);
}

/**
 * Reads page 0: again with the size the server serves if it caps ours, and once per staging the
 * page size is fitted to the budget (page 0's rows divided into pages, or page 0 asked again).
 */
export async function readFirstPage(run: ResourceSync, plan: ReadPlan): Promise<FirstAnswer> {
  let first = await fetchPage(run, plan, 0, plan.pageSize, run.signal);
  const served = servedPageSize(plan.pageSize, { count: first.count, rows: first.records.length });
  if (servedPagesTooSmall(served, first.count)) throw pagesTooSmall(run.label, first.count, served as number, plan.pageSize, run.kept);
  if (served !== null) {
    logger.info(`sync ${run.label}: server caps pageSize at ${served} (asked ${plan.pageSize})`);
    plan.pageSize = served;
    first = await fetchPage(run, plan, 0, plan.pageSize, run.signal);
  }
  let holds = 1;
  if (!plan.sized) {
    plan.sized = true;
    const fit = fitFirstPage(plan.pageSize, first.records.length, first.bodyLength, run.pageCharsBudget);
    if (fit.pageSize !== plan.pageSize) {
      logger.info(`sync ${run.label}: a page of ${plan.pageSize} is ${first.bodyLength} characters; asking ${fit.pageSize} rows a request`);
      holds = fit.holds;
      if (fit.readAgain) first = await fetchPage(run, plan, 0, fit.pageSize, run.signal);
      plan.pageSize = fit.pageSize;
    }
  }
  return { page: first, capped: served !== null, holds };
}

/**
 * Reads the rest of the pass: records its plan (so the same run can continue it), writes the first
 * answer's pages, then fetches the pages not yet written in concurrent lanes, each written in its
 * own transaction.
 * @throws CANCELLED when the run is cancelled; the first error of a lane (the others stop)
 */
export async function readPass(run: ResourceSync, plan: ReadPlan, first: FirstAnswer): Promise<PassRead> {
  const { staging, progress } = run;
  const count = first.page.count;
  staging.saveState({ runId: run.runId, pageSize: plan.pageSize, serverCount: count, pass: plan.pass, accountId: run.accountId });
  const pagesTotal = pagesOf(count, plan.pageSize);
  const firstPages = splitFirstPage(first.page.records, first.holds, plan.pageSize);
  const written = staging.pagesWritten(plan.pass, firstPages.length);
  progress.startPass(pagesTotal, count, [...written.pages].filter((p) => p >= firstPages.length).length, written.rows);
  run.invalid = 0;
  for (const [page, records] of firstPages.entries()) {
    const w = await staging.writePage(plan.pass, page, count, records);
    run.invalid += w.invalid;
    progress.pageWritten(w.rows);
  }
  // The pages an interrupted process wrote are counted from staging, after the first pages were
  // written again over their own rows (counting both would count their invalid rows twice).
  if (countInvalidFromStaging(written.pages.size)) run.invalid = staging.invalidStaged(plan.pass);
  progress.emit(false);
  const drift = await fetchInLanes(run, plan, pagesToFetch(firstPages.length, pagesTotal, written.pages), count, pagesTotal);
  if (run.signal.aborted) throw cancelled(run.kept);
  return { count, pagesTotal, drift };
}

/**
 * Fetches `todo` with the run's concurrency, writing each page as it arrives.
 * @returns whether a page showed drift (decisions.ts `pageShowsDrift`)
 */
async function fetchInLanes(run: ResourceSync, plan: ReadPlan, todo: readonly number[], count: number, pagesTotal: number): Promise<boolean> {
  const { staging, progress, signal } = run;
  let drift = false;
  let next = 0;
  const local = new AbortController();
  const onAbort = () => local.abort();
  signal.addEventListener('abort', onAbort);
  const lane = async () => {
    while (next < todo.length) {
      if (local.signal.aborted) return;
      const page = todo[next++] as number;
      const served = await fetchPage(run, plan, page, plan.pageSize, local.signal);
      if (signal.aborted) throw cancelled(run.kept);
      // Only the page's size is kept while it is written: its records are garbage once staged or
      // handed to the staging's writer thread.
      if (pageShowsDrift(page, pagesTotal, plan.pageSize, count, { count: served.count, rows: served.records.length })) drift = true;
      const w = await staging.writePage(plan.pass, page, served.count, served.records);
      run.invalid += w.invalid;
      progress.pageWritten(w.rows);
      progress.emit(false);
    }
  };
  const failures: unknown[] = [];
  try {
    // Every lane is waited for, even after one failed: a page one of them is still writing must
    // be committed or rolled back before the staging is read or changed again.
    await Promise.all(Array.from({ length: lanesFor(run.concurrency, todo.length) }, async () => {
      try {
        await lane();
      } catch (error) {
        failures.push(error);
        local.abort(); // stop the other lanes promptly
      }
    }));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (failures.length > 0) throw failures[0];
  return drift;
}

/**
 * The page after the last one counting from 0, asked only when a read comes up short. A refusal
 * is an answer too (no rows), logged, unless it ends the sync (decisions.ts `refusalEndsSync`).
 * @returns its answer, or null when it was refused
 */
async function pastLastPage(run: ResourceSync, plan: ReadPlan, page: number): Promise<FetchedPage | null> {
  try {
    return await fetchPage(run, plan, page, plan.pageSize, run.signal);
  } catch (error) {
    if (refusalEndsSync(error, run.signal.aborted)) throw error;
    logger.info(`sync ${run.label}: page ${page} (past the last) was refused (${isLetterdeskError(error) ? error.code : 'error'}); the service counts pages from 0`);
    return null;
  }
}

/**
 * Verifies a pass: the distinct ids staged against `count`. A short, steady pass is checked for a
 * service that counts pages from 1 (then read again from 1) and for a stable service that lists
 * ids twice (then kept, the duplicates counted as invalid); anything else is drift, to be read
 * again. Updates the plan for the next pass.
 */
export async function verifyPass(run: ResourceSync, plan: ReadPlan, read: PassRead): Promise<PassVerdict> {
  const { staging, label } = run;
  run.progress.setPhase('verifying');
  const pass: PassSeen = { count: read.count, drift: read.drift, seen: staging.idsStaged(plan.pass) };
  if (isConsistent(pass)) return 'consistent';
  let probe: PastLastPage | null = null;
  if (mayCountFromOne(pass, plan.firstPageNumber)) {
    const past = await pastLastPage(run, plan, read.pagesTotal);
    probe = readPastLastPage(past && { count: past.count, rows: past.records.length }, pass.count);
  }
  if (probe === 'counts from one') {
    // Without reading again from 1 this would look like a stable service that lists ids twice,
    // and the last rows would be lost.
    logger.warn(`sync ${label}: page ${read.pagesTotal} (past the last, counting from 0) has rows: the service counts pages from 1; reading every page again from 1`);
    plan.firstPageNumber = 1;
    plan.previous = NO_PREVIOUS_PASS;
    return 'read again';
  }
  const judged = passAfterProbe(pass, probe);
  if (listsIdsTwice(judged, plan.previous, () => staging.rowsLastSeenIn(plan.pass - 1))) {
    logger.warn(`sync ${label}: the service listed ${duplicateIds(judged)} id(s) more than once (count ${judged.count}, distinct ids ${judged.seen}, stable over two reads); one record per id kept`);
    run.invalid += duplicateIds(judged);
    return 'duplicates';
  }
  plan.previous = previousFor(judged);
  logger.warn(`sync ${label}: drift in pass ${plan.pass} (server count ${judged.count}, ids seen ${judged.seen}, count changed: ${judged.drift}); reading again`);
  return 'read again';
}

/** Step 1: continues the staging of this run (after its process ended), or empties it. */
export function planRead(run: ResourceSync, pageSize: number): ReadPlan {
  const state = run.staging.state();
  const resumed = isResumable(state, run.runId, run.accountId) ? state : undefined;
  if (!resumed) {
    if (state) logger.info(`sync ${run.label}: the staging of an earlier, unfinished read is discarded; reading every page again`);
    run.staging.clear();
  }
  return { pageSize: resumed?.pageSize ?? pageSize, sized: resumed !== undefined, pass: resumed?.pass ?? 1, resumed, firstPageNumber: 0, previous: NO_PREVIOUS_PASS };
}

/**
 * Steps 2–4, pass after pass until one is consistent; the rows not seen in the consistent pass
 * are then dropped from the staging.
 * @returns the consistent pass
 * @throws CANCELLED, BAD_RESPONSE (a count beyond what a sync mirrors, or a server that serves a
 *   handful of rows a page for a count of millions), DRIFT after `maxPasses`,
 *   and what the page source throws
 */
export async function readUntilConsistent(run: ResourceSync, plan: ReadPlan): Promise<number> {
  for (;;) {
    if (run.signal.aborted) throw cancelled(run.kept);
    const first = await readFirstPage(run, plan);
    if (exceedsMirrorLimits(first.page.count, plan.pageSize)) throw tooManyRecords(run.label, first.page.count, plan.pageSize, run.kept);
    if (startsOver(run, plan, first)) continue;
    const read = await readPass(run, plan, first);
    if ((await verifyPass(run, plan, read)) !== 'read again') {
      // The rows not seen in the last pass were deleted or moved away. (In pass 1 there are none.)
      if (plan.pass > 1) run.staging.keepOnlyPass(plan.pass);
      return plan.pass;
    }
    if (mustGiveUp(plan.pass, run.maxPasses)) throw keptChanging(run.label, run.maxPasses, run.kept);
    plan.pass += 1;
    run.progress.setPhase('fetching');
  }
}

/** Whether the staging this run continues no longer matches the server; it is then emptied for a new read. */
function startsOver(run: ResourceSync, plan: ReadPlan, first: FirstAnswer): boolean {
  const resumed: StagingState | undefined = plan.resumed;
  plan.resumed = undefined;
  if (!resumed || !resumedStagingIsStale(resumed, first.page.count, first.capped, plan.pass)) return false;
  logger.info(`sync ${run.label}: the server changed since the interrupted read (count ${resumed.serverCount} → ${first.page.count}); starting over`);
  run.staging.clear();
  plan.pass = 1;
  return true;
}
