/**
 * The main-side core: profiles, credentials, the active profile's cache, sync runs, connectivity,
 * exports and the embedded sample API, composed once. Electron (index.ts) and the Chromium test
 * harness (test/e2e/harness.ts) each create one and serve it through `createHandlers`; only the
 * platform services (dialogs, shell, taskbar) and the event transport differ.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { endsSync, type Connectivity, type ConnectivityState, type EventName, type EventPayload, type Profile, type SyncRun } from '../../shared/contract.ts';
import { fromErrorPayload, LetterdeskError, type ErrorPayload } from '../../shared/errors.ts';
import type { Resource } from '../../shared/serviceRecords.ts';
import { createApiClient } from './api/client.ts';
import { CacheClient } from './cache/client.ts';
import { CredentialStore, type Tokens } from './credentials/store.ts';
import { logger } from './log.ts';
import { cacheDir, cacheFilePath, cacheFileSet, logsDir } from './paths.ts';
import { ProfileStore } from './profiles/store.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from './sampleApi/server.ts';

/** The sample API worker: the .ts source under Node/vitest, `sampleApiWorker.js` in the built app. */
function sampleApiWorkerUrl(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./sampleApi/worker.ts', import.meta.url) : new URL('./sampleApiWorker.js', import.meta.url);
}
import { startSync } from './sync/controller.ts';
import { acquireSyncLock, refuseWhileSyncedElsewhere } from './sync/lock.ts';
import type { SyncProcessLauncher } from './sync/process.ts';
import type { SyncProcessStats } from './sync/worker.ts';

/** What the core needs from the operating system; Electron and the test harness provide their own. */
export interface PlatformServices {
  /** Native save dialog; resolves to the chosen absolute path or null when cancelled. */
  showSaveDialog(defaultPath: string, filters: { name: string; extensions: string[] }[]): Promise<string | null>;
  showItemInFolder(path: string): void;
  /** Opens an http(s) URL in the system browser (the caller has validated it). */
  openExternal(url: string): Promise<void>;
  /** Taskbar/dock progress: 0..1, or null to clear. */
  setProgress(fraction: number | null): void;
  /**
   * Starts a sync process (sync/process.ts). The app passes Electron's `utilityProcess`.
   * @default `child_process.fork` (sync/process.ts `nodeSyncProcessLauncher`)
   */
  launchSyncProcess?: SyncProcessLauncher;
}

/** Sends a contract event to the page. */
export type Emit = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export interface CoreOptions {
  dataDir: string;
  version: string;
  logFile: string | null;
  platform: PlatformServices;
  emit: Emit;
  /** Size of the embedded sample data set. @default { contacts: 5000, orders: 1500 } */
  sample?: { contacts: number; orders: number; seed?: number };
  /**
   * Where the embedded sample API runs: a worker thread (the app), or this thread, which lets tests
   * reach the server object (`sampleApi.server`) to inject faults or edit records. @default 'worker'
   */
  sampleApiThread?: 'worker' | 'main';
  /** `session-only` keeps every token in memory (test harness without a Secret Service). @default 'keychain' */
  keychain?: 'keychain' | 'session-only';
  /** Sync automatically at start when the data is older than this many minutes; 0 = never. @default 60 */
  autoSyncAfterMinutes?: number;
  /** Background sync every N minutes; 0 = off. @default 0 */
  periodicSyncMinutes?: number;
  /** How often to probe the service while it is unreachable, in ms. @default 15000 */
  probeIntervalMs?: number;
  /**
   * Script of the database worker. @default beside the cache client (`worker.ts` when running from
   * sources, `dbWorker.js` in the build); the benchmark points it at the built bundle.
   */
  cacheWorkerUrl?: URL;
  /** Script of the sync process. @default beside the sync controller (the benchmark points it at the build) */
  syncWorkerUrl?: URL;
  /** Called with the id of each sync process started (the benchmark samples its memory). */
  onSyncProcessStart?: (pid: number) => void;
  /** Called with what a sync process used (peak RSS, CPU), measured by itself at its end. */
  onSyncProcessEnd?: (stats: SyncProcessStats) => void;
}

