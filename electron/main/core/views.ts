/**
 * Saved views (DESIGN.md "Views"): the app's and the command line's one way to create, change and
 * remove a profile's views, to read their memberships from the service (a sync run of views only,
 * in the sync process), and to preview a service query before saving it.
 */
import type { Profile, ServiceQueryPreview } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import { checkServiceQuery, type ServiceQuery } from '../../../shared/serviceQuery.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { NewView, SavedView, ViewChanges, ViewServiceQuery } from '../../../shared/views.ts';
import { createApiClient, type ApiClient } from '../api/client.ts';
import { describeRequest } from '../api/params.ts';
import type { CacheRegistry } from './caches.ts';
import type { ConnectivityMonitor } from './connectivity.ts';
import { readLiveQuery, type LiveQueryResult } from './liveQuery.ts';
import type { CoreOptions } from './options.ts';
import type { StartedSync, SyncHooks, SyncRuns } from './syncRuns.ts';
import type { TokenSource } from './tokens.ts';

/** What {@link ViewsService} works with. */
export interface ViewsDeps {
  options: CoreOptions;
  caches: CacheRegistry;
  syncs: SyncRuns;
  tokens: TokenSource;
  connectivity: ConnectivityMonitor;
}

/** A new view as a front end asks for it. */
export interface ViewInput {
  resource: Resource;
  name: string;
  serviceQuery: ViewServiceQuery | null;
  settings?: NewView['settings'];
  refreshAfterSync?: boolean;
}

/** Changes to a view as a front end asks for them (absent fields stay). */
export interface ViewUpdate extends ViewChanges {
  name?: string;
}

/** Saved views of a profile's cache. */
export class ViewsService {
  readonly #deps: ViewsDeps;

  constructor(deps: ViewsDeps) {
    this.#deps = deps;
  }

