/**
 * Exports of this process (CSV and xlsx) (DESIGN.md "CSV export"): each runs in the cache's database worker
 * with progress and cancel; the app cancels them by id, the command line by its interrupt signal.
 */
import { randomUUID } from 'node:crypto';
import type { ExportRequest } from '../../../shared/contract.ts';
import type { CacheClient, ExportProgressValue } from '../cache/worker/client.ts';

/** Options of one {@link ExportRuns.run}. */
export interface ExportRunOptions {
  /** Identifies the export for `cancel`. @default a new UUID */
  exportId?: string;
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgressValue) => void;
}

/** The exports running in this process, cancellable by id. */
export class ExportRuns {
  readonly #running = new Map<string, AbortController>();

  /**
   * Writes the rows `request` selects from `cache` into `path` (temporary file, then renamed).
   * @returns the number of data rows written, and an xlsx workbook's sheets
   * @throws LetterdeskError VALIDATION (a bad path or column), CANCELLED, DISK_FULL
   */
  async run(cache: CacheClient, request: ExportRequest, path: string, options: ExportRunOptions = {}): Promise<{ rows: number; sheets?: string[] }> {
    const exportId = options.exportId ?? randomUUID();
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) abort.abort();
    this.#running.set(exportId, abort);
    try {
      return await cache.exportFile(request, path, { signal: abort.signal, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    } finally {
      this.#running.delete(exportId);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Cancels the export `exportId`. @returns false when no such export runs */
  cancel(exportId: string): boolean {
    const controller = this.#running.get(exportId);
    controller?.abort();
    return controller !== undefined;
  }

  /** Cancels every running export (the core is closing). */
  cancelAll(): void {
    for (const controller of this.#running.values()) controller.abort();
  }
}
