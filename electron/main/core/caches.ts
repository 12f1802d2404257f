/**
 * The open profile caches (DESIGN.md "Cache"): one database worker per profile cache, opened on
 * first use and shared by every caller of this process, so the app's handlers and the command
 * line's commands read a cache the same way.
 */
import type { KeptFilter } from '../../../shared/keptFilters.ts';
import { existsSync, rmSync } from 'node:fs';
import type { Profile, ResourceState } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { SavedView } from '../../../shared/views.ts';
import { CacheClient } from '../cache/worker/client.ts';
import { cacheFilePath, cacheFileSet, ensureDataDir } from '../base/paths.ts';
import { acquireSyncLock } from '../sync/lock.ts';

/** Rows, last sync and last error of a resource never synced. */
const NEVER_SYNCED: ResourceState = { rows: 0, lastSyncedAt: null, lastError: null };

/** Options of {@link CacheRegistry}. */
export interface CacheRegistryOptions {
  dataDir: string;
  /** Script of the database worker (the benchmark points it at the built bundle). @default beside the cache client */
  workerUrl?: URL;
}

/** One cache client per profile, opened on demand. */
export class CacheRegistry {
  readonly #options: CacheRegistryOptions;
  readonly #clients = new Map<string, Promise<CacheClient>>();
  readonly #failed = new WeakSet<Promise<CacheClient>>();
  #closed = false;

  constructor(options: CacheRegistryOptions) {
    this.#options = options;
  }

  /** The cache file of a profile. */
  fileOf(profileId: string): string {
    return cacheFilePath(this.#options.dataDir, profileId);
  }

  /**
   * The profile's cache, opened (created and migrated if needed) on first use. A failed open
   * (CACHE_DAMAGED, CACHE_TOO_NEW, DISK_FULL) stays the answer of every call, so every view tells
   * the person the same thing, until `retry` (a sync, which offers a fresh cache) or closing it
   * (clear, profile switch) opens the file again.
   * @throws LetterdeskError CANCELLED once the registry is closed; the open's own errors
   */
  open(profile: Profile, options: { retry?: boolean } = {}): Promise<CacheClient> {
    if (this.#closed) return Promise.reject(new LetterdeskError('CANCELLED', 'Letterdesk is closing.'));
    let client = this.#clients.get(profile.id);
    if (client && options.retry && this.#failed.has(client)) {
      this.#clients.delete(profile.id);
      client = undefined;
    }
    if (!client) {
      ensureDataDir(this.#options.dataDir);
      const opening: Promise<CacheClient> = CacheClient.open(this.fileOf(profile.id), {
        ...(this.#options.workerUrl ? { workerUrl: this.#options.workerUrl } : {}),
        // The first page was answered by the startup reader, then the worker's open failed.
        onLateFailure: () => this.#failed.add(opening),
      });
      opening.catch(() => this.#failed.add(opening));
      this.#clients.set(profile.id, opening);
      client = opening;
    }
    return client;
  }

  /**
   * The profile's cache for reading `resource`, which must have been synced: a profile without a
   * cache file, or whose `resource` no sync has published yet (a first sync that failed leaves the
   * file without it), has nothing to read. No file is created.
   * @throws LetterdeskError NOT_SYNCED (with the last sync's error, if any); the open's own errors
   */
  async openSynced(profile: Profile, resource: Resource): Promise<CacheClient> {
    const none = (why: string) => new LetterdeskError('NOT_SYNCED', `Profile "${profile.name}" has no cached ${resource} yet${why}. Run \`letterdesk sync\` first.`);
    if (!existsSync(this.fileOf(profile.id))) throw none('');
    const client = await this.open(profile);
    const state = (await client.resourceStates())[resource];
    if (state.lastSyncedAt === null) throw none(state.lastError ? ` (the last sync could not read them: ${state.lastError.message})` : '');
    return client;
  }

  /**
   * Rows, last sync and last error of each resource of the profile; a profile without a cache file
   * has never been synced (no file is created to say so).
   */
  async resourceStates(profile: Profile): Promise<Record<Resource, ResourceState>> {
    if (!existsSync(this.fileOf(profile.id))) return { contacts: NEVER_SYNCED, orders: NEVER_SYNCED };
    return (await this.open(profile)).resourceStates();
  }

  /** The profile's saved views; a profile without a cache file has none (no file is created to say so). */
  async views(profile: Profile): Promise<SavedView[]> {
    if (!existsSync(this.fileOf(profile.id))) return [];
    return (await this.open(profile)).listViews();
  }

  /** The profile's kept filters with their last reads; a profile without a cache file has none read (no file is created to say so). */
  async keptFilters(profile: Profile): Promise<KeptFilter[]> {
    if (!existsSync(this.fileOf(profile.id))) return [];
    return (await this.open(profile)).listKeptFilters();
  }

  /** Closes the cache of a profile (before its file is removed or replaced). */
  async close(profileId: string): Promise<void> {
    const client = this.#clients.get(profileId);
    this.#clients.delete(profileId);
    if (client) await (await client.catch(() => null))?.close();
  }

  /**
   * Closes the profile's cache and deletes its files, holding the profile's sync lock meanwhile, so
   * a sync another process starts is refused (BUSY) instead of writing into a cache being deleted.
   * @throws LetterdeskError BUSY while another process syncs the profile
   */
  async clear(profileId: string): Promise<void> {
    const file = this.fileOf(profileId);
    const release = acquireSyncLock(file);
    try {
      await this.close(profileId);
      for (const part of cacheFileSet(file)) rmSync(part, { force: true });
    } finally {
      release();
    }
  }

  /** Closes every cache; later opens are refused. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#clients.keys()].map((id) => this.close(id)));
  }
}
