/**
 * Application-wide state, composed of one class per topic under app/: the profiles (`Profiles`),
 * the sync's status and progress (`SyncState`), reachability and credentials
 * (`ConnectivityState`), the toasts (`Toasts`) and the moves between views (`Links`); and the
 * view on screen, the two list models, the summaries and the profile's saved views. This class
 * applies main's events and answers to all of them. One instance, created by App.svelte.
 */
import { withLearnedNames, type LearnedStatusNames, type StatusNames } from '../../../shared/statusCodes.ts';
import type { Profile, ProfileList, SaveProfileInput } from '../../../shared/contract.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { bridge, call, errorText } from '../lib/api.ts';
import { ConnectivityState } from './app/connectivity.svelte.ts';
import { Links, VIEWS, type AppPlace, type ViewName } from './app/links.svelte.ts';
import { Profiles } from './app/profiles.svelte.ts';
import { SyncState } from './app/sync.svelte.ts';
import { Toasts, type Toast } from './app/toasts.svelte.ts';
import { createContactsModel, createOrdersModel } from './models.ts';
import { NavigationHistory } from './navigation.svelte.ts';
import { LabelsState } from './labels.svelte.ts';
import { ReportState } from './report.svelte.ts';
import { OverviewState } from './overview.svelte.ts';
import { DuplicatesState } from './duplicates.svelte.ts';
import { Persisted } from './persisted.svelte.ts';
import { SavedViews } from './savedViews.svelte.ts';
import { createCampaignsModel, createTemplatesModel } from './summaries.svelte.ts';
import { UiLayout } from './uiLayout.svelte.ts';

export { summaryKey, VIEWS, type AppPlace, type ContactHint, type SummaryScope, type ViewName } from './app/links.svelte.ts';
export type { StatusLine } from './app/connectivity.svelte.ts';
export type { Toast } from './app/toasts.svelte.ts';

/** A long piece of work the page does (copying many rows), shown in the status bar with its progress. */
export interface PageTask {
  label: string;
  done: number;
  total: number;
  cancel: () => void;
}

/** The whole app's state. */
export class AppState {
  ready = $state(false);
  /** Set when the app could not start (no bridge, profile list unreadable). */
  fatal = $state<string | null>(null);
  view = $state<ViewName>('contacts');
  /** The view last shown for the active profile (`profile:<id>:view`). */
  readonly #savedView = new Persisted<ViewName>(null, 'contacts', (v) => (VIEWS.includes(v) ? v : 'contacts'));
  /** Bumped whenever the active profile's cache publishes new data: open details read their record again. */
  cacheRevision = $state(0);
  /** The names the service's kept order statuses give the codes (and their conflicts), or null before they are read. */
  learnedStatusNames = $state<LearnedStatusNames | null>(null);
  /** Long work of the page in progress (copying many rows), or null. */
  task = $state.raw<PageTask | null>(null);

  readonly profileList = new Profiles();
  readonly sync = new SyncState({ profile: () => this.profileList.active, toast: (kind, text) => this.toast(kind, text), refreshStatus: () => this.refreshStatus() });
  readonly connection = new ConnectivityState({ profile: () => this.profileList.active, dataAsOf: () => this.sync.dataAsOf });
  readonly toastQueue = new Toasts();
  readonly links: Links = new Links(this);

  readonly contacts = createContactsModel();
  readonly orders = createOrdersModel();
  /** The Templates view's list (templates of the cached orders). */
  readonly templates = createTemplatesModel();
  /** The Campaigns view's list (the cached orders grouped by campaign). */
  readonly campaigns = createCampaignsModel();
  /** The Overview page's numbers. */
  readonly overview = new OverviewState();
  /** The Duplicates page's groups. */
  readonly duplicates = new DuplicatesState();
  /** Mailing labels of a table's view or selection. */
  readonly labels = new LabelsState();
  /** A printable list: a table's view or one order with its recipients. */
  readonly report = new ReportState();
  /** The active profile's saved views. */
  readonly views = new SavedViews();
  /** Pane sizes and the sidebar. */
  readonly layout = new UiLayout();
  /** Back and Forward. */
  readonly history: NavigationHistory<ViewName, AppPlace['contacts'], AppPlace['orders']> = new NavigationHistory(this);

  // ---- each topic's state, as the components read it -----------------------------------------

