/**
 * The main-side core (DESIGN.md "Core"): one composition root of small services — profiles,
 * credentials and tokens, the sample-API runtime, the open caches, connectivity, sync runs and
 * exports. The Electron handlers (ipc/handlers.ts), the command line (cli/) and the test harness are
 * thin front ends over it: every rule they share lives here, once.
 */
import { join } from 'node:path';
import type { Connectivity, Profile, SaveProfileInput } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { createApiClient } from '../api/client.ts';
import type { CacheClient } from '../cache/worker/client.ts';
import { CredentialStore } from '../credentials/store.ts';
import { logger } from '../base/log.ts';
import { ensureDataDir, logsDir } from '../base/paths.ts';
import { removeProfileAndCredentials, saveProfileAndCredentials, type RemovedProfile } from './profiles.ts';
import type { PreviewImage } from '../previews/serve.ts';
import { ProfileStore } from '../profiles/store.ts';
import { CacheRegistry } from './caches.ts';
import { ConnectivityMonitor } from './connectivity.ts';
import { ExportRuns } from './exports.ts';
import type { CoreOptions, Emit } from './options.ts';
import { SampleApiRuntime } from './sampleApiRuntime.ts';
import { SyncRuns } from './syncRuns.ts';
import { TokenSource } from './tokens.ts';
import { ViewsService } from './views.ts';

export type { CoreOptions, Emit, PlatformServices, TokenSourceOptions } from './options.ts';

/** The services of the core and the few operations that combine them. */
export interface Core {
  readonly options: CoreOptions;
  readonly emit: Emit;
  readonly profiles: ProfileStore;
  readonly credentials: CredentialStore;
  readonly tokens: TokenSource;
  readonly sampleApi: SampleApiRuntime;
  readonly caches: CacheRegistry;
  readonly connectivity: ConnectivityMonitor;
  readonly syncs: SyncRuns;
  readonly exports: ExportRuns;
  readonly views: ViewsService;
  /** Begins background work: opens the active cache, the automatic sync, connectivity probes. Idempotent. */
  start(): void;
  /** Cancels syncs and exports, waits for the sync to release its lock, closes caches and the sample API. */
  close(): Promise<void>;
  /** The active profile. @throws LetterdeskError NO_PROFILE */
  activeProfile(): Profile;
  /** The active profile's cache (opened on first use). @throws LetterdeskError NO_PROFILE; the open's errors */
  cache(): Promise<CacheClient>;
  /** Starts a sync of the active profile in the background. @throws as {@link SyncRuns.start} */
  startSync(resources: Resource[]): Promise<{ runId: string }>;
  /** The connectivity of the active profile's service. */
  currentConnectivity(): Connectivity;
  /**
   * A template preview of the active profile's cache, for the app scheme's `preview/<key>`.
   * @returns null when there is none, or no cache can be read
   */
  readPreview(key: string): Promise<PreviewImage | null>;
  /**
   * Closes and deletes the active profile's cache, then announces `cacheChanged`.
   * @throws LetterdeskError BUSY while a sync runs (here or in another process)
   */
  clearCache(): Promise<void>;
  /**
   * Saves a profile and, with `credentials`, its tokens, as one change (core/profiles.ts).
   * @throws LetterdeskError VALIDATION; the keychain's error (nothing of the save kept)
   */
  saveProfile(input: SaveProfileInput): Promise<Profile>;
  /**
   * Removes a profile, its tokens and, with `purgeCache`, its cache.
   * @throws LetterdeskError BUSY while it syncs (here or in another process); NOT_FOUND
   */
  removeProfile(profileId: string, options: { purgeCache: boolean }): Promise<RemovedProfile>;
}

/**
 * Creates the core. Nothing is opened or started until used or `start()` is called.
 * @throws nothing; a damaged profiles file is moved aside and reported by `profiles.loadProblem()`
 */
