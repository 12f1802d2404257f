/**
 * Reading the kept filters' memberships after a sync (shared/keptFilters.ts): each kept value of a
 * resource synced now is read with its own service query by the sync's read steps (read.ts: every
 * page, retries, drift check and re-read, cancel), staged like a saved view's membership and
 * published in one transaction (cache/savedViews/kept.ts). They run after every resource of the
 * sync is published, so they never delay the records. A date preset's range is computed from the
 * local day of the read, so "last 30 days" rolls forward with every sync. A read that fails keeps
 * the previous members and records why; the next value is still read, unless the tokens were
 * rejected or the sync was cancelled.
 */
import type Database from 'better-sqlite3';
import { keptParamSpec, keptServiceQuery, keptValueName, localDay } from '../../../shared/keptFilters.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../../shared/views.ts';
import { logger } from '../base/log.ts';
import { keptStagingId, keptTargets, publishKept, recordKeptFailure, type KeptTarget } from '../cache/savedViews/kept.ts';
import { MembershipStaging } from '../cache/savedViews/staging.ts';
import { concurrencyOf } from './decisions.ts';
import { cancelled, failurePayload } from './failures.ts';
import type { PageSource } from './pageSource.ts';
import { SyncProgressMeter } from './progress.ts';
import { planRead, readUntilConsistent, type ResourceSync } from './read.ts';

/** What the reads share with the sync they follow. */
export interface KeptReadOptions {
  runId: string;
  /** Rows per request, 1–1000. */
  pageSize: number;
  concurrency?: number;
  signal?: AbortSignal;
  accountId?: string | null;
  pageCharsBudget?: number;
  maxPasses?: number;
  /** The local day presets are computed from (YYYY-MM-DD). @default today in this process's time zone */
  today?: string;
}

/** How the read of one kept value ended. */
export interface KeptReadOutcome {
  target: KeptTarget;
  outcome: 'succeeded' | 'failed' | 'cancelled';
  /** Members the mirror holds after a success. */
  members: number | null;
  error: { code: string; message: string } | null;
}

/**
 * Reads every kept value of `resources`, one after the other.
 * @returns each value's outcome, in the order read; stops at a cancel or rejected tokens (the
 *   values left are not read and keep their members)
 */
export async function refreshKeptFilters(db: Database.Database, source: PageSource, resources: readonly Resource[], options: KeptReadOptions): Promise<KeptReadOutcome[]> {
  const outcomes: KeptReadOutcome[] = [];
  const today = options.today ?? localDay(new Date());
  for (const resource of resources) {
    for (const target of keptTargets(db, resource)) {
      if (options.signal?.aborted) return outcomes;
      const outcome = await readKept(db, source, target, today, options);
      outcomes.push(outcome);
      if (outcome.outcome === 'cancelled' || outcome.error?.code === 'AUTH_REJECTED') return outcomes;
    }
  }
  return outcomes;
}

/** Reads and publishes one kept value; never throws (a failure is its outcome). */
async function readKept(db: Database.Database, source: PageSource, target: KeptTarget, today: string, options: KeptReadOptions): Promise<KeptReadOutcome> {
  const signal = options.signal ?? new AbortController().signal;
  const label = `kept filter ${target.param}=${target.value} (${target.resource})`;
  const title = keptParamSpec(target.resource, target.param)?.title ?? target.param;
  const kept = `${title} "${keptValueName(target.param, target.value)}" keeps the ${target.resource} its last read found.`;
  let query: ViewServiceQuery;
  try {
    query = keptServiceQuery(target.resource, target.param, target.value, today) as ViewServiceQuery;
  } catch (error) {
    // A value kept by an older version that this one no longer accepts: reported, never sent.
    const failure = { code: 'VALIDATION', message: (error as Error).message };
    recordKeptFailure(db, target, failure);
    return { target, outcome: 'failed', members: null, error: failure };
  }
  const queryText = JSON.stringify(query);
  const asOfDay = keptParamSpec(target.resource, target.param)?.kind === 'date' ? today : null;
  const startedMs = performance.now();
  const run: ResourceSync = {
    staging: new MembershipStaging(db, { viewId: keptStagingId(target.fid), resource: target.resource, queryText, accountId: options.accountId ?? null }),
    source, resource: target.resource, query, label, runId: options.runId, accountId: options.accountId ?? null, signal, startedMs,
    concurrency: concurrencyOf(options.concurrency), maxPasses: options.maxPasses ?? 5, pageCharsBudget: options.pageCharsBudget, kept,
    progress: new SyncProgressMeter({ profileId: '', runId: options.runId, resource: target.resource, intervalMs: 1000 }, startedMs),
    invalid: 0,
  };
  try {
    const plan = planRead(run, options.pageSize);
    await readUntilConsistent(run, plan);
    if (signal.aborted) throw cancelled(kept);
    const members = publishKept(db, { target, queryText, asOfDay });
    logger.info(`sync ${label}: ${members} members kept in ${Math.round(performance.now() - startedMs)} ms`);
    return { target, outcome: 'succeeded', members, error: null };
  } catch (error) {
    const payload = failurePayload(error, signal.aborted, kept);
    const failure = { code: payload.code, message: payload.message.includes(kept) ? payload.message : `${payload.message} ${kept}` };
    if (payload.code !== 'CANCELLED') logger.warn(`sync ${label} failed: ${payload.message}`);
    try {
      if (payload.code === 'CANCELLED') run.staging.clear();
      else recordKeptFailure(db, target, failure);
    } catch (bookkeeping) {
      logger.error('sync: could not record the failed read of a kept filter', bookkeeping);
    }
    return { target, outcome: payload.code === 'CANCELLED' ? 'cancelled' : 'failed', members: null, error: failure };
  }
}