  get profiles(): Profile[] { return this.profileList.list; }
  get activeProfileId(): string | null { return this.profileList.activeId; }
  get activeProfile(): Profile | null { return this.profileList.active; }
  /** What each status code reads as: the profile's names, then the learned ones. */
  get statusNames(): StatusNames { return withLearnedNames(this.activeProfile?.statusNames, this.learnedStatusNames?.names); }
  get syncStatus(): SyncState['status'] { return this.sync.status; }
  get progress(): SyncState['progress'] { return this.sync.progress; }
  /** Each resource of the running sync that has ended, with how it ended. */
  get finished(): SyncState['finished'] { return this.sync.finished; }
  /** The last sync start error (BUSY, AUTH_MISSING…), shown in the Sync view. */
  get syncError(): string | null { return this.sync.error; }
  /** Why the active profile's status could not be read, or null. */
  get statusError(): string | null { return this.sync.statusError; }
  /** True while the first sync after "Explore with sample data" runs. */
  get firstRun(): boolean { return this.sync.firstRun; }
  /** A sync of the active profile is running (see `SyncState.running`). */
  get running(): boolean { return this.sync.running; }
  /** Data age: the older of the two resources' last successful syncs (null when never synced). */
  get dataAsOf(): string | null { return this.sync.dataAsOf; }
  /** The source of a cached copy read from another address or account than the profile names now, or null. */
  get otherSource(): SyncState['otherSource'] { return this.sync.otherSource; }
  get hasData(): boolean { return this.sync.hasData; }
  /** Why Export cannot run yet (nothing is cached), or null. */
  get exportUnavailable(): string | null { return this.sync.exportUnavailable; }
  /** Overall progress of the running sync, 0–1, or null when unknown. */
  get progressFraction(): number | null { return this.sync.progressFraction; }
  get connectivity(): ConnectivityState['connectivity'] { return this.connection.connectivity; }
  get credentials(): ConnectivityState['credentials'] { return this.connection.credentials; }
  /** "Offline", "Service unavailable", or null (see `ConnectivityState.outage`). */
  get outage(): string | null { return this.connection.outage; }
  get statusLine(): ConnectivityState['statusLine'] { return this.connection.statusLine; }
  get toasts(): Toast[] { return this.toastQueue.list; }
  /** Names of contacts the orders view was scoped to, by id. */
  get contactNames(): Record<string, string> { return this.links.contactNames; }
  /** Names of the templates and campaigns an orders view was scoped to, by `summaryKey`. */
  get summaryNames(): Record<string, string> { return this.links.summaryNames; }

  /** What `r`'s progress card waits for before its own first event (see `SyncState.waitingFor`). */
  readonly waitingFor = (r: Resource): Resource | undefined => this.sync.waitingFor(r);
  /** Shows a resource's table: every record, or a saved view's members (see `Links.openList`). */
  readonly openList = (resource: Resource, viewId: string | null): Promise<void> => this.links.openList(resource, viewId);
  /** Where the person is (for Back). */
  readonly capture = (): AppPlace => this.links.capture();
  /** Puts the person back where they were (Back, Forward). */
  readonly restore = (place: AppPlace): Promise<void> => this.links.restore(place);
  /** Follows a link to an order (see `Links.openOrder`). */
  readonly openOrder: Links['openOrder'] = (orderId, via) => this.links.openOrder(orderId, via);
  /** Follows a link to a contact (see `Links.openContact`). */
  readonly openContact: Links['openContact'] = (contactId, hint) => this.links.openContact(contactId, hint);
  /** The orders view scoped to the orders that include a contact. */
  readonly showOrdersOf: Links['showOrdersOf'] = (contactId, name) => this.links.showOrdersOf(contactId, name);
  /** The orders view limited to one template's or campaign's orders. */
  readonly showOrdersOfSummary: Links['showOrdersOfSummary'] = (scope, name) => this.links.showOrdersOfSummary(scope, name);
  /** Follows a link to an order from a template's or campaign's detail. */
  readonly openOrderOf: Links['openOrderOf'] = (orderId, scope, name) => this.links.openOrderOf(orderId, scope, name);
  /** The contacts behind a mark of the Overview. */
  readonly showContactsWhere: Links['showContactsWhere'] = (filters) => this.links.showContactsWhere(filters);
  /** The orders behind a mark of the Overview. */
  readonly showOrdersWhere: Links['showOrdersWhere'] = (filters) => this.links.showOrdersWhere(filters);
  /** Starts a sync of both resources. */
  readonly startSync = (): Promise<void> => this.sync.start();
  /** Cancels the running sync. */
  readonly cancelSync = (): Promise<void> => this.sync.cancel();
  /** Deletes the cache and syncs afresh. */
  readonly clearCacheAndResync = (): Promise<void> => this.sync.clearAndResync();
  /** Shows a transient message. */
  readonly toast = (kind: Toast['kind'], text: string, action?: Toast['action']): void => this.toastQueue.show(kind, text, action);
  /** Takes a toast away. */
  readonly dismissToast = (id: number): void => this.toastQueue.dismiss(id);

  #unsubscribe: (() => void)[] = [];