export function createCore(options: CoreOptions): Core {
  // Private before anything (the log, the profiles, a cache) is written into it.
  ensureDataDir(options.dataDir);
  // Outside Electron (CLI, tests) the log goes into the data directory, next to what it describes.
  if (options.logFile === null) logger.transports.file.resolvePathFn = () => join(logsDir(options.dataDir), options.logName ?? 'letterdesk.log');
  const profiles = ProfileStore.open(options.dataDir);
  const credentials = new CredentialStore({ sessionOnly: options.keychain === 'session-only', ...(options.keychainService === undefined ? {} : { service: options.keychainService }) });
  const tokens = new TokenSource(credentials, options.tokenSources);
  const sampleApi = new SampleApiRuntime({ server: options.sample ?? { contacts: 5000, orders: 1500 }, thread: options.sampleApiThread ?? 'worker' });
  const caches = new CacheRegistry({ dataDir: options.dataDir, ...(options.cacheWorkerUrl ? { workerUrl: options.cacheWorkerUrl } : {}) });
  const exports = new ExportRuns();
  let syncs: SyncRuns | null = null;
  let periodicTimer: NodeJS.Timeout | null = null;
  let started = false;

  const activeProfile = (): Profile => {
    const profile = profiles.active();
    if (!profile) throw new LetterdeskError('NO_PROFILE', 'No profile is selected. Open Profiles to add one, or explore with sample data.');
    return profile;
  };

  /** One cheap request to learn whether the service answers (page 0 with one row). */
  const probe = async (): Promise<void> => {
    const profile = profiles.active();
    if (!profile || syncs?.running) return;
    if (profile.sampleData && !sampleApi.running) {
      // The embedded sample API was stopped on purpose (tests); it is "offline" until restarted.
      connectivity.set(profile.id, 'offline', 'The sample API is not running.');
      return;
    }
    try {
      const { tokens: t } = await tokens.resolve(profile);
      const client = createApiClient({ baseUrl: await runs.baseUrlFor(profile), getTokens: async () => t, timeoutMs: 10_000, retry: { limit: 0 } });
      await client.listContacts({ page: 0, pageSize: 1, ...(profile.accountId ? { 'meta.account_id': profile.accountId } : {}) });
      connectivity.succeeded(profile.id);
    } catch (error) {
      connectivity.failed(profile.id, (error as { code?: string }).code ?? 'INTERNAL', (error as Error).message);
    }
  };
  const connectivity = new ConnectivityMonitor({ emit: options.emit, probe, ...(options.probeIntervalMs === undefined ? {} : { probeIntervalMs: options.probeIntervalMs }) });
  const runs = new SyncRuns({ options, caches, tokens, credentials, sampleApi, connectivity });
  syncs = runs;
  const views = new ViewsService({ options, caches, syncs: runs, tokens, connectivity });

  const startSync = async (resources: Resource[]): Promise<{ runId: string }> => {
    const { runId, done } = await runs.start(activeProfile(), resources);
    done.catch(() => {}); // announced as failed runs by the service
    return { runId };
  };

  /** Syncs at start when the active profile's oldest resource is older than `autoSyncAfterMinutes`. */
  const maybeAutoSync = async (): Promise<void> => {
    const profile = profiles.active();
    const maxAge = options.autoSyncAfterMinutes ?? 60;
    if (!profile || maxAge <= 0 || runs.running) return;
    try {
      const states = await (await caches.open(profile)).resourceStates();
      const oldest = Math.min(...Object.values(states).map((s) => (s.lastSyncedAt ? Date.parse(s.lastSyncedAt) : 0)));
      if (Date.now() - oldest > maxAge * 60_000) await startSync(['contacts', 'orders']);
    } catch (error) {
      logger.warn('automatic sync did not start', error);
    }
  };

  return {
    options,
    emit: options.emit,
    profiles,
    credentials,
    tokens,
    sampleApi,
    caches,
    connectivity,
    syncs: runs,
    exports,
    views,
    start() {
      if (started) return;
      started = true;
      connectivity.startProbing();
      // Open the active profile's cache now, while the window loads, so the first page is instant.
      const active = profiles.active();
      if (active) void caches.open(active).catch(() => {});
      void maybeAutoSync().then(() => (runs.running ? undefined : probe()));
      const every = options.periodicSyncMinutes ?? 0;
      if (every > 0) {
        periodicTimer = setInterval(() => void (runs.running ? undefined : startSync(['contacts', 'orders']).catch(() => {})), every * 60_000);
        periodicTimer.unref?.();
      }
    },
    async close() {
      started = false;
      connectivity.stopProbing();
      if (periodicTimer) clearInterval(periodicTimer);
      runs.cancel();
      exports.cancelAll();
      // The cancelled sync ends its process and releases its lock before the caches close.
      await runs.ended;
      await caches.closeAll();
      await sampleApi.stop();
    },
    activeProfile,
    cache: () => caches.open(activeProfile()),
    startSync,
    currentConnectivity: () => connectivity.current(profiles.active()?.id ?? null),
    readPreview: (key) => (profiles.active() ? caches.open(activeProfile()).then((cache) => cache.readPreview(key)).catch(() => null) : Promise.resolve(null)),
    async clearCache() {
      const profile = activeProfile();
      if (runs.running) throw new LetterdeskError('BUSY', 'A sync is running. Cancel it before clearing the cache.');
      await caches.clear(profile.id);
      options.emit('cacheChanged', { profileId: profile.id, resources: ['contacts', 'orders'] });
    },
    saveProfile: (input) => saveProfileAndCredentials(profiles, credentials, input),
    async removeProfile(profileId, { purgeCache }) {
      if (runs.runningFor(profileId)) throw new LetterdeskError('BUSY', 'This profile is syncing. Cancel the sync before removing it.');
      await caches.close(profileId);
      // A keychain that cannot be reached does not block the removal; the caller is told (tokens may remain there).
      return removeProfileAndCredentials(profiles, credentials, profileId, { purgeCache });
    },
  };
}