/** The embedded sample API, started on demand, stoppable (the e2e tests take the service "offline"). */
export interface SampleApiRuntime {
  /** Starts the server (on its previous port if it ran before) and returns its base URL. */
  ensure(): Promise<string>;
  stop(): Promise<void>;
  readonly running: boolean;
  /** The server object when it runs in this thread (`sampleApiThread: 'main'`), else null. */
  readonly server: SampleApi | null;
}

export interface Core {
  readonly options: CoreOptions;
  readonly profiles: ProfileStore;
  readonly credentials: CredentialStore;
  readonly sampleApi: SampleApiRuntime;
  emit: Emit;
  /** Begins background work: auto sync, connectivity probes. Idempotent. */
  start(): void;
  close(): Promise<void>;
  /** The active profile, or a NO_PROFILE error. */
  activeProfile(): Profile;
  /** The cache of the active profile (opened on first use). */
  cache(): Promise<CacheClient>;
  /** Starts a sync of the active profile; BUSY if one runs. Resolves when it has started. */
  startSync(resources: Resource[]): Promise<{ runId: string }>;
  cancelSync(): boolean;
  readonly syncRunning: boolean;
  connectivity(): Connectivity;
  /** Closes and deletes the active profile's cache file. */
  clearCache(): Promise<void>;
  /** Closes the cache of a profile (before its file is removed or replaced). */
  closeCache(profileId: string): Promise<void>;
  /** Tokens for a request: sample tokens for sample profiles, else the credential store. */
  tokensFor(profile: Profile): Promise<Tokens>;
  /** Runs an export (the handler shows the dialog first). */
  exports: Map<string, AbortController>;
}

/**
 * Creates the core. Nothing is opened or started until used or `start()` is called (which opens
 * the active profile's cache, checks whether an automatic sync is due, and starts probing).
 * @throws nothing; a damaged profiles file is moved aside and reported by `profiles.loadProblem()`
 */
