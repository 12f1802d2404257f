/**
 * The staging writer thread's side (stageWriter.ts): its own connection to the cache writes each
 * page of column values the sync's thread posts, with its `sync_pages` row, and answers with the
 * page's first rowid or SQLite's error.
 */
import type { MessagePort } from 'node:worker_threads';
import { openStagingWriter } from '../store/db.ts';
import { StageWriter } from './ingest.ts';
import type { StageWriterReply, StageWriterRequest, StageWriterWorkerData } from './stageWriter.ts';

/** The worker's side: writes each page it is sent, in order, and answers it; ends on 'close'. */
export function runStageWriter(data: StageWriterWorkerData, port: MessagePort): void {
  const db = openStagingWriter(data.cacheFile);
  const writer = new StageWriter(db);
  port.postMessage('running' satisfies StageWriterReply);
  port.on('message', (request: StageWriterRequest) => {
    if (request === 'close') {
      db.close();
      port.close();
      return;
    }
    let reply: StageWriterReply;
    try {
      reply = { id: request.id, firstRowid: writer.writeValues(request.pass, request.page, request.serverCount, request.values) };
    } catch (error) {
      const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
      reply = { id: request.id, error: { name: String(name ?? 'Error'), message: String(message ?? error), ...(typeof code === 'string' ? { code } : {}) } };
    }
    port.postMessage(reply);
  });
}
