/**
 * Sync runs of this process (DESIGN.md "Sync"): one at a time, started by the app (in the
 * background, announced as events) or the command line (awaited), with the same rules for both —
 * which tokens, where the service is, the cache created and migrated first, connectivity from
 * every request, tokens marked rejected after a 401/403.
 */
import { randomUUID } from 'node:crypto';
import { endsSync, historyRetentionDaysOf, readsKeptFilters, type Profile, type SyncProgress, type SyncRun } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewRefresh } from '../../../shared/views.ts';
import type { CredentialStore } from '../credentials/store.ts';
import { logger } from '../base/log.ts';
import { startSync } from '../sync/controller.ts';
import { refuseWhileSyncedElsewhere } from '../sync/lock.ts';
import type { CacheRegistry } from './caches.ts';
import type { ConnectivityMonitor } from './connectivity.ts';
import type { CoreOptions } from './options.ts';
import type { SampleApiRuntime } from './sampleApiRuntime.ts';
import type { ResolvedTokens, TokenSource } from './tokens.ts';

/** What {@link SyncRuns} works with. */
export interface SyncRunsDeps {
  options: CoreOptions;
  caches: CacheRegistry;
  tokens: TokenSource;
  credentials: CredentialStore;
  sampleApi: SampleApiRuntime;
  connectivity: ConnectivityMonitor;
}

/** Hooks of one sync, for a front end that shows it its own way (the command line's progress bar). */
export interface SyncHooks {
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Saved views whose memberships are read in this run (each after its resource's run). @default
   * every view of a synced resource that has a service query and refreshes after a sync
   */
  views?: string[];
  /** Each view's read as it ends (also announced as `viewRefreshed`). */
  onViewRefreshed?: (refresh: ViewRefresh) => void;
}

/** A sync that has started. */
export interface StartedSync {
  runId: string;
  /**
   * Settles with one run per resource attempted when the sync has ended and released its lock.
   * @throws LetterdeskError when the sync process could not run at all (BUSY from another
   *   process's lock, CACHE_DAMAGED, INTERNAL); those runs are announced as failed too
   */
  done: Promise<SyncRun[]>;
}

/** The syncs of this process: at most one runs at a time. */
export class SyncRuns {
  readonly #deps: SyncRunsDeps;
  #current: { profileId: string; runId: string; abort: AbortController } | null = null;
  /** Settles when the last sync started has ended and released its lock (`close` waits for it). */
  #ended: Promise<unknown> = Promise.resolve();

  constructor(deps: SyncRunsDeps) {
    this.#deps = deps;
  }

  /** Whether a sync of this process runs. */
  get running(): boolean {
    return this.#current !== null;
  }

  /** Whether a sync of this process runs for `profileId`. */
  runningFor(profileId: string): boolean {
    return this.#current?.profileId === profileId;
  }

  /** Settles when the last sync started has ended (never rejects). */
  get ended(): Promise<void> {
    return this.#ended.then(() => undefined, () => undefined);
  }

  /** Base URL for requests: sample profiles follow the embedded server wherever it listens. */
  baseUrlFor(profile: Profile): Promise<string> {
    return profile.sampleData ? this.#deps.sampleApi.ensure() : Promise.resolve(profile.baseUrl);
  }

