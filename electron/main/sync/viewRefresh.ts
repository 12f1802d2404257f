/**
 * Refreshing a saved view's membership (DESIGN.md "Views"): its service query is read with every
 * page by the sync's own steps (read.ts: concurrency, retries and `Retry-After` in the API client,
 * page-size caps and fitting, drift check against `count` and re-read, one-based paging detection,
 * cancel, progress, and continuing the same run's staging after its process ended) into the view's
 * membership staging (cache/savedViews/staging.ts), then published beside the previous membership and made
 * visible in one transaction (cache/savedViews/publish.ts). A refresh that fails or is cancelled keeps the
 * previous membership; a failure is recorded as the view's last error.
 */
import type Database from 'better-sqlite3';
import type { SyncProgress } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError, type ErrorPayload } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewMembership, ViewRefresh, ViewServiceQuery } from '../../../shared/views.ts';
import { logger } from '../base/log.ts';
import { refreshTarget } from '../cache/savedViews/savedViews.ts';
import { collectViewGarbage, currentMembership, publishMembership, recordRefreshFailure } from '../cache/savedViews/publish.ts';
import { MembershipStaging } from '../cache/savedViews/staging.ts';
import { concurrencyOf } from './decisions.ts';
import { cancelled, failurePayload } from './failures.ts';
import type { PageSource } from './pageSource.ts';
import { SyncProgressMeter } from './progress.ts';
import { planRead, readUntilConsistent, type ResourceSync } from './read.ts';

/** Which views a sync refreshes, and where their outcomes and progress go. */
export interface ViewRefreshOptions {
  /** Ids of the saved views to refresh (each at most once). */
  ids: readonly string[];
  /** Called with each view's outcome as soon as its refresh has ended. */
  onViewRefreshed?: (refresh: ViewRefresh) => void;
  /** Progress of the refresh of one view (the resource is the view's). */
  onViewProgress?: (viewId: string, progress: SyncProgress) => void;
}

/** What a refresh shares with the sync it runs in. */
export interface ViewRunOptions {
  runId: string;
  /** Rows per request, 1–1000. */
  pageSize: number;
  concurrency?: number;
  signal?: AbortSignal;
  profileId?: string;
  accountId?: string | null;
  pageCharsBudget?: number;
  maxPasses?: number;
  progressIntervalMs?: number;
}

const done = new WeakMap<ViewRefreshOptions, Set<string>>();

function doneOf(views: ViewRefreshOptions): Set<string> {
  let set = done.get(views);
  if (!set) {
    set = new Set();
    done.set(views, set);
  }
  return set;
}

/**
 * Refreshes, one after the other, the views of `views` not refreshed yet whose resource is
 * `resource` (null: all of them), reporting each outcome. Stops at a cancel or rejected tokens,
 * reporting the views it leaves as cancelled.
 */
export async function refreshViews(db: Database.Database, source: PageSource, views: ViewRefreshOptions, options: ViewRunOptions, resource: Resource | null): Promise<void> {
  const finished = doneOf(views);
  for (const viewId of views.ids) {
    if (finished.has(viewId)) continue;
    const target = refreshTarget(db, viewId);
    if (resource !== null && target !== null && target.resource !== resource) continue;
    finished.add(viewId);
    const refresh = await refreshView(db, source, viewId, options, views.onViewProgress);
    views.onViewRefreshed?.(refresh);
    if (refresh.outcome === 'cancelled' || refresh.error?.code === 'AUTH_REJECTED') {
      skipViews(views, options.runId, refresh.error ?? { code: 'CANCELLED', message: 'The sync was cancelled.' });
      return;
    }
  }
}

/** Reports every view of `views` not refreshed yet as cancelled, with `why`. */
export function skipViews(views: ViewRefreshOptions, runId: string, why: { code: string; message: string }): void {
  const finished = doneOf(views);
  for (const viewId of views.ids) {
    if (finished.has(viewId)) continue;
    finished.add(viewId);
    views.onViewRefreshed?.({ viewId, runId, outcome: 'cancelled', membership: null, error: { code: why.code, message: `The view was not refreshed: ${why.message}` } });
  }
}

/** What the person still has when a refresh does not publish. */
function keptMembership(name: string, membership: ViewMembership | null): string {
  return membership ? `The previous members of view "${name}" are still shown.` : `View "${name}" has no members yet.`;
}

/**
 * Reads and publishes the membership of one view.
 * @returns its outcome; never throws (a failure is the outcome `failed` with its error)
 */
export async function refreshView(db: Database.Database, source: PageSource, viewId: string, options: ViewRunOptions, onProgress?: (viewId: string, progress: SyncProgress) => void): Promise<ViewRefresh> {
  const signal = options.signal ?? new AbortController().signal;
  const ended = (outcome: ViewRefresh['outcome'], error: ErrorPayload | null): ViewRefresh => ({
    viewId, runId: options.runId, outcome, membership: currentMembership(db, viewId), error: error && { code: error.code, message: error.message },
  });
  const target = refreshTarget(db, viewId);
  if (!target) return ended('failed', new LetterdeskError('NOT_FOUND', `There is no saved view with id ${viewId} in this profile's cache.`).toPayload());
  const { queryText } = target;
  if (queryText === null) return ended('failed', new LetterdeskError('VALIDATION', `View "${target.name}" has no service query: it has no members to read.`).toPayload());
  const startedMs = performance.now();
  const kept = keptMembership(target.name, currentMembership(db, viewId));
  const run: ResourceSync = {
    staging: new MembershipStaging(db, { viewId, resource: target.resource, queryText, accountId: options.accountId ?? null }),
    source, resource: target.resource, query: JSON.parse(queryText) as ViewServiceQuery, label: `view "${target.name}" (${target.resource})`,
    runId: options.runId, accountId: options.accountId ?? null, signal, startedMs,
    concurrency: concurrencyOf(options.concurrency), maxPasses: options.maxPasses ?? 5, pageCharsBudget: options.pageCharsBudget, kept,
    progress: new SyncProgressMeter({
      profileId: options.profileId ?? '', runId: options.runId, resource: target.resource, intervalMs: options.progressIntervalMs ?? 100,
      onProgress: onProgress && ((p) => onProgress(viewId, p)),
    }, startedMs),
    invalid: 0,
  };
  try {
    collectViewGarbage(db);
    run.progress.emit(true);
    const plan = planRead(run, options.pageSize);
    run.progress.setPhase('fetching');
    await readUntilConsistent(run, plan);
    if (signal.aborted) throw cancelled(kept);
    run.progress.setPhase('publishing');
    const request = source.describe?.(target.resource, 0, plan.pageSize, run.query ?? undefined) ?? '';
    const membership = publishMembership(db, { viewId, resource: target.resource, queryText, request });
    run.progress.published(membership.members);
    run.progress.setPhase('done');
    logger.info(`sync ${run.label}: ${membership.members} members published (${membership.newerThanMirror} newer than the mirror) in ${Math.round(performance.now() - startedMs)} ms`);
    return { viewId, runId: options.runId, outcome: 'succeeded', membership, error: null };
  } catch (error) {
    const payload = failurePayload(error, signal.aborted, kept);
    if (!isLetterdeskError(error)) logger.error(`sync ${run.label} failed`, error);
    if (payload.code === 'CANCELLED') return ended('cancelled', payload);
    try {
      recordRefreshFailure(db, viewId, queryText, payload);
    } catch (bookkeeping) {
      logger.error('sync: could not record the failed view refresh', bookkeeping);
    }
    return ended('failed', payload);
  }
}
