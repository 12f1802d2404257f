/**
 * The operating-system process a sync runs in (DESIGN.md "Sync"), and the protocol between it and
 * the controller (controller.ts); its entry is ../syncProcess.ts. The sync is the one job that holds
 * megabytes of JSON per page for minutes; in a process of its own its peak memory is its own (not
 * added to the window's, the database worker's and the main thread's), a heap limit applies to it
 * alone, and everything it allocated goes back to the system when it exits — freed memory in a
 * long-lived process mostly stays in the allocator's arenas.
 *
 * Two launchers, one protocol (structured-clone messages both ways):
 * - {@link nodeSyncProcessLauncher}: `child_process.fork` with an IPC channel ('advanced'
 *   serialisation). Used by the CLI, the tests and the benchmark, and the default.
 * - the Electron app passes its own launcher (app/syncProcess.ts: Electron's `utilityProcess`,
 *   the process type Electron provides for this; `child_process.fork` of the Electron binary is
 *   not meant for that).
 */
import { fork } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import type { SyncProgress, SyncRun } from '../../../shared/contract.ts';
import type { ErrorCode, ErrorPayload } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewRefresh } from '../../../shared/views.ts';
import type { QueryEncoding } from '../../../shared/serviceQuery.ts';
import { syncChildEnv } from './childEnv.ts';

/** What the `start` message holds. */
export interface SyncStartData {
  cacheFile: string;
  baseUrl: string;
  tokens: { accessToken: string; refreshToken: string | null };
  accountId: string | null;
  pageSize: number;
  concurrency: number;
  resources: Resource[];
  runId: string;
  profileId: string;
  /** The file the starting process logs to (the app's main.log, the CLI's cli.log), or null for the default. */
  logFile: string | null;
  /** After the orders are published, download the template previews the cache lacks (previews/refresh.ts); false deletes them. */
  previews: boolean;
  /** After the resources and views, read the kept filters of the resources published (keptRefresh.ts). */
  keptFilters: boolean;
  /** Days the observed history is kept (engine.ts `RunSyncOptions.historyRetentionDays`). */
  historyRetentionDays: number;
  /**
   * Saved views whose memberships are refreshed (sync/viewRefresh.ts), each after its resource's
   * run, or after the resources when its resource is not among them (`resources` may be empty).
   */
  views: string[];
  /** How the views' queries go on the wire (the profile's setting). */
  encoding: QueryEncoding;
}

/** Messages from the controller to the sync process. */
export type SyncControlMessage = { type: 'start'; data: SyncStartData } | { type: 'cancel' };

/** What the sync process used, measured by itself at the end (`process.resourceUsage()`). */
export interface SyncProcessStats {
  /** Peak resident set size of the sync process, bytes (the OS's `ru_maxrss`). */
  maxRssBytes: number;
  /** CPU time of the process (user + system, all threads), ms. */
  cpuMs: number;
  /** The JavaScript heap limit the process runs with, bytes (shows whether its heap limit applied). */
  heapLimitBytes: number;
}

/** Messages from the sync process to the controller. */
export type SyncProcessMessage =
  | { type: 'progress'; value: SyncProgress }
  | { type: 'outcome'; value: 'ok' | ErrorCode }
  /** One resource's run has ended (posted before the next resource starts). */
  | { type: 'run'; run: SyncRun }
  /** Progress of the refresh of one saved view's membership. */
  | { type: 'viewProgress'; viewId: string; value: SyncProgress }
  /** The refresh of one saved view has ended (posted before the next one starts). */
  | { type: 'view'; refresh: ViewRefresh }
  | { type: 'done'; runs: SyncRun[]; stats: SyncProcessStats }
  | { type: 'error'; error: ErrorPayload; stats: SyncProcessStats };

/** V8 heap limits of a sync process, in MiB (undefined = V8's defaults). */
export interface SyncHeapLimit {
  /** Old generation (`--max-old-space-size`). */
  maxOldGenerationSizeMb: number;
  /** Young generation; passed as its semi-space, a third of it (`--max-semi-space-size`, ≥ 1). */
  maxYoungGenerationSizeMb: number;
}

/** How a sync process ended. */
export interface SyncProcessExit {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it (Node launcher only), else null. */
  signal: string | null;
  /** The last few KB of what it wrote to stderr (V8's "heap out of memory" report, a native crash). */
  stderrTail: string;
}