  /** The profile's views (of `resource`, or both). */
  async list(profile: Profile, resource?: Resource): Promise<SavedView[]> {
    return (await this.#deps.caches.open(profile)).listViews(resource);
  }

  /**
   * The view named `name` (case-insensitive), of `resource` when given, else of either resource.
   * @throws LetterdeskError NOT_FOUND naming the views there are; VALIDATION when the name is a
   *   contacts view and an orders view alike and no resource was given
   */
  async byName(profile: Profile, name: string, resource?: Resource): Promise<SavedView> {
    const cache = await this.#deps.caches.open(profile);
    const named = (await cache.viewsNamed(name)).filter((v) => resource === undefined || v.resource === resource);
    if (named.length === 1) return named[0] as SavedView;
    if (named.length > 1) throw new LetterdeskError('VALIDATION', `"${name}" names a contacts view and an orders view; say which (--resource contacts or orders).`);
    const all = (await cache.listViews(resource)).map((v) => `${v.name} (${v.resource})`);
    throw new LetterdeskError('NOT_FOUND', `There is no ${resource === undefined ? '' : `${resource} `}view "${name}". ${all.length ? `Views: ${all.join(', ')}.` : 'Save one with `letterdesk view add NAME --resource contacts|orders`.'}`);
  }

  /**
   * Saves a new view; a view with a service query then reads its membership from the service in
   * the background (reported by `viewRefreshed`), unless a sync is running (read it later with
   * {@link ViewsService.refresh}) or `readInBackground` is false (the caller reads it itself).
   * @throws LetterdeskError VALIDATION (a name in use, a bad parameter of the service query)
   */
  async create(profile: Profile, input: ViewInput, options: { readInBackground?: boolean } = {}): Promise<SavedView> {
    const serviceQuery = input.serviceQuery === null ? null : checkedQuery(input.resource, input.serviceQuery);
    const cache = await this.#deps.caches.open(profile);
    const view = await cache.createView({ resource: input.resource, name: input.name, serviceQuery, ...(input.settings ? { settings: input.settings } : {}), ...(input.refreshAfterSync === undefined ? {} : { refreshAfterSync: input.refreshAfterSync }) });
    this.#changed(profile);
    if (serviceQuery !== null && options.readInBackground !== false) this.#refreshInBackground(profile, [view.id]);
    return view;
  }

  /**
   * Renames or changes a view; a changed service query drops the membership and reads it again in
   * the background.
   * @throws LetterdeskError NOT_FOUND, VALIDATION
   */
  async update(profile: Profile, id: string, update: ViewUpdate): Promise<SavedView> {
    const cache = await this.#deps.caches.open(profile);
    const before = await cache.getView(id);
    if (!before) throw new LetterdeskError('NOT_FOUND', 'That view no longer exists. Reload the list of views.');
    const { name, ...changes } = update;
    if (changes.serviceQuery !== undefined && changes.serviceQuery !== null) changes.serviceQuery = checkedQuery(before.resource, changes.serviceQuery);
    let view = name !== undefined && name !== before.name ? await cache.renameView(id, name) : before;
    if (Object.keys(changes).length > 0) view = await cache.updateView(id, changes);
    this.#changed(profile);
    const queryChanged = changes.serviceQuery !== undefined && JSON.stringify(changes.serviceQuery) !== JSON.stringify(before.serviceQuery);
    if (queryChanged && view.serviceQuery !== null) this.#refreshInBackground(profile, [id]);
    return view;
  }

  /** A copy of a view (its settings, query and membership) under `name`, or "<name> (copy)". */
  async duplicate(profile: Profile, id: string, name?: string): Promise<SavedView> {
    const view = await (await this.#deps.caches.open(profile)).duplicateView(id, name);
    this.#changed(profile);
    return view;
  }

  /** Deletes a view (its membership goes with it). */
  async remove(profile: Profile, id: string): Promise<void> {
    await (await this.#deps.caches.open(profile)).deleteView(id);
    this.#changed(profile);
  }

  /**
   * Reads the memberships of `ids` from the service again: a sync run of views only.
   * @throws as {@link SyncRuns.start} (BUSY while a sync runs)
   */
  refresh(profile: Profile, ids: string[], hooks: SyncHooks = {}): Promise<StartedSync> {
    return this.#deps.syncs.start(profile, [], { ...hooks, views: ids });
  }

  /**
   * Page 0 of a service query and of the unfiltered resource, one row each, and the exact request
   * of the query's first page at the profile's page size.
   * @throws LetterdeskError VALIDATION (a bad parameter, before any request); the client's errors
   */
  async preview(profile: Profile, resource: Resource, params: ViewServiceQuery): Promise<ServiceQueryPreview> {
    const query = { resource, params: checkedQuery(resource, params) } as ServiceQuery;
    const client = await this.#client(profile);
    const scope = profile.accountId && query.params['meta.account_id'] === undefined ? { 'meta.account_id': profile.accountId } : {};
    const scoped = { resource, params: { ...scope, ...query.params } } as ServiceQuery;
    const [filtered, unfiltered] = await Promise.all([
      client.listQuery(scoped, 0, 1),
      client.listQuery({ resource, params: scope } as ServiceQuery, 0, 1),
    ]);
    return { count: filtered.count, unfilteredCount: unfiltered.count, request: describeRequest(resource, scoped.params, 0, profile.pageSize, profile.queryEncoding) };
  }

  /**
   * Reads every page of a service query live into a temporary cache (core/liveQuery.ts); the
   * caller reads its records and closes it.
   */
  readLive(profile: Profile, resource: Resource, params: ViewServiceQuery, hooks: SyncHooks = {}): Promise<LiveQueryResult> {
    return readLiveQuery({ options: this.#deps.options, tokens: this.#deps.tokens, syncs: this.#deps.syncs }, profile, resource, params, hooks);
  }

  /**
   * One page of a service query, live, as the service answers it (the profile's account scope
   * added unless the query names its own).
   * @returns the service's `count` and the page's records as they arrived
   * @throws LetterdeskError VALIDATION (a bad parameter, before any request); the client's errors
   */
  async readPage(profile: Profile, resource: Resource, params: ViewServiceQuery, page: number, pageSize: number, signal?: AbortSignal): Promise<{ count: number; records: unknown[] }> {
    const checked = checkedQuery(resource, params);
    const scope = profile.accountId && checked['meta.account_id'] === undefined ? { 'meta.account_id': profile.accountId } : {};
    const client = await this.#client(profile);
    const result = await client.listQuery({ resource, params: { ...scope, ...checked } } as ServiceQuery, page, pageSize, signal ? { signal } : {});
    return { count: result.count, records: result.records.map((r) => r.raw) };
  }

  /** An API client of the profile's service, reporting connectivity. */
  async #client(profile: Profile): Promise<ApiClient> {
    const { tokens } = await this.#deps.tokens.resolve(profile);
    return createApiClient({
      baseUrl: await this.#deps.syncs.baseUrlFor(profile),
      getTokens: async () => tokens,
      timeoutMs: 15_000,
      ...(profile.queryEncoding ? { encoding: profile.queryEncoding } : {}),
      onOutcome: (outcome) => (outcome.ok ? this.#deps.connectivity.succeeded(profile.id) : this.#deps.connectivity.failed(profile.id, outcome.code ?? 'INTERNAL', null)),
    });
  }

  #changed(profile: Profile): void {
    this.#deps.options.emit('viewsChanged', { profileId: profile.id });
  }

  #refreshInBackground(profile: Profile, ids: string[]): void {
    if (this.#deps.syncs.running) return;
    this.refresh(profile, ids).then(
      ({ done }) => done.catch(() => {}),
      () => {},
    );
  }
}

/** The service query checked against the resource's parameters (unknown names and bad values refused). */
function checkedQuery(resource: Resource, params: ViewServiceQuery): ViewServiceQuery {
  return checkServiceQuery(resource, params) as ViewServiceQuery;
}
