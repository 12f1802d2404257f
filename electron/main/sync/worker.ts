/**
 * The sync worker thread: its own connection to the cache, the network, parsing and writes, all off
 * the main thread (the query worker keeps serving the last published snapshot meanwhile; WAL).
 * A thin shell around {@link runSync}; started by controller.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SyncProgress, SyncRun } from '../../../shared/contract.ts';
import { toErrorPayload, type ErrorCode, type ErrorPayload } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { openCache, useBulkWriteSettings } from '../cache/db.ts';
import { runSync } from './engine.ts';
import { createHttpPageSource } from './httpSource.ts';

/** What `workerData` holds. */
export interface SyncWorkerData {
  cacheFile: string;
  baseUrl: string;
  tokens: { accessToken: string; refreshToken: string | null };
  accountId: string | null;
  pageSize: number;
  concurrency: number;
  resources: Resource[];
  runId: string;
  profileId: string;
}

/** Messages to the controller. */
export type SyncWorkerMessage =
  | { type: 'progress'; value: SyncProgress }
  | { type: 'outcome'; value: 'ok' | ErrorCode }
  /** One resource's run has ended (posted before the next resource starts). */
  | { type: 'run'; run: SyncRun }
  | { type: 'done'; runs: SyncRun[] }
  | { type: 'error'; error: ErrorPayload };

const port = parentPort;
if (port) {
  const data = workerData as SyncWorkerData;
  const abort = new AbortController();
  port.on('message', (msg: { type: string }) => {
    if (msg.type === 'cancel') abort.abort();
  });
  const post = (m: SyncWorkerMessage) => port.postMessage(m);
  void (async () => {
    let db: ReturnType<typeof openCache> | null = null;
    try {
      db = openCache(data.cacheFile, { skipCheck: true });
      // This connection stages and rebuilds the whole resource: bounded memory (issue 8, peak RSS
      // of the syncing process ≤ 300 MB) and few checkpoints (see db.ts).
      useBulkWriteSettings(db);
      const source = createHttpPageSource({
        baseUrl: data.baseUrl,
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
        signal: abort.signal,
        onProgress: (value) => post({ type: 'progress', value }),
        onRun: (run) => post({ type: 'run', run }),
      });
      post({ type: 'done', runs });
    } catch (error) {
      post({ type: 'error', error: toErrorPayload(error) });
    } finally {
      db?.close();
      port.close();
    }
  })();
}
