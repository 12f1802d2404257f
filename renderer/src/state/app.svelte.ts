/**
 * Application-wide state: profiles, the active view, sync status and progress, connectivity,
 * credentials, the two list models and the profile's saved views. One instance, created by
 * App.svelte.
 */
import type {
  Connectivity,
  CredentialStatus,
  DataSource,
  Profile,
  SaveProfileInput,
  ProfileList,
  SyncProgress,
  SyncRun,
  SyncStatus,
} from '../../../shared/contract.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { bridge, call, errorText } from '../lib/api.ts';
import { formatWhen, resourceTitle } from '../lib/format.ts';
import { loadSetting, saveSetting } from '../lib/storage.ts';
import type { ListSnapshot } from './listModel.svelte.ts';
import { createContactsModel, createOrdersModel, type ContactFilters, type OrderFilters } from './models.ts';
import { NavigationHistory, type Place } from './navigation.svelte.ts';
import { SavedViews } from './savedViews.svelte.ts';
import { createCampaignsModel, createTemplatesModel } from './summaries.svelte.ts';
import { UiLayout } from './uiLayout.svelte.ts';
import type { ContactSortColumn, OrderSortColumn } from '../../../shared/query.ts';

export const VIEWS = ['contacts', 'orders', 'templates', 'campaigns', 'sync', 'profiles'] as const;
export type ViewName = (typeof VIEWS)[number];

/** A short message shown in the corner for a few seconds. */
export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  action?: { label: string; run: () => void };
}

/** The status line: what the user should know about reachability and data age. */
export interface StatusLine {
  tone: 'ok' | 'muted' | 'warn' | 'error';
  text: string;
  action: 'profiles' | 'sync' | null;
}

/** A long piece of work the page does (copying many rows), shown in the status bar with its progress. */
export interface PageTask {
  label: string;
  done: number;
  total: number;
  cancel: () => void;
}

/** Where Back returns to. */
export type AppPlace = Place<ViewName, ListSnapshot<ContactFilters, ContactSortColumn>, ListSnapshot<OrderFilters, OrderSortColumn>>;

/** What a followed link to a contact knows of it, to find it when it is not in the table as it stands. */
export interface ContactHint {
  fullName: string;
  email: string;
}

/** An orders view limited to one template's or campaign's orders. */
export type SummaryScope = { templateId: string } | { campaignId: string };

/** The resources a sync reads, in the order it reads them (the core syncs contacts, then orders). */
const SYNC_ORDER: readonly Resource[] = ['contacts', 'orders'];

/** The whole app's state. */
export class AppState {
  ready = $state(false);
  /** Set when the app could not start (no bridge, profile list unreadable). */
  fatal = $state<string | null>(null);

  profiles = $state.raw<Profile[]>([]);
  activeProfileId = $state<string | null>(null);
  view = $state<ViewName>('contacts');

  syncStatus = $state.raw<SyncStatus | null>(null);
  progress = $state.raw<Partial<Record<Resource, SyncProgress>>>({});
  /** Each resource of the running sync that has ended, with how it ended (its progress is gone then). */
  finished = $state.raw<Partial<Record<Resource, SyncRun>>>({});
  /** The run the progress and `finished` belong to; a new run id starts them afresh. */
  #runId: string | null = null;
  connectivity = $state.raw<Connectivity | null>(null);
  credentials = $state.raw<CredentialStatus | null>(null);
  /** The last sync start error (BUSY, AUTH_MISSING…), shown in the Sync view. */
  syncError = $state<string | null>(null);
  /** Why the active profile's status could not be read (its cache is damaged, too new…); null once it is. */
  statusError = $state<string | null>(null);
  toasts = $state<Toast[]>([]);
  /** Bumped whenever the active profile's cache publishes new data: open details read their record again. */
  cacheRevision = $state(0);
  /** True while the first sync after "Explore with sample data" runs (welcome screen shows progress). */
  firstRun = $state(false);