  /**
   * Starts a sync of `resources` of `profile`. Each resource's run is announced (`syncFinished`,
   * then `cacheChanged` when published) as soon as it has ended, so the page shows contacts while
   * orders are still read; progress goes to `syncProgress` events, the taskbar and `hooks`.
   * @returns once the sync has started: its run id and a promise of its runs
   * @throws LetterdeskError BUSY when a sync runs (here, or in another process for this profile);
   *   AUTH_MISSING / KEYCHAIN_UNAVAILABLE without tokens; the cache's open errors
   */
  async start(profile: Profile, resources: Resource[], hooks: SyncHooks = {}): Promise<StartedSync> {
    const { options, caches, connectivity } = this.#deps;
    if (this.#current) throw new LetterdeskError('BUSY', 'A sync is already running. Wait for it to finish or cancel it.');
    refuseWhileSyncedElsewhere(options.dataDir, profile.id);
    const runId = randomUUID();
    const abort = new AbortController();
    const onCallerAbort = () => abort.abort();
    hooks.signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (hooks.signal?.aborted) abort.abort();
    this.#current = { profileId: profile.id, runId, abort };
    let resolved: ResolvedTokens;
    let baseUrl: string;
    try {
      resolved = await this.#deps.tokens.resolve(profile);
      baseUrl = await this.baseUrlFor(profile);
    } catch (error) {
      this.#finish(hooks, onCallerAbort);
      const code = (error as { code?: string }).code ?? 'INTERNAL';
      connectivity.failed(profile.id, code, (error as Error).message);
      throw error;
    }
    let views: string[];
    try {
      const cache = await caches.open(profile, { retry: true }); // migrations run before the sync process opens the file
      views = hooks.views ?? (await cache.listViews()).filter((v) => v.serviceQuery !== null && v.refreshAfterSync && resources.includes(v.resource)).map((v) => v.id);
    } catch (error) {
      this.#finish(hooks, onCallerAbort);
      throw error;
    }
    const announce = this.#announcer(profile);
    const progress = new Map<Resource, { done: number; total: number | null }>();
    const done = startSync({
      runId,
      profileId: profile.id,
      ...(options.platform.launchSyncProcess ? { launcher: options.platform.launchSyncProcess } : {}),
      ...(options.syncProcessUrl ? { processUrl: options.syncProcessUrl } : {}),
      ...(options.onSyncProcessStart ? { onProcessStart: options.onSyncProcessStart } : {}),
      ...(options.onSyncProcessEnd ? { onProcessEnd: options.onSyncProcessEnd } : {}),
      onOutcome: (outcome) => {
        if (outcome === 'ok') connectivity.succeeded(profile.id);
        else if (outcome === 'AUTH_REJECTED' || outcome === 'NETWORK_UNREACHABLE' || outcome === 'TIMEOUT') connectivity.failed(profile.id, outcome, null);
      },
      cacheFile: caches.fileOf(profile.id),
      baseUrl,
      tokens: resolved.tokens,
      accountId: profile.accountId,
      pageSize: profile.pageSize,
      previews: profile.previews !== false,
      keptFilters: readsKeptFilters(profile),
      historyRetentionDays: historyRetentionDaysOf(profile),
      ...(profile.queryEncoding ? { encoding: profile.queryEncoding } : {}),
      resources,
      views,
      onViewRefreshed: (refresh) => {
        options.emit('viewRefreshed', refresh);
        options.emit('viewsChanged', { profileId: profile.id });
        hooks.onViewRefreshed?.(refresh);
      },
      onViewProgress: (viewId, p) => options.emit('viewProgress', { ...p, profileId: profile.id, runId, viewId }),
      signal: abort.signal,
      // A run with another resource still to read is announced at once: the page shows its rows,
      // or its error, while the next one is read. The last run, and one that ends the sync, is
      // announced once the sync has ended: a status asked for in answer to it then says "not running".
      onRun: (run) => {
        if (!endsSync(run) && run.resource !== resources.at(-1)) announce(run);
      },
      onProgress: (p) => {
        options.emit('syncProgress', { ...p, profileId: profile.id, runId });
        hooks.onProgress?.(p);
        progress.set(p.resource, { done: p.rowsDone, total: p.rowsTotal });
        let rowsDone = 0;
        let rowsTotal = 0;
        for (const t of progress.values()) {
          rowsDone += t.done;
          rowsTotal += t.total ?? 0;
        }
        options.platform.setProgress(rowsTotal > 0 ? rowsDone / rowsTotal : null);
      },
    })
      .then((runs) => {
        this.#finish(hooks, onCallerAbort);
        for (const run of runs) announce(run);
        // The kept filters were read after every resource: a resource announced while the next one
        // was read changed again (its kept members), so the page reads its counts again.
        const earlier = runs.filter((r) => r.outcome === 'succeeded' && r.resource !== resources.at(-1)).map((r) => r.resource);
        if (readsKeptFilters(profile) && earlier.length > 0) options.emit('cacheChanged', { profileId: profile.id, resources: earlier });
        // A run whose records kept changing (DRIFT) had every request answered: the per-request
        // outcomes have already said the service is online, and its failure says nothing about it.
        const failed = runs.find((r) => r.outcome === 'failed' && r.error?.code !== 'DRIFT');
        if (failed?.error) {
          if (failed.error.code === 'AUTH_REJECTED') this.#markRejected(profile, resolved);
          connectivity.failed(profile.id, failed.error.code, failed.error.message);
        } else if (runs.some((r) => r.outcome === 'succeeded')) {
          connectivity.succeeded(profile.id);
        }
        return runs;
      })
      .catch((error: unknown) => {
        this.#finish(hooks, onCallerAbort);
        if ((error as { code?: string }).code === undefined) logger.error('sync failed unexpectedly', error);
        else logger.warn('sync could not run', error);
        const code = (error as { code?: string }).code ?? 'INTERNAL';
        if (code === 'AUTH_REJECTED') this.#markRejected(profile, resolved);
        connectivity.failed(profile.id, code, (error as Error).message);
        const now = new Date().toISOString();
        for (const resource of resources) {
          announce({ runId, resource, startedAt: now, endedAt: now, outcome: code === 'CANCELLED' ? 'cancelled' : 'failed', rows: 0, invalidRecords: 0, error: { code: code as never, message: (error as Error).message } });
        }
        throw error;
      })
      .finally(() => options.platform.setProgress(null));
    this.#ended = done.catch(() => {});
    return { runId, done };
  }

  /** Cancels the running sync. @returns false when none runs */
  cancel(): boolean {
    if (!this.#current) return false;
    this.#current.abort.abort();
    return true;
  }

  #finish(hooks: SyncHooks, onCallerAbort: () => void): void {
    this.#current = null;
    hooks.signal?.removeEventListener('abort', onCallerAbort);
  }

  /** Only tokens from the credential store are marked: the environment's and a prompt's are not kept. */
  #markRejected(profile: Profile, resolved: ResolvedTokens): void {
    if (resolved.from === 'store') void this.#deps.credentials.markRejected(profile.id, resolved.tokens.accessToken).catch(() => {});
  }

  /** Announces each resource's run once: `syncFinished`, then `cacheChanged` if it was published. */
  #announcer(profile: Profile): (run: SyncRun) => void {
    const announced = new Set<Resource>();
    return (run) => {
      if (announced.has(run.resource)) return;
      announced.add(run.resource);
      this.#deps.options.emit('syncFinished', run);
      if (run.outcome === 'succeeded') this.#deps.options.emit('cacheChanged', { profileId: profile.id, resources: [run.resource] });
    };
  }
}