/** A running sync process, as the controller sees it. */
export interface SyncProcess {
  /**
   * Its process id: undefined if it could not be started, and with Electron's utility process until
   * it has spawned (the controller reads it right after the launch, so `onProcessStart` reports
   * Node launches only: the benchmark's).
   */
  readonly pid: number | undefined;
  /** Sends a message (structured clone). Ignored once the process has exited. */
  postMessage(message: unknown): void;
  /** Every message the process sends. */
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the process has exited, for whatever reason (including failure to start). */
  onExit(listener: (exit: SyncProcessExit) => void): void;
  /** Ends the process at once (after it reported its result, or when giving up on it). */
  kill(): void;
}

/**
 * Starts `script` as a sync process.
 * @param script the entry (`syncProcess.ts` from sources, `syncProcess.js` beside the built main bundle)
 * @param execArgv runtime flags for the new process (the heap limit, see {@link heapLimitArgs})
 */
export type SyncProcessLauncher = (script: URL, execArgv: string[]) => SyncProcess;

/**
 * Runtime flags of every sync process besides its heap limit: `gc()` is exposed so that the
 * engine can collect what the fetch left on the heap before a build, whose peak would otherwise
 * sit on top of it (engine.ts).
 */
export const SYNC_PROCESS_FLAGS: readonly string[] = ['--expose-gc'];

/**
 * Environment variables a sync process gets on top of the allowed ones of its parent
 * (childEnv.ts). `MALLOC_ARENA_MAX`: glibc (Linux) gives each thread that allocates an arena of its own and keeps what was freed in it;
 * a build allocates in several threads at once (the connection, the search index thread,
 * SQLite's sorter helpers), and two arenas, one per core of a small machine, keep its peak lower
 * at no cost in time. Other platforms' allocators ignore the variable.
 */
export const SYNC_PROCESS_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** Runtime flags for a heap limit (none for undefined: V8's defaults). */
export function heapLimitArgs(limit: SyncHeapLimit | undefined): string[] {
  if (!limit) return [];
  const semiSpace = Math.max(1, Math.round(limit.maxYoungGenerationSizeMb / 3));
  return [`--max-old-space-size=${limit.maxOldGenerationSizeMb}`, `--max-semi-space-size=${semiSpace}`];
}

/** Bytes of stderr kept for the log: enough for V8's out-of-memory report. */
const STDERR_TAIL = 4096;

/**
 * What every launcher keeps of its process: the tail of its stderr (decoded as UTF-8 across chunks,
 * so a character split between two chunks stays whole), and its exit, reported once to every
 * listener. Used by both launchers (this file, app/syncProcess.ts).
 */
export function exitRelay(): {
  /** Appends output of the process (raw bytes, or text already decoded) to the kept tail. */
  stderr(chunk: Buffer | string): void;
  /** Reports the exit (the first call counts). */
  exit(info: Omit<SyncProcessExit, 'stderrTail'>): void;
  onExit(listener: (exit: SyncProcessExit) => void): void;
  readonly exited: boolean;
} {
  let tail = '';
  let exited = false;
  const decoder = new StringDecoder('utf8');
  const listeners: ((exit: SyncProcessExit) => void)[] = [];
  const keep = (text: string): void => {
    tail = (tail + text).slice(-STDERR_TAIL);
  };
  return {
    stderr(chunk) {
      keep(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    },
    exit(info) {
      if (exited) return;
      exited = true;
      keep(decoder.end());
      for (const listener of listeners) listener({ ...info, stderrTail: tail });
    },
    onExit(listener) {
      listeners.push(listener);
    },
    get exited() {
      return exited;
    },
  };
}

/** {@link SyncProcessLauncher} over `child_process.fork` (plain Node: CLI, tests, benchmark). */
export const nodeSyncProcessLauncher: SyncProcessLauncher = (script, execArgv) => {
  const child = fork(fileURLToPath(script), [], {
    execArgv,
    env: syncChildEnv(process.env, SYNC_PROCESS_ENV),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  const relay = exitRelay();
  child.stderr?.on('data', (chunk: Buffer) => relay.stderr(chunk));
  // 'close' comes after stdio has ended, so the stderr tail is complete.
  child.once('close', (code, signal) => relay.exit({ code, signal }));
  child.once('error', (error) => {
    relay.stderr(String(error));
    if (child.pid === undefined) relay.exit({ code: null, signal: null });
  });
  return {
    pid: child.pid,
    postMessage(message) {
      if (!relay.exited && child.connected) child.send(message as Parameters<typeof child.send>[0], (error) => void error);
    },
    onMessage(listener) {
      child.on('message', listener);
    },
    onExit: relay.onExit,
    kill() {
      if (!relay.exited) child.kill('SIGKILL');
    },
  };
};
