/**
 * The active profile's saved views as the page shows them: the list (with each membership's size
 * and time), the reads of memberships in progress and how they ended, and which members of an
 * open view are newer than the mirror. Main owns the views; this keeps the page's copy in step
 * with its events (`viewsChanged`, `viewProgress`, `viewRefreshed`).
 */
import type { SyncProgress } from '../../../shared/contract.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { SavedView, ViewLocalSettings, ViewRefresh, ViewServiceQuery } from '../../../shared/views.ts';
import { call, errorText } from '../lib/api.ts';

/** Longest view name (shared/views.ts `MAX_VIEW_NAME`; that module loads zod, so the page keeps its own copy). */
export const MAX_VIEW_NAME = 100;

/** How the last read of a view's membership asked for in this session ended, when it did not succeed. */
export interface RefreshFailure {
  outcome: 'failed' | 'cancelled';
  message: string;
}

/** The saved views of the active profile. */
export class SavedViews {
  /** Every view of the profile, contacts and orders, in the cache's order. */
  list = $state.raw<SavedView[]>([]);
  /** Progress of membership reads, by view id (gone when the read ends). */
  progress = $state.raw<Record<string, SyncProgress>>({});
  /** Views whose read was asked for here (Refresh) and has not ended yet, before its first progress too. */
  pending = $state.raw<string[]>([]);
  /** How reads that did not succeed ended, by view id (until the view's next read succeeds). */
  failures = $state.raw<Record<string, RefreshFailure>>({});
  /** Ids of a view's members that the mirror does not hold, by view id (read for open views). */
  newer = $state.raw<Record<string, ReadonlySet<string>>>({});
  /** Why the list could not be read, or null. */
  error = $state<string | null>(null);

  #profileId: string | null = null;
  #gen = 0;
  /** How many reads of each view have ended in this session (announced by `viewRefreshed`). */
  #readsEnded: Record<string, number> = {};

  /** The views of one resource. */
  of(resource: Resource): SavedView[] {
    return this.list.filter((v) => v.resource === resource);
  }

  /** The view with this id, or undefined. */
  byId(id: string | null | undefined): SavedView | undefined {
    return id ? this.list.find((v) => v.id === id) : undefined;
  }

  /** The view's membership is being read. */
  refreshing(id: string): boolean {
    return this.pending.includes(id) || this.progress[id] !== undefined;
  }

  /** Whether `recordId` is a member of view `viewId` that the mirror does not hold. */
  isNewer(viewId: string | null, recordId: string): boolean {
    return viewId !== null && (this.newer[viewId]?.has(recordId) ?? false);
  }