  readonly contacts = createContactsModel();
  readonly orders = createOrdersModel();
  /** The Templates view's list (templates of the cached orders). */
  readonly templates = createTemplatesModel();
  /** The Campaigns view's list (the cached orders grouped by campaign). */
  readonly campaigns = createCampaignsModel();
  /** Names of the templates and campaigns an orders view was scoped to, by `template:<id>` / `campaign:<id>`. */
  summaryNames = $state<Record<string, string>>({});
  /** The active profile's saved views. */
  readonly views = new SavedViews();
  /** Pane sizes and the sidebar. */
  readonly layout = new UiLayout();
  /** Back and Forward. */
  readonly history: NavigationHistory<ViewName, AppPlace['contacts'], AppPlace['orders']> = new NavigationHistory(this);
  /** Long work of the page in progress (copying many rows), or null. */
  task = $state.raw<PageTask | null>(null);
  /** Names of contacts the orders view was scoped to ("orders that include Jane Doe"), by id. */
  contactNames = $state<Record<string, string>>({});

  activeProfile = $derived(this.profiles.find((p) => p.id === this.activeProfileId) ?? null);
  /**
   * A sync of the active profile is running: from its status, and from the sync's own start and
   * progress in between (so it shows even while the status cannot be read, as with a damaged cache
   * that the sync is replacing).
   */
  running = $state(false);

  /** Data age: the older of the two resources' last successful syncs (null when never synced). */
  dataAsOf = $derived.by(() => {
    const r = this.syncStatus?.resources;
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
    const profile = this.activeProfile;
    const r = this.syncStatus?.resources;
    if (!profile || profile.sampleData || !r || this.syncStatus?.profileId !== profile.id) return null;
    const origin = URL.parse(profile.baseUrl)?.origin;
    if (origin === undefined) return null;
    for (const state of [r.contacts, r.orders]) {
      const s = state.source;
      if (s && state.rows > 0 && (s.origin !== origin || s.accountId !== profile.accountId)) return s;
    }
    return null;
  });

  hasData = $derived((this.syncStatus?.resources.contacts.rows ?? 0) + (this.syncStatus?.resources.orders.rows ?? 0) > 0 || this.dataAsOf !== null);

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

  /**
   * The resource a sync reads before `r` while that one has not ended (orders wait for contacts),
   * or undefined: what `r`'s progress card says before its own first event.
   */
  waitingFor(r: Resource): Resource | undefined {
    const before = SYNC_ORDER[SYNC_ORDER.indexOf(r) - 1];
    return before !== undefined && this.finished[before] === undefined ? before : undefined;
  }

  /**
   * What the status bar, the banner and an empty view call a service the app cannot use: "Offline"
   * (no answer at all), "Service unavailable" (it answers, but with server errors, rate limits or
   * something that is not its API; the Sync view shows the exact error), or null.
   */
  outage = $derived(this.connectivity?.state === 'offline' ? 'Offline' : this.connectivity?.state === 'unreachable' ? 'Service unavailable' : null);

  statusLine = $derived.by((): StatusLine => {
    const c = this.connectivity;
    const asOf = this.dataAsOf;
    const when = asOf ? formatWhen(asOf) : null;
    if (!this.activeProfile) return { tone: 'muted', text: 'No profile', action: 'profiles' };
    if (c?.state === 'auth-needed' || this.credentials?.rejected)
      return { tone: 'error', text: 'Token rejected — open Profiles to enter a new one', action: 'profiles' };
    if (this.outage) return { tone: 'warn', text: when ? `${this.outage} — showing data from ${when}` : `${this.outage} — nothing cached yet`, action: 'sync' };
    if (c?.state === 'online') return { tone: 'ok', text: when ? `Online · synced ${when}` : 'Online · not synced yet', action: null };
    return { tone: 'muted', text: when ? `Synced ${when}` : 'Not synced yet', action: null };
  });

  #unsubscribe: (() => void)[] = [];
  #toastId = 0;

