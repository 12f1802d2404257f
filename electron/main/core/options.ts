/**
 * What a front end (the Electron app, the command line, the test harness, the benchmark) gives the
 * core when it creates one: where the data lives, how to talk to the person's operating system and
 * page, and the knobs of background work.
 */
import type { EventName, EventPayload } from '../../../shared/contract.ts';
import type { SampleApiOptions } from '../sampleApi/server.ts';
import type { SyncProcessLauncher } from '../sync/process.ts';
import type { SyncProcessStats } from '../sync/process.ts';

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
   * The window as a PDF, each page at its CSS page size (Electron `webContents.printToPDF`; the
   * test harness uses the same engine through Playwright's `page.pdf`). Absent where there is no
   * window (the command line).
   */
  printToPdf?(): Promise<Uint8Array>;
  /**
   * Starts a sync process (sync/process.ts). The app passes Electron's `utilityProcess`.
   * @default `child_process.fork` (sync/process.ts `nodeSyncProcessLauncher`)
   */
  launchSyncProcess?: SyncProcessLauncher;
}

/** Sends a contract event to the page (a no-op for the command line). */
export type Emit = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/**
 * Where tokens may come from besides the credential store. The app uses the store alone; the
 * command line adds the environment and a hidden prompt (DESIGN.md "Credentials and profiles").
 */
export interface TokenSourceOptions {
  /** Read `LETTERDESK_ACCESS_TOKEN` / `LETTERDESK_REFRESH_TOKEN` from here first. @default none */
  env?: NodeJS.ProcessEnv;
  /** Asks the person for a secret without echoing it; null when nobody can answer. @default null */
  promptSecret?: ((message: string) => Promise<string>) | null;
  /** Told a note before prompting (the keychain could not be read). @default ignored */
  onNote?: (message: string) => void;
}

/** Options of `createCore`. */
export interface CoreOptions {
  dataDir: string;
  version: string;
  /** The app's log file (shown in About), or null outside Electron: the log then goes to `<dataDir>/logs/<logName>`. */
  logFile: string | null;
  /** File name of the log when `logFile` is null. @default 'letterdesk.log' */
  logName?: string;
  platform: PlatformServices;
  emit: Emit;
  /**
   * The embedded sample API: its size and, for the command line's `sample-api`, any other option
   * of the server (host, port, tokens, faults). @default { contacts: 5000, orders: 1500 }
   */
  sample?: SampleApiOptions;
  /**
   * Where the embedded sample API runs: a worker thread (the app), or this thread, which lets tests
   * reach the server object (`sampleApi.server`) to inject faults or edit records. @default 'worker'
   */
  sampleApiThread?: 'worker' | 'main';
  /** `session-only` keeps every token in memory (test harness without a Secret Service). @default 'keychain' */
  keychain?: 'keychain' | 'session-only';
  /** Keychain service name; tests use their own to stay apart from real profiles. @default 'Letterdesk' */
  keychainService?: string;
  /** Token sources besides the credential store. @default the store alone */
  tokenSources?: TokenSourceOptions;
  /** Sync automatically at start when the data is older than this many minutes; 0 = never. @default 60 */
  autoSyncAfterMinutes?: number;
  /** Background sync every N minutes; 0 = off. @default 0 */
  periodicSyncMinutes?: number;
  /** How often to probe the service while it is unreachable, in ms. @default 15000 */
  probeIntervalMs?: number;
  /**
   * Script of the database worker. @default `entryUrl('dbWorker')` (`dbWorker.ts` when running from
   * sources, `dbWorker.js` in the build); the benchmark points it at the built bundle.
   */
  cacheWorkerUrl?: URL;
  /** Script of the sync process. @default beside the sync controller (the benchmark points it at the build) */
  syncProcessUrl?: URL;
  /** Called with the id of each sync process started (the benchmark samples its memory). */
  onSyncProcessStart?: (pid: number) => void;
  /** Called with what a sync process used (peak RSS, CPU), measured by itself at its end. */
  onSyncProcessEnd?: (stats: SyncProcessStats) => void;
}
