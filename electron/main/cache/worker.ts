/**
 * The database worker thread (issue 4: database work never runs on the Electron main thread).
 * Opens the cache file given in `workerData.file` and answers {@link WorkerRequest}s from
 * client.ts, one at a time, with {@link WorkerResponse}s. Extensible: a new request `type` is a new
 * case here; `export` requests are routed to `runExport` of electron/main/export/run.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { toErrorPayload, type ErrorPayload } from '../../../shared/errors.ts';
import { openCache } from './db.ts';
import { QUERY_METHODS, type QueryMethod } from './queries.ts';

export type { QueryMethod } from './queries.ts';

/** Messages from the client. */
export type WorkerRequest =
  | { id: number; type: 'query'; method: QueryMethod; args: unknown[] }
  | { id: number; type: 'export'; request: unknown; path: string }
  | { id: number; type: 'cancel'; target: number }
  | { id: number; type: 'close' };

/** Messages to the client. `ready` (id 0) after the file opened, or `ok: false` if it could not. */
export type WorkerResponse =
  | { id: number; type: 'result'; ok: true; value: unknown }
  | { id: number; type: 'result'; ok: false; error: ErrorPayload }
  | { id: number; type: 'progress'; value: unknown }
  | { id: 0; type: 'ready' };

/** What `workerData` must hold. */
export interface CacheWorkerData {
  file: string;
}

interface ExportModule {
  runExport(db: Database.Database, request: unknown, path: string, options: { onProgress: (p: unknown) => void; signal: AbortSignal }): Promise<unknown>;
}

let exportModule: Promise<ExportModule> | null = null;
/** The export module, loaded once: in the background a second after the open, or by the first export. */
function loadExportModule(): Promise<ExportModule> {
  exportModule ??= (import('../export/run.ts' as string) as Promise<ExportModule>).catch((error: unknown) => {
    exportModule = null;
    throw error;
  });
  return exportModule;
}

const port = parentPort;
if (port) {
  const { file } = workerData as CacheWorkerData;
  let db: Database.Database | null = null;
  const running = new Map<number, AbortController>();
  try {
    db = openCache(file);
    port.postMessage({ id: 0, type: 'ready' } satisfies WorkerResponse);
    // Not on the way to the first page; warm before the first export (issue 8, export time).
    setTimeout(() => void loadExportModule().catch(() => {}), 1000).unref();
  } catch (error) {
    port.postMessage({ id: 0, type: 'result', ok: false, error: toErrorPayload(error) } satisfies WorkerResponse);
  }
  port.on('message', (msg: WorkerRequest) => {
    void handle(msg);
  });

  async function handle(msg: WorkerRequest): Promise<void> {
    const reply = (r: WorkerResponse) => port?.postMessage(r);
    if (msg.type === 'cancel') {
      running.get(msg.target)?.abort();
      return;
    }
    if (msg.type === 'close') {
      for (const c of running.values()) c.abort();
      db?.close();
      db = null;
      reply({ id: msg.id, type: 'result', ok: true, value: null });
      port?.close();
      return;
    }
    try {
      if (!db) throw new Error('the cache is not open');
      if (msg.type === 'query') {
        const fn = QUERY_METHODS[msg.method] as (db: Database.Database, ...args: unknown[]) => unknown;
        if (typeof fn !== 'function') throw new Error(`unknown cache method ${String(msg.method)}`);
        reply({ id: msg.id, type: 'result', ok: true, value: fn(db, ...msg.args) });
      } else if (msg.type === 'export') {
        const abort = new AbortController();
        running.set(msg.id, abort);
        try {
          const mod = await loadExportModule();
          const value = await mod.runExport(db, msg.request, msg.path, { onProgress: (p) => reply({ id: msg.id, type: 'progress', value: p }), signal: abort.signal });
          reply({ id: msg.id, type: 'result', ok: true, value });
        } finally {
          running.delete(msg.id);
        }
      }
    } catch (error) {
      reply({ id: msg.id, type: 'result', ok: false, error: toErrorPayload(error) });
    }
  }
}
