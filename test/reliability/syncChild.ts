/**
 * Child process for the kill tests (test/integration/reliabilityKill.test.ts): runs exactly what the
 * sync process runs — `openCache` + `createHttpPageSource` + `runSync` — on the cache file given in
 * SYNC_CACHE_FILE against SYNC_BASE_URL, and prints one line per progress event
 * (`progress <resource> <phase> <pagesDone> <pagesTotal>`) and finally `done <runs as JSON>`, so the
 * parent can SIGKILL it at a chosen point. The sample tokens are not secrets (sample data only).
 */
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Resource } from '../../shared/serviceRecords.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { logger } from '../../electron/main/base/log.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';

const file = process.env.SYNC_CACHE_FILE as string;
const baseUrl = process.env.SYNC_BASE_URL as string;
logger.transports.file.resolvePathFn = () => join(process.env.SYNC_LOG_DIR ?? '/tmp', 'sync-child.log');
logger.transports.console.level = false;

// Synchronous writes: a line printed is a line the parent can act on, even if it kills us next.
const say = (line: string) => writeSync(1, `${line}\n`);

const db = openCache(file, { skipCheck: true });
const runs = await runSync(db, createHttpPageSource({ baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, retries: 2, backoffMs: 5 }), {
  resources: (process.env.SYNC_RESOURCES ?? 'contacts,orders').split(',') as Resource[],
  pageSize: Number(process.env.SYNC_PAGE_SIZE ?? 50),
  concurrency: Number(process.env.SYNC_CONCURRENCY ?? 2),
  progressIntervalMs: 0,
  onProgress: (p) => say(`progress ${p.resource} ${p.phase} ${p.pagesDone} ${p.pagesTotal ?? 0}`),
});
db.close();
say(`done ${JSON.stringify(runs)}`);