  /** Loads profiles and status and subscribes to main's events. */
  async init(): Promise<void> {
    const b = bridge();
    if (!b) {
      this.fatal = 'Letterdesk’s background service is not connected. Restart Letterdesk.';
      return;
    }
    this.#unsubscribe.push(
      b.on('profilesChanged', (list) => this.#applyProfiles(list)),
      b.on('syncProgress', (p) => {
        if (p.profileId === this.activeProfileId) this.sync.onProgress(p);
      }),
      b.on('syncFinished', (run) => this.sync.onFinished(run)),
      b.on('connectivityChanged', (c) => {
        if (c.profileId === null || c.profileId === this.activeProfileId) this.connection.connectivity = c;
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
      const list = await this.profileList.read();
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
    this.profileList.list = list.profiles;
    // A damaged profiles file was moved aside at start: say so once, with where it went.
    if (initial && list.loadProblem) this.toast('error', list.loadProblem, { label: 'Open Profiles', run: () => this.setView('profiles') });
    if (list.activeProfileId !== this.activeProfileId || initial) {
      this.profileList.activeId = list.activeProfileId;
      // Nothing of the previous profile may show under this one's name while its status is read.
      this.sync.reset();
      this.connection.credentials = null;
      this.#savedView.use(list.activeProfileId ? `profile:${list.activeProfileId}:view` : null);
      this.view = this.#savedView.current;
      this.contacts.useProfile(list.activeProfileId);
      this.orders.useProfile(list.activeProfileId);
      this.templates.useProfile(list.activeProfileId);
      this.overview.reset();
      this.duplicates.reset();
      this.campaigns.useProfile(list.activeProfileId);
      this.links.summaryNames = {};
      this.history.clear();
      void this.#loadViews();
      if (!initial) void this.refreshStatus();
    }
  }

  /** Re-reads sync status, connectivity and credential status of the active profile. */
  async refreshStatus(): Promise<void> {
    const id = this.activeProfileId;
    if (!id) {
      this.sync.status = null;
      this.connection.credentials = null;
      this.sync.running = false;
      return;
    }
    try {
      const [status, creds] = await Promise.all([call('getSyncStatus', {}), call('getCredentialStatus', { profileId: id })]);
      if (id !== this.activeProfileId) return;
      this.sync.status = status;
      this.sync.running = status.running;
      if (!status.running) this.views.settle();
      this.connection.connectivity = status.connectivity;
      this.connection.credentials = creds;
      this.sync.statusError = null;
    } catch (error) {
      if (id === this.activeProfileId) this.sync.statusError = errorText(error);
    }
    await this.#loadLearnedStatusNames(id);
  }

  /** Reads the learned status names of profile `id`; a cache that cannot answer leaves none. */
  async #loadLearnedStatusNames(id: string): Promise<void> {
    try {
      const learned = await call('learnedStatusNames', {});
      if (id === this.activeProfileId) this.learnedStatusNames = learned;
    } catch {
      if (id === this.activeProfileId) this.learnedStatusNames = null;
    }
  }

  /**
   * Switches the main view and remembers it for this profile.
   * @param record Back returns to the view left (false while a link or Back itself switches)
   */
  setView(view: ViewName, record = true): void {
    if (view !== this.view && record) this.history.record();
    this.view = view;
    if (this.activeProfileId) this.#savedView.current = view;
  }

  /** The list model of a resource. */
  list(resource: Resource): AppState['contacts'] | AppState['orders'] {
    return resource === 'contacts' ? this.contacts : this.orders;
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

  /** First run: creates the sample profile, switches to it and syncs. */
  async exploreSample(): Promise<void> {
    this.sync.firstRun = true;
    try {
      const profile = await this.profileList.createSample();
      this.#applyProfiles(await this.profileList.use(profile.id));
      await this.refreshStatus();
      await this.startSync();
    } catch (error) {
      this.sync.firstRun = false;
      this.toast('error', errorText(error));
    }
  }

  /** Makes a profile active. */
  async useProfile(profileId: string): Promise<void> {
    try {
      this.#applyProfiles(await this.profileList.use(profileId));
    } catch (error) {
      this.toast('error', errorText(error));
    }
  }

  /** Creates or updates a profile (with its tokens, when given); returns it. @throws DisplayError */
  async saveProfile(input: SaveProfileInput): Promise<Profile> {
    const profile = await this.profileList.save(input);
    this.#applyProfiles(await this.profileList.read());
    return profile;
  }

  /** Removes a profile (optionally its cache). */
  async removeProfile(profileId: string, purgeCache: boolean): Promise<void> {
    const list = await this.profileList.remove(profileId, purgeCache);
    this.#applyProfiles(list);
    if (list.credentialsProblem) this.toast('error', `The profile was removed, but its tokens may still be in the keychain. ${list.credentialsProblem}`);
  }
}