  /** Loads profiles and status and subscribes to main's events. */
  async init(): Promise<void> {
    const b = bridge();
    if (!b) {
      this.fatal = 'Letterdesk’s background service is not connected. Restart Letterdesk.';
      return;
    }
    this.#unsubscribe.push(
      b.on('profilesChanged', (list) => this.#applyProfiles(list)),
      b.on('syncProgress', (p) => this.#onProgress(p)),
      b.on('syncFinished', (run) => this.#onFinished(run)),
      b.on('connectivityChanged', (c) => {
        if (c.profileId === null || c.profileId === this.activeProfileId) this.connectivity = c;
      }),
      b.on('cacheChanged', (e) => {
        if (e.profileId !== this.activeProfileId) return;
        this.cacheRevision++;
        // The templates and campaigns are groups of the orders.
        if (e.resources.includes('orders')) {
          for (const summary of [this.templates, this.campaigns]) if (summary.loaded) void summary.refresh();
        }
        for (const r of e.resources) {
          const model = this.list(r);
          void model.refresh(true);
          // A new mirror holds some members that were newer than the last one.
          if (model.viewId !== null) void this.views.loadNewer(model.viewId);
        }
        void this.refreshStatus();
      }),
      b.on('viewsChanged', (e) => {
        if (e.profileId === this.activeProfileId) void this.#loadViews();
      }),
      b.on('viewProgress', (p) => this.views.onProgress(p)),
      b.on('viewRefreshed', (r) => {
        this.views.onRefreshed(r);
        for (const model of [this.contacts, this.orders]) {
          if (model.viewId !== r.viewId || r.outcome !== 'succeeded') continue;
          void model.refresh(true);
          void this.views.loadNewer(r.viewId);
        }
        // A read of views alone announces no resource's end: the status says when its run is over.
        if (Object.keys(this.progress).length === 0) void this.#statusAfterViews();
      }),
    );
    try {
      const list = await call('listProfiles', {});
      this.#applyProfiles(list, true);
      await this.refreshStatus();
    } catch (error) {
      this.fatal = errorText(error);
    }
    this.ready = true;
  }

  /** Unsubscribes from events (tests, hot reload). */
  dispose(): void {
    for (const u of this.#unsubscribe) u();
    this.#unsubscribe = [];
  }

  #applyProfiles(list: ProfileList, initial = false): void {
    this.profiles = list.profiles;
    // A damaged profiles file was moved aside at start: say so once, with where it went.
    if (initial && list.loadProblem) this.toast('error', list.loadProblem, { label: 'Open Profiles', run: () => this.setView('profiles') });
    if (list.activeProfileId !== this.activeProfileId || initial) {
      this.activeProfileId = list.activeProfileId;
      // Nothing of the previous profile may show under this one's name while its status is read.
      this.syncStatus = null;
      this.credentials = null;
      this.syncError = null;
      this.statusError = null;
      this.running = false;
      this.progress = {};
      this.finished = {};
      this.#runId = null;
      this.view = list.activeProfileId ? loadSetting<ViewName>(`profile:${list.activeProfileId}:view`, 'contacts') : 'contacts';
      if (!VIEWS.includes(this.view)) this.view = 'contacts';
      this.contacts.useProfile(list.activeProfileId);
      this.orders.useProfile(list.activeProfileId);
      this.templates.useProfile(list.activeProfileId);
      this.campaigns.useProfile(list.activeProfileId);
      this.summaryNames = {};
      this.history.clear();
      void this.#loadViews();
      if (!initial) void this.refreshStatus();
    }
  }

  /** Re-reads sync status, connectivity and credential status of the active profile. */
  async refreshStatus(): Promise<void> {
    const id = this.activeProfileId;
    if (!id) {
      this.syncStatus = null;
      this.credentials = null;
      this.running = false;
      return;
    }
    try {
      const [status, creds] = await Promise.all([call('getSyncStatus', {}), call('getCredentialStatus', { profileId: id })]);
      if (id !== this.activeProfileId) return;
      this.syncStatus = status;
      this.running = status.running;
      if (!status.running) this.views.settle();
      this.connectivity = status.connectivity;
      this.credentials = creds;
      this.statusError = null;
    } catch (error) {
      if (id === this.activeProfileId) this.statusError = errorText(error);
    }
  }

  #onProgress(p: SyncProgress): void {
    if (p.profileId !== this.activeProfileId) return;
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

  #onFinished(run: SyncRun): void {
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
      const kept = this.syncStatus?.resources[run.resource].lastSyncedAt ? `${name} not updated; the previous copy is kept.` : `${name} not downloaded.`;
      this.toast('error', `${kept} ${run.error.message}`);
    }
    void this.refreshStatus().then(() => {
      if (this.running) return;
      this.firstRun = false;
      // The sync is over; the next one starts with nothing ended (its cards show only while it runs).
      this.finished = {};
      this.#runId = null;
    });
  }

