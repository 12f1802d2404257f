/**
 * The active profile's sync: its status (rows and age of each resource, where the copy came
 * from), the progress of a running sync and how each resource's part ended, and the calls that
 * start, cancel or redo one.
 */
import type { DataSource, Profile, SyncProgress, SyncRun, SyncStatus } from '../../../../shared/contract.ts';
import { joinSentences } from '../../../../shared/errors.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { call, errorText } from '../../lib/api.ts';
import { resourceTitle } from '../../lib/format.ts';
import type { Toast } from './toasts.svelte.ts';

/** The resources a sync reads, in the order it reads them (the core syncs contacts, then orders). */
const SYNC_ORDER: readonly Resource[] = ['contacts', 'orders'];

/** What the sync needs of the app. */
export interface SyncHost {
  /** The active profile, or null. */
  profile(): Profile | null;
  toast(kind: Toast['kind'], text: string): void;
  /** Re-reads the status, connectivity and credentials of the active profile. */
  refreshStatus(): Promise<void>;
}

/** The active profile's sync status and progress. */
export class SyncState {
  readonly #host: SyncHost;

  status = $state.raw<SyncStatus | null>(null);
  progress = $state.raw<Partial<Record<Resource, SyncProgress>>>({});
  /** Each resource of the running sync that has ended, with how it ended (its progress is gone then). */
  finished = $state.raw<Partial<Record<Resource, SyncRun>>>({});
  /** The run the progress and `finished` belong to; a new run id starts them afresh. */
  #runId: string | null = null;
  /** The last sync start error (BUSY, AUTH_MISSING…), shown in the Sync view. */
  error = $state<string | null>(null);
  /** Why the active profile's status could not be read (its cache is damaged, too new…); null once it is. */
  statusError = $state<string | null>(null);
  /** True while the first sync after "Explore with sample data" runs (welcome screen shows progress). */
  firstRun = $state(false);
  /**
   * A sync of the active profile is running: from its status, and from the sync's own start and
   * progress in between (so it shows even while the status cannot be read, as with a damaged cache
   * that the sync is replacing).
   */
  running = $state(false);

  /** Data age: the older of the two resources' last successful syncs (null when never synced). */
  dataAsOf = $derived.by(() => {
    const r = this.status?.resources;
    if (!r) return null;
    const times = [r.contacts.lastSyncedAt, r.orders.lastSyncedAt].filter((t): t is string => !!t);
    if (times.length === 0) return null;
    return times.sort()[0] ?? null;
  });

  /**
   * The cached copy was read from another address or account than the active profile names now
   * (the profile was edited since its last sync): the copy it came from, until a sync replaces it.
   * Sample-data profiles are left out: their local server moves port between launches.
   */
  otherSource = $derived.by((): DataSource | null => {
    const profile = this.#host.profile();
    const r = this.status?.resources;
    if (!profile || profile.sampleData || !r || this.status?.profileId !== profile.id) return null;
    const origin = URL.parse(profile.baseUrl)?.origin;
    if (origin === undefined) return null;
    for (const state of [r.contacts, r.orders]) {
      const s = state.source;
      if (s && state.rows > 0 && (s.origin !== origin || s.accountId !== profile.accountId)) return s;
    }
    return null;
  });

  hasData = $derived((this.status?.resources.contacts.rows ?? 0) + (this.status?.resources.orders.rows ?? 0) > 0 || this.dataAsOf !== null);

  /** Why Export cannot run yet (nothing is cached), or null. */
  exportUnavailable = $derived(this.hasData ? null : 'Nothing is cached yet: sync first, then export.');

  /**
   * Overall progress of the running sync, 0–1, or null when unknown. The app syncs both resources,
   * contacts first: each is half, a resource that has ended counts whole and one that has not
   * started yet (orders while contacts run) counts nothing.
   */
  progressFraction = $derived.by(() => {
    let done = 0;
    let known = false;
    for (const r of SYNC_ORDER) {
      const p = this.progress[r];
      if (p?.phase === 'done' || (!p && this.finished[r] !== undefined)) {
        done += 1;
        known = true;
      } else if (p && p.rowsTotal !== null && p.rowsTotal > 0) {
        done += Math.min(1, p.rowsDone / p.rowsTotal);
        known = true;
      }
    }
    return known ? done / SYNC_ORDER.length : null;
  });

  constructor(host: SyncHost) {
    this.#host = host;
  }

  /**
   * The resource a sync reads before `r` while that one has not ended (orders wait for contacts),
   * or undefined: what `r`'s progress card says before its own first event.
   */
  waitingFor(r: Resource): Resource | undefined {
    const before = SYNC_ORDER[SYNC_ORDER.indexOf(r) - 1];
    return before !== undefined && this.finished[before] === undefined ? before : undefined;
  }

  /** Another profile is active: nothing of the previous one's sync may show under its name. */
  reset(): void {
    this.status = null;
    this.error = null;
    this.statusError = null;
    this.running = false;
    this.progress = {};
    this.finished = {};
    this.#runId = null;
  }

  /** A progress event of the active profile's sync. */
  onProgress(p: SyncProgress): void {
    this.#enterRun(p.runId);
    this.progress = { ...this.progress, [p.resource]: p };
    this.running = true;
  }

  /** Events of a new run start `finished` afresh. */
  #enterRun(runId: string): void {
    if (runId === this.#runId) return;
    this.#runId = runId;
    this.finished = {};
  }

  /** One resource's part of a sync ended: a failure worth a toast says so; the status is read again. */
  onFinished(run: SyncRun): void {
    const rest = { ...this.progress };
    delete rest[run.resource];
    this.progress = rest;
    this.#enterRun(run.runId);
    this.finished = { ...this.finished, [run.resource]: run };
    // Unreachable service and rejected tokens are shown by the banner and status bar; a toast per
    // resource would only repeat them.
    const quiet = ['NETWORK_UNREACHABLE', 'TIMEOUT', 'AUTH_REJECTED', 'AUTH_MISSING'];
    if (run.outcome === 'failed' && run.error && !quiet.includes(run.error.code)) {
      // Says what it means for the data first (the copy on this computer, if any, is unchanged), then why.
      const name = resourceTitle(run.resource);
      const kept = this.status?.resources[run.resource].lastSyncedAt ? `${name} not updated; the previous copy is kept.` : `${name} not downloaded.`;
      this.#host.toast('error', joinSentences(kept, run.error.message));
    }
    void this.#host.refreshStatus().then(() => {
      if (this.running) return;
      this.firstRun = false;
      // The sync is over; the next one starts with nothing ended (its cards show only while it runs).
      this.finished = {};
      this.#runId = null;
    });
  }

  /** Starts a sync of both resources; a refusal is shown in {@link error} and a toast. */
  async start(): Promise<void> {
    this.error = null;
    try {
      await call('startSync', { resources: ['contacts', 'orders'] });
      this.running = true;
    } catch (error) {
      this.error = errorText(error);
      this.#host.toast('error', this.error);
    }
  }

  /** Cancels the running sync; a failure is shown in a toast. */
  async cancel(): Promise<void> {
    try {
      await call('cancelSync', {});
    } catch (error) {
      this.#host.toast('error', errorText(error));
    }
  }

  /** Deletes the cache and syncs afresh; a refusal is shown in {@link error}. */
  async clearAndResync(): Promise<void> {
    this.error = null;
    try {
      await call('clearCacheAndResync', {});
      this.running = true;
      await this.#host.refreshStatus();
    } catch (error) {
      this.error = errorText(error);
    }
  }
}