  /**
   * Reads the list of the profile's views (another profile: starts afresh).
   * @returns the list, or null when reading failed (then {@link error} says why)
   */
  async load(profileId: string | null): Promise<SavedView[] | null> {
    if (profileId !== this.#profileId) {
      this.#profileId = profileId;
      this.list = [];
      this.progress = {};
      this.pending = [];
      this.failures = {};
      this.newer = {};
    }
    const gen = ++this.#gen;
    if (!profileId) return null;
    try {
      const list = await call('listViews', {});
      if (gen !== this.#gen || profileId !== this.#profileId) return null;
      this.list = list;
      this.error = null;
      return list;
    } catch (error) {
      if (gen === this.#gen) this.error = errorText(error);
      return null;
    }
  }

  /** A read's progress (`viewProgress`). */
  onProgress(p: SyncProgress & { viewId: string }): void {
    if (p.profileId !== this.#profileId) return;
    this.progress = { ...this.progress, [p.viewId]: p };
  }

  /** A read ended (`viewRefreshed`): its progress goes, and a failure is kept to be shown. */
  onRefreshed(refresh: ViewRefresh): void {
    this.#readsEnded[refresh.viewId] = (this.#readsEnded[refresh.viewId] ?? 0) + 1;
    const progress = { ...this.progress };
    delete progress[refresh.viewId];
    this.progress = progress;
    this.pending = this.pending.filter((id) => id !== refresh.viewId);
    const failures = { ...this.failures };
    if (refresh.outcome === 'succeeded') delete failures[refresh.viewId];
    else failures[refresh.viewId] = { outcome: refresh.outcome, message: refresh.error?.message ?? (refresh.outcome === 'cancelled' ? 'The read was cancelled.' : 'The read failed.') };
    this.failures = failures;
  }

  /**
   * Asks main to read these views' memberships again.
   * @throws DisplayError (BUSY while a sync runs)
   */
  async refresh(ids: string[]): Promise<void> {
    this.pending = [...this.pending, ...ids.filter((id) => !this.pending.includes(id))];
    try {
      await call('refreshViews', { ids });
    } catch (error) {
      this.pending = this.pending.filter((id) => !ids.includes(id));
      throw error;
    }
  }

  /** No read runs any more (the sync status says so): reads that never reported their end are over. */
  settle(): void {
    if (this.pending.length > 0) this.pending = [];
  }

  /** Reads which members of `id` are newer than the mirror (kept until read again). */
  async loadNewer(id: string): Promise<void> {
    const view = this.byId(id);
    if (view && view.serviceQuery === null) return;
    try {
      const ids = await call('viewNewerIds', { id });
      this.newer = { ...this.newer, [id]: idSet(ids) };
    } catch {
      // The mark is a hint; the rows themselves are shown either way.
    }
  }

  /** Saves a new view. @throws DisplayError (a name in use, a bad parameter) */
  async create(input: { resource: Resource; name: string; serviceQuery: ViewServiceQuery | null; settings: ViewLocalSettings }): Promise<SavedView> {
    const view = await call('createView', input);
    this.#put(view);
    if (view.serviceQuery !== null) void this.#readSoon(view.id);
    return view;
  }

  /** Renames or changes a view. @throws DisplayError */
  async update(id: string, changes: { name?: string; serviceQuery?: ViewServiceQuery | null; settings?: ViewLocalSettings; refreshAfterSync?: boolean }): Promise<SavedView> {
    const view = await call('updateView', { id, ...changes });
    // A changed query drops the membership (and its newer members) until it is read again.
    if (changes.serviceQuery !== undefined) this.newer = { ...this.newer, [id]: idSet([]) };
    this.#put(view);
    if (changes.serviceQuery !== undefined && view.serviceQuery !== null) void this.#readSoon(view.id);
    return view;
  }

  /** A copy of a view ("<name> (copy)"). @throws DisplayError */
  async duplicate(id: string): Promise<SavedView> {
    const view = await call('duplicateView', { id });
    this.#put(view);
    return view;
  }

  /** Deletes a view. @throws DisplayError */
  async remove(id: string): Promise<void> {
    await call('deleteView', { id });
    this.list = this.list.filter((v) => v.id !== id);
  }

  /**
   * Makes sure a new or changed query is read. Main reads it at once unless a sync or another read
   * is running then; in that case it is read here as soon as nothing runs any more. Ends when the
   * view shows a read (progress, members, a failure), or is gone.
   */
  async #readSoon(id: string): Promise<void> {
    const profileId = this.#profileId;
    const ended = this.#readsEnded[id] ?? 0;
    const read = (): boolean => profileId !== this.#profileId || !this.byId(id) || (this.#readsEnded[id] ?? 0) > ended || this.refreshing(id);
    for (let i = 0; i < 600; i++) {
      await new Promise((done) => setTimeout(done, 500));
      if (read()) return;
      const status = await call('getSyncStatus', {}).catch(() => null);
      if (!status || status.running) continue;
      // Nothing runs and the view was not read (its read was skipped): read it now.
      if (read()) return;
      try {
        await this.refresh([id]);
        return;
      } catch {
        // Another run began meanwhile: wait for it.
      }
    }
  }

  /** Puts a view answered by main into the list at once (the `viewsChanged` reload follows). */
  #put(view: SavedView): void {
    const at = this.list.findIndex((v) => v.id === view.id);
    this.list = at < 0 ? [...this.list, view] : this.list.map((v) => (v.id === view.id ? view : v));
  }
}

/** A set of ids that is replaced whole, never changed in place (so it needs no reactivity of its own). */
function idSet(ids: readonly string[]): ReadonlySet<string> {
  return new Set(ids);
}