  /**
   * Switches the main view and remembers it for this profile.
   * @param record Back returns to the view left (false while a link or Back itself switches)
   */
  setView(view: ViewName, record = true): void {
    if (view !== this.view && record) this.history.record();
    this.view = view;
    if (this.activeProfileId) saveSetting(`profile:${this.activeProfileId}:view`, view);
  }

  /** The list model of a resource. */
  list(resource: Resource): AppState['contacts'] | AppState['orders'] {
    return resource === 'contacts' ? this.contacts : this.orders;
  }

  /**
   * Shows a resource's table: every record (`viewId` null), or the members of a saved view with
   * its settings applied. Back returns to where the person was.
   */
  async openList(resource: Resource, viewId: string | null): Promise<void> {
    const model = this.list(resource);
    if (this.view === resource && model.viewId === viewId) return;
    const view = this.views.byId(viewId);
    if (viewId !== null && !view) return;
    this.history.record();
    this.setView(resource, false);
    if (!view) {
      await model.leaveView();
      return;
    }
    void this.views.loadNewer(view.id);
    await model.openView(view.id, view.settings);
  }

  /** Reads the profile's views; an open view that no longer exists gives way to the full table. */
  async #loadViews(): Promise<void> {
    const list = await this.views.load(this.activeProfileId);
    if (!list) return;
    for (const model of [this.contacts, this.orders]) {
      if (model.viewId !== null && !list.some((v) => v.id === model.viewId)) {
        this.toast('info', 'The view on screen was deleted; showing every record.');
        void model.leaveView();
      }
    }
  }

  /** Re-reads the status until the run that read views has ended (a few seconds at most). */
  async #statusAfterViews(): Promise<void> {
    for (let i = 0; i < 40; i++) {
      await this.refreshStatus();
      if (!this.running || Object.keys(this.progress).length > 0) return;
      await new Promise((done) => setTimeout(done, 250));
    }
  }

  /** Where the person is: the view, and both tables' search, filters, selection and scroll position. */
  capture(): AppPlace {
    return { view: this.view, contacts: this.contacts.snapshot(), orders: this.orders.snapshot() };
  }

  /** Puts the person back where they were (Back, Forward). */
  async restore(place: AppPlace): Promise<void> {
    this.setView(place.view, false);
    // A place in a view deleted since is the full table's.
    const live = <S extends { viewId: string | null; savedSettings: string | null }>(snap: S): S =>
      snap.viewId !== null && !this.views.byId(snap.viewId) ? { ...snap, viewId: null, savedSettings: null } : snap;
    await Promise.all([this.contacts.restore(live(place.contacts)), this.orders.restore(live(place.orders))]);
  }

  /**
   * Follows a link to an order: the orders view with the order selected, scrolled to and open. When
   * the orders view as it stands does not show it, it is scoped to the orders of `via` (the contact
   * whose detail the link was in).
   */
  async openOrder(orderId: string, via?: { id: string; name: string }): Promise<void> {
    this.history.record();
    this.setView('orders', false);
    if (await this.orders.reveal(orderId)) return;
    if (via) {
      this.contactNames = { ...this.contactNames, [via.id]: via.name };
      await this.orders.setScope({ contactId: via.id });
      if (await this.orders.reveal(orderId)) return;
    }
    this.orders.openDetail(orderId);
  }

  /**
   * Follows a link to a contact: the contacts view with the contact selected, scrolled to and open.
   * When the view as it stands does not show it, it searches for the contact's email (or name).
   */
  async openContact(contactId: string, hint?: ContactHint): Promise<void> {
    this.history.record();
    this.setView('contacts', false);
    if (await this.contacts.reveal(contactId)) return;
    const search = hint?.email || hint?.fullName;
    if (search) {
      await this.contacts.setScope({}, search);
      if (await this.contacts.reveal(contactId)) return;
    }
    this.contacts.openDetail(contactId);
  }

  /** The orders view scoped to the orders that include a contact (named in its strip). */
  async showOrdersOf(contactId: string, name: string): Promise<void> {
    this.history.record();
    this.contactNames = { ...this.contactNames, [contactId]: name };
    this.setView('orders', false);
    this.orders.closeDetail();
    await this.orders.setScope({ contactId });
  }

  /**
   * The orders view limited to one template's or campaign's orders (named in its strip).
   * @param name what the strip calls it (the template's title, the campaign's name)
   */
  async showOrdersOfSummary(scope: SummaryScope, name: string): Promise<void> {
    this.history.record();
    this.summaryNames = { ...this.summaryNames, [summaryKey(scope)]: name };
    this.setView('orders', false);
    this.orders.closeDetail();
    await this.orders.setScope({ ...scope });
  }

  /**
   * Follows a link to an order from a template's or campaign's detail: the orders view with the
   * order open, scoped to that template's or campaign's orders when the view as it stands does not
   * show it.
   */
  async openOrderOf(orderId: string, scope: SummaryScope, name: string): Promise<void> {
    this.history.record();
    this.setView('orders', false);
    if (await this.orders.reveal(orderId)) return;
    this.summaryNames = { ...this.summaryNames, [summaryKey(scope)]: name };
    await this.orders.setScope({ ...scope });
    if (await this.orders.reveal(orderId)) return;
    this.orders.openDetail(orderId);
  }

  /** Starts a sync of both resources. */
  async startSync(): Promise<void> {
    this.syncError = null;
    try {
      await call('startSync', { resources: ['contacts', 'orders'] });
      this.running = true;
    } catch (error) {
      this.syncError = errorText(error);
      this.toast('error', this.syncError);
    }
  }

  async cancelSync(): Promise<void> {
    try {
      await call('cancelSync', {});
    } catch (error) {
      this.toast('error', errorText(error));
    }
  }

  async clearCacheAndResync(): Promise<void> {
    this.syncError = null;
    try {
      await call('clearCacheAndResync', {});
      this.running = true;
      await this.refreshStatus();
    } catch (error) {
      this.syncError = errorText(error);
    }
  }

  /** First run: creates the sample profile, switches to it and syncs. */
  async exploreSample(): Promise<void> {
    this.firstRun = true;
    try {
      const profile = await call('createSampleProfile', {});
      const list = await call('useProfile', { profileId: profile.id });
      this.#applyProfiles(list);
      await this.refreshStatus();
      await this.startSync();
    } catch (error) {
      this.firstRun = false;
      this.toast('error', errorText(error));
    }
  }

  /** Makes a profile active. */
  async useProfile(profileId: string): Promise<void> {
    try {
      this.#applyProfiles(await call('useProfile', { profileId }));
    } catch (error) {
      this.toast('error', errorText(error));
    }
  }

  /** Creates or updates a profile (with its tokens, when given); returns it. @throws DisplayError */
  async saveProfile(input: SaveProfileInput): Promise<Profile> {
    const profile = await call('saveProfile', input);
    this.#applyProfiles(await call('listProfiles', {}));
    return profile;
  }

  /** Removes a profile (optionally its cache). */
  async removeProfile(profileId: string, purgeCache: boolean): Promise<void> {
    const list = await call('removeProfile', { profileId, purgeCache });
    this.#applyProfiles(list);
    if (list.credentialsProblem) this.toast('error', `The profile was removed, but its tokens may still be in the keychain. ${list.credentialsProblem}`);
  }

  /** Shows a transient message. */
  toast(kind: Toast['kind'], text: string, action?: Toast['action']): void {
    const id = ++this.#toastId;
    this.toasts = [...this.toasts, { id, kind, text, action }];
    setTimeout(() => this.dismissToast(id), kind === 'error' ? 9000 : 5000);
  }

  dismissToast(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }
}

/** The key of a scope's name in {@link AppState.summaryNames}. */
export function summaryKey(scope: SummaryScope): string {
  return 'templateId' in scope ? `template:${scope.templateId}` : `campaign:${scope.campaignId}`;
}
