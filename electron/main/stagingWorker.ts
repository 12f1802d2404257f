/**
 * Entry of the thread that writes a read's staged pages (cache/stagingThread.ts starts it; built
 * as `stagingWorker.js`): opens its own connection to the cache with the sync's bulk settings and
 * writes each page it is handed in one transaction, answering with the page's sequence number
 * (and the error, if its transaction threw); on `close` it closes the connection and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openCache, useBulkWriteSettings } from './cache/db.ts';
import { StageWriter } from './cache/ingest.ts';
import { CLOSE, type StagingWorkerData, type StagingWorkerReply, type StagingWorkerRequest } from './cache/stagingThread.ts';

const db = openCache((workerData as StagingWorkerData).cacheFile, { skipCheck: true });
useBulkWriteSettings(db);
const writer = new StageWriter(db);

parentPort?.on('message', (request: StagingWorkerRequest | typeof CLOSE) => {
  if (request === CLOSE) {
    db.close();
    parentPort?.close();
    return;
  }
  let reply: StagingWorkerReply = { seq: request.seq };
  try {
    writer.writeValues(request.pass, request.page, request.serverCount, request.values);
  } catch (error) {
    const e = error as { name?: string; message?: string; code?: unknown };
    reply = { seq: request.seq, error: { name: e.name ?? 'Error', message: e.message ?? String(error), ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
  }
  parentPort?.postMessage(reply);
});
