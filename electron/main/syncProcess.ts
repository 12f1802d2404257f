/**
 * The entry of the sync process (sync/process.ts): its own connection to the cache, the network,
 * parsing and writes, all outside the main process (the database worker keeps serving the last
 * published snapshot meanwhile; WAL). A thin shell around {@link runSync}; started by
 * sync/controller.ts, which sends one `start` message with {@link SyncStartData} and may send `cancel`.
 *
 * Runs under Electron's utility process (`process.parentPort`) or as a Node child with an IPC
 * channel (`process.send`). Before its last message ('done' or 'error') it has closed the cache,
 * so the controller can end the process as soon as that message arrives.
 */
import { readdirSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { toErrorPayload } from '../../shared/errors.ts';
import { openCache, useBulkWriteSettings } from './cache/store/db.ts';
import { logger } from './base/log.ts';
import { refreshPreviews } from './previews/refresh.ts';
import { runSync } from './sync/engine.ts';
import { createHttpPageSource } from './sync/httpSource.ts';
import type { SyncControlMessage, SyncProcessMessage, SyncProcessStats, SyncStartData } from './sync/process.ts';

/** The channel to the controller, whichever runtime started this process. */
interface ParentChannel {
  post(message: SyncProcessMessage): void;
  onMessage(listener: (message: SyncControlMessage) => void): void;
}

function parentChannel(): ParentChannel | null {
  const electronPort = (process as { parentPort?: { postMessage(m: unknown): void; on(e: 'message', l: (e: { data: unknown }) => void): void } }).parentPort;
  if (electronPort) {
    return {
      post: (m) => electronPort.postMessage(m),
      onMessage: (listener) => electronPort.on('message', (e) => listener(e.data as SyncControlMessage)),
    };
  }
  const send = process.send?.bind(process);
  if (!send) return null;
  return {
    post: (m) => {
      if (process.connected) send(m);
    },
    onMessage: (listener) => process.on('message', (m) => listener(m as SyncControlMessage)),
  };
}

function stats(): SyncProcessStats {
  const usage = process.resourceUsage();
  return { maxRssBytes: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, heapLimitBytes: getHeapStatistics().heap_size_limit };
}

async function run(data: SyncStartData, signal: AbortSignal, post: (m: SyncProcessMessage) => void): Promise<SyncProcessMessage> {
  let db: ReturnType<typeof openCache> | null = null;
  try {
    db = openCache(data.cacheFile, { skipCheck: true });
    // This connection stages and rebuilds the whole resource: bounded memory and few checkpoints
    // (see db.ts).
    useBulkWriteSettings(db);
    const source = createHttpPageSource({
      baseUrl: data.baseUrl,
      encoding: data.encoding,
      tokens: data.tokens,
      accountId: data.accountId,
      onOutcome: (value) => post({ type: 'outcome', value }),
    });
    const runs = await runSync(db, source, {
      resources: data.resources,
      pageSize: data.pageSize,
      concurrency: data.concurrency,
      runId: data.runId,
      profileId: data.profileId,
      accountId: data.accountId,
      origin: new URL(data.baseUrl).origin,
      signal,
      onProgress: (value) => post({ type: 'progress', value }),
      onRun: (run) => post({ type: 'run', run }),
      keptFilters: data.keptFilters === true,
      historyRetentionDays: data.historyRetentionDays,
      views: {
        ids: data.views ?? [],
        onViewRefreshed: (refresh) => post({ type: 'view', refresh }),
        onViewProgress: (viewId, value) => post({ type: 'viewProgress', viewId, value }),
      },
    });
    const orders = runs.find((r) => r.resource === 'orders');
    if (orders?.outcome === 'succeeded' && !signal.aborted) {
      // The sync's last step: it never fails the sync, and what it could not fetch waits for the next one.
      const previews = await refreshPreviews(db, { enabled: data.previews, signal, profileBaseUrl: data.baseUrl });
      if (previews.problem) logger.warn(`sync: ${previews.problem}`);
      else if (previews.attempted > 0) logger.info(`sync: template previews: ${previews.stored} stored, ${previews.failed} failed of ${previews.attempted}`);
    }
    db.close();
    db = null;
    return { type: 'done', runs, stats: stats() };
  } catch (error) {
    try {
      db?.close();
    } catch {
      // the error above is the one to report
    }
    return { type: 'error', error: toErrorPayload(error), stats: stats() };
  }
}

/**
 * Lowers this process's scheduling priority (nice 10 on Linux and macOS, below normal on Windows):
 * the sync is background work, and on a machine with few cores its writer and SQLite's sorter
 * threads would otherwise take the CPU on equal terms with the window, the main process and the
 * database worker that answers the user's searches. Linux applies a priority per thread, so every
 * thread that exists now is lowered; threads started later (SQLite's sorter helpers) inherit it.
 * Never throws: a priority that cannot be changed leaves the sync as it was.
 */
function lowerPriority(): void {
  const below = constants.priority.PRIORITY_BELOW_NORMAL;
  try {
    if (process.platform === 'linux') for (const tid of readdirSync('/proc/self/task')) setPriority(Number(tid), below);
    else setPriority(below);
  } catch {
    // not allowed or not supported here: the sync runs at the default priority
  }
}

lowerPriority();
// Ctrl+C in a terminal reaches the whole process group, this process included. The process that
// started the sync decides what it means (the CLI cancels the sync, which then ends cleanly and
// exits 130); dying of the signal here would turn a cancel into "stopped unexpectedly". A parent
// that goes away closes the channel, which stops this process (below).
process.on('SIGINT', () => {});
const channel = parentChannel();
if (channel) {
  const abort = new AbortController();
  let started = false;
  channel.onMessage((message) => {
    if (message.type === 'cancel') abort.abort();
    else if (message.type === 'start' && !started) {
      started = true;
      const logFile = message.data.logFile;
      if (logFile) logger.transports.file.resolvePathFn = () => logFile;
      void run(message.data, abort.signal, channel.post).then(channel.post);
    }
  });
  // A Node parent that goes away (crash, kill) closes the channel: stop instead of syncing for
  // nobody. The staging written so far lets the next sync resume.
  process.once('disconnect', () => {
    abort.abort();
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