export function createCore(options: CoreOptions): Core {
  // Outside Electron (CLI, tests) the log goes into the data directory, next to what it describes.
  if (options.logFile === null) logger.transports.file.resolvePathFn = () => join(logsDir(options.dataDir), 'letterdesk.log');
  const profiles = ProfileStore.open(options.dataDir);
  const credentials = new CredentialStore({ sessionOnly: options.keychain === 'session-only' });
  const sampleSize = options.sample ?? { contacts: 5000, orders: 1500 };
  const caches = new Map<string, Promise<CacheClient>>();
  const failedOpens = new WeakSet<Promise<CacheClient>>();
  let sync: { profileId: string; runId: string; abort: AbortController } | null = null;
  /** Settles when the last sync started has ended and released its lock (`close` waits for it). */
  let syncEnded: Promise<void> = Promise.resolve();
  let state: Connectivity = { profileId: null, state: 'unknown', lastSuccessAt: null, message: null };
  let probeTimer: NodeJS.Timeout | null = null;
  let periodicTimer: NodeJS.Timeout | null = null;
  let started = false;
  let closed = false;

  // The embedded sample API runs in a worker thread by default (its page generation would otherwise
  // stall the main process's event loop); tests that steer it (faults, edits) run it in-thread.
  let sampleServer: SampleApi | null = null;
  let sampleWorker: Worker | null = null;
  let sampleBaseUrl: string | null = null;
  let sampleStarting: Promise<string> | null = null;
  let samplePort = 0;
  const startSampleWorker = (port: number): Promise<{ worker: Worker; baseUrl: string }> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(sampleApiWorkerUrl(), { workerData: { ...sampleSize, port } });
      worker.once('message', (message: { type: string; baseUrl?: string; error?: ErrorPayload }) => {
        if (message.type === 'ready' && message.baseUrl) resolve({ worker, baseUrl: message.baseUrl });
        else {
          void worker.terminate();
          reject(fromErrorPayload(message.error ?? { code: 'INTERNAL', message: 'The sample API did not start.' }));
        }
      });
      worker.once('error', reject);
    });
  const sampleApi: SampleApiRuntime = {
    ensure() {
      if (sampleBaseUrl) return Promise.resolve(sampleBaseUrl);
      sampleStarting ??= (async () => {
        try {
          if (options.sampleApiThread === 'main') {
            sampleServer = await startSampleApi({ ...sampleSize, port: samplePort });
            sampleBaseUrl = sampleServer.baseUrl;
          } else {
            const started = await startSampleWorker(samplePort);
            sampleWorker = started.worker;
            sampleBaseUrl = started.baseUrl;
          }
          samplePort = Number(new URL(sampleBaseUrl).port);
          return sampleBaseUrl;
        } finally {
          sampleStarting = null;
        }
      })();
      return sampleStarting;
    },
    async stop() {
      const server = sampleServer;
      const worker = sampleWorker;
      sampleServer = null;
      sampleWorker = null;
      sampleBaseUrl = null;
      await server?.close();
      await worker?.terminate();
    },
    get running() {
      return sampleBaseUrl !== null;
    },
    get server() {
      return sampleServer;
    },
  };

  const setConnectivity = (profileId: string | null, next: ConnectivityState, message: string | null, success: boolean): void => {
    const lastSuccessAt = success ? new Date().toISOString() : state.profileId === profileId ? state.lastSuccessAt : null;
    const changed = state.state !== next || state.profileId !== profileId || state.message !== message;
    state = { profileId, state: next, lastSuccessAt, message };
    if (changed) options.emit('connectivityChanged', state);
    scheduleProbe();
  };

  const stateForError = (code: string): ConnectivityState => {
    if (code === 'AUTH_REJECTED' || code === 'AUTH_MISSING') return 'auth-needed';
    if (code === 'NETWORK_UNREACHABLE' || code === 'TIMEOUT') return 'offline';
    if (code === 'SERVER_ERROR' || code === 'RATE_LIMITED' || code === 'BAD_RESPONSE') return 'unreachable';
    return state.state;
  };

  const activeProfile = (): Profile => {
    const profile = profiles.active();
    if (!profile) throw new LetterdeskError('NO_PROFILE', 'No profile is selected. Open Profiles to add one, or explore with sample data.');
    return profile;
  };

  const tokensFor = async (profile: Profile): Promise<Tokens> => {
    if (profile.sampleData) return { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
    const tokens = await credentials.get(profile.id);
    if (!tokens) throw new LetterdeskError('AUTH_MISSING', `No token is stored for profile "${profile.name}". Open Profiles and enter the access token.`);
    return tokens;
  };

  /** Base URL for requests: sample profiles follow the embedded server wherever it listens. */
  const baseUrlFor = async (profile: Profile): Promise<string> => (profile.sampleData ? sampleApi.ensure() : profile.baseUrl);

  /**
   * The active profile's cache (its database worker), opened on first use or by `start()`. A failed
   * open (CACHE_DAMAGED, CACHE_TOO_NEW, DISK_FULL) stays the answer of every call, so that every
   * view tells the person the same thing, until `retry` (a sync, which offers the fresh cache) or
   * closing the cache (clear, profile switch) opens the file again.
   */
  const cache = (retry = false): Promise<CacheClient> => {
    if (!started && closed) return Promise.reject(new LetterdeskError('CANCELLED', 'Letterdesk is closing.'));
    const profile = activeProfile();
    let client = caches.get(profile.id);
    if (client && retry && failedOpens.has(client)) {
      caches.delete(profile.id);
      client = undefined;
    }
    if (!client) {
      mkdirSync(cacheDir(options.dataDir), { recursive: true });
      const opening: Promise<CacheClient> = CacheClient.open(cacheFilePath(options.dataDir, profile.id), {
        ...(options.cacheWorkerUrl ? { workerUrl: options.cacheWorkerUrl } : {}),
        // The first page was answered by the startup reader, then the worker's open failed.
        onLateFailure: () => failedOpens.add(opening),
      });
      opening.catch(() => failedOpens.add(opening));
      caches.set(profile.id, opening);
      client = opening;
    }
    return client;
  };

  const closeCache = async (profileId: string): Promise<void> => {
    const client = caches.get(profileId);
    caches.delete(profileId);
    if (client) await (await client.catch(() => null))?.close();
  };

  /** One cheap request to learn whether the service answers (page 0 with one row). */
  const probe = async (): Promise<void> => {
    const profile = profiles.active();
    if (!profile || sync) return;
    if (profile.sampleData && !sampleApi.running) {
      // The embedded sample API was stopped on purpose (tests); it is "offline" until restarted.
      setConnectivity(profile.id, 'offline', 'The sample API is not running.', false);
      return;
    }
    try {
      const client = createApiClient({ baseUrl: await baseUrlFor(profile), getTokens: () => tokensFor(profile), timeoutMs: 10_000, retry: { limit: 0 } });
      await client.listContacts({ page: 0, pageSize: 1, ...(profile.accountId ? { 'meta.account_id': profile.accountId } : {}) });
      setConnectivity(profile.id, 'online', null, true);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'INTERNAL';
      setConnectivity(profile.id, stateForError(code), (error as Error).message, false);
    }
  };

  function scheduleProbe(): void {
    if (!started) return;
    if (probeTimer) clearTimeout(probeTimer);
    probeTimer = null;
    if (state.state === 'offline' || state.state === 'unreachable' || state.state === 'unknown') {
      probeTimer = setTimeout(() => void probe(), options.probeIntervalMs ?? 15_000);
      probeTimer.unref?.();
    }
  }

  const startSyncRun = async (resources: Resource[]): Promise<{ runId: string }> => {
    const profile = activeProfile();
    if (sync) throw new LetterdeskError('BUSY', 'A sync is already running. Wait for it to finish or cancel it.');
    refuseWhileSyncedElsewhere(options.dataDir, profile.id);
    const runId = randomUUID();
    const abort = new AbortController();
    sync = { profileId: profile.id, runId, abort };
    let tokens: Tokens;
    let baseUrl: string;
    try {
      tokens = await tokensFor(profile);
      baseUrl = await baseUrlFor(profile);
    } catch (error) {
      sync = null;
      const code = (error as { code?: string }).code ?? 'INTERNAL';
      setConnectivity(profile.id, stateForError(code), (error as Error).message, false);
      throw error;
    }
    const file = cacheFilePath(options.dataDir, profile.id);
    try {
      await cache(true); // migrations run before the sync process opens the file
    } catch (error) {
      sync = null;
      throw error;
    }
    const totals = new Map<Resource, { done: number; total: number | null }>();
    /** Each resource's run is announced once (syncFinished, then cacheChanged if it was published). */
    const announced = new Set<Resource>();
    const announce = (run: SyncRun): void => {
      if (announced.has(run.resource)) return;
      announced.add(run.resource);
      options.emit('syncFinished', run);
      // Published now, while the next resource is still being read: the page shows these rows at once.
      if (run.outcome === 'succeeded') options.emit('cacheChanged', { profileId: profile.id, resources: [run.resource] });
    };
    syncEnded = startSync({
      runId,
      profileId: profile.id,
      ...(options.platform.launchSyncProcess ? { launcher: options.platform.launchSyncProcess } : {}),
      ...(options.syncWorkerUrl ? { workerUrl: options.syncWorkerUrl } : {}),
      ...(options.onSyncProcessStart ? { onProcessStart: options.onSyncProcessStart } : {}),
      ...(options.onSyncProcessEnd ? { onProcessEnd: options.onSyncProcessEnd } : {}),
      onOutcome: (outcome) => {
        if (outcome === 'ok') setConnectivity(profile.id, 'online', null, true);
        else if (outcome === 'AUTH_REJECTED' || outcome === 'NETWORK_UNREACHABLE' || outcome === 'TIMEOUT') setConnectivity(profile.id, stateForError(outcome), null, false);
      },
      cacheFile: file,
      baseUrl,
      tokens,
      accountId: profile.accountId,
      pageSize: profile.pageSize,
      resources,
      signal: abort.signal,
      // A run with another resource still to read (published, or failed without ending the sync)
      // is announced at once: the page shows its rows, or its error, while the next one is read.
      // The last run, and one that ends the sync, is announced once the sync has ended (below): a
      // status asked for in answer to it then says "not running".
      onRun: (run) => {
        if (!endsSync(run) && run.resource !== resources.at(-1)) announce(run);
      },
      onProgress: (progress) => {
        const event = { ...progress, profileId: profile.id, runId };
        options.emit('syncProgress', event);
        totals.set(progress.resource, { done: progress.rowsDone, total: progress.rowsTotal });
        let done = 0;
        let total = 0;
        for (const t of totals.values()) {
          done += t.done;
          total += t.total ?? 0;
        }
        options.platform.setProgress(total > 0 ? done / total : null);
      },
    })
      .then((runs: SyncRun[]) => {
        sync = null;
        for (const run of runs) announce(run);
        // A run whose records kept changing (DRIFT) had every request answered: the per-request
        // outcomes have already said the service is online, and its failure says nothing about it.
        const failed = runs.find((r) => r.outcome === 'failed' && r.error?.code !== 'DRIFT');
        if (failed?.error) {
          if (failed.error.code === 'AUTH_REJECTED') void credentials.markRejected(profile.id, tokens.accessToken).catch(() => {});
          setConnectivity(profile.id, stateForError(failed.error.code), failed.error.message, false);
        } else if (runs.some((r) => r.outcome === 'succeeded')) {
          setConnectivity(profile.id, 'online', null, true);
        }
      })
      .catch((error: unknown) => {
        sync = null;
        logger.error('sync failed unexpectedly', error);
        const code = (error as { code?: string }).code ?? 'INTERNAL';
        if (code === 'AUTH_REJECTED') void credentials.markRejected(profile.id, tokens.accessToken).catch(() => {});
        setConnectivity(profile.id, stateForError(code), (error as Error).message, false);
        const now = new Date().toISOString();
        for (const resource of resources) {
          announce({ runId, resource, startedAt: now, endedAt: now, outcome: code === 'CANCELLED' ? 'cancelled' : 'failed', rows: 0, invalidRecords: 0, error: { code, message: (error as Error).message } });
        }
      })
      .finally(() => {
        options.platform.setProgress(null);
      });
    return { runId };
  };

  const maybeAutoSync = async (): Promise<void> => {
    const profile = profiles.active();
    const maxAge = options.autoSyncAfterMinutes ?? 60;
    if (!profile || maxAge <= 0 || sync) return;
    try {
      const states = await (await cache()).resourceStates();
      const oldest = Math.min(...Object.values(states).map((s) => (s.lastSyncedAt ? Date.parse(s.lastSyncedAt) : 0)));
      if (Date.now() - oldest > maxAge * 60_000) await startSyncRun(['contacts', 'orders']);
    } catch (error) {
      logger.warn('automatic sync did not start', error);
    }
  };

  return {
    options,
    profiles,
    credentials,
    sampleApi,
    emit: options.emit,
    start() {
      if (started) return;
      started = true;
      // Open the active profile's cache now, while the window loads, so the first page is instant.
      if (profiles.active()) void cache().catch(() => {});
      void maybeAutoSync().then(() => (sync ? undefined : probe()));
      const every = options.periodicSyncMinutes ?? 0;
      if (every > 0) {
        periodicTimer = setInterval(() => void (sync ? undefined : startSyncRun(['contacts', 'orders']).catch(() => {})), every * 60_000);
        periodicTimer.unref?.();
      }
    },
    async close() {
      started = false;
      closed = true;
      if (probeTimer) clearTimeout(probeTimer);
      if (periodicTimer) clearInterval(periodicTimer);
      sync?.abort.abort();
      for (const controller of this.exports.values()) controller.abort();
      // The cancelled sync ends its process and releases its lock before the caches close.
      await syncEnded;
      await Promise.all([...caches.keys()].map((id) => closeCache(id)));
      await sampleApi.stop();
    },
    activeProfile,
    cache,
    startSync: startSyncRun,
    cancelSync() {
      if (!sync) return false;
      sync.abort.abort();
      return true;
    },
    get syncRunning() {
      return sync !== null;
    },
    connectivity: () => {
      const active = profiles.active();
      return state.profileId === (active?.id ?? null) ? state : { profileId: active?.id ?? null, state: 'unknown', lastSuccessAt: null, message: null };
    },
    async clearCache() {
      const profile = activeProfile();
      if (sync) throw new LetterdeskError('BUSY', 'A sync is running. Cancel it before clearing the cache.');
      // Held until the files are gone: a sync the command line starts meanwhile is refused (BUSY)
      // instead of writing into a cache being deleted.
      const file = cacheFilePath(options.dataDir, profile.id);
      const release = acquireSyncLock(file);
      try {
        await closeCache(profile.id);
        for (const part of cacheFileSet(file)) rmSync(part, { force: true });
      } finally {
        release();
      }
      options.emit('cacheChanged', { profileId: profile.id, resources: ['contacts', 'orders'] });
    },
    closeCache,
    tokensFor,
    exports: new Map(),
  };
}
