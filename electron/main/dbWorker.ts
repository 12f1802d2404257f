/**
 * Entry of the database worker thread (cache/worker/client.ts starts it; built as `dbWorker.js`): the
 * cache's worker host serving the cache's read methods and the jobs — the cache's own `records`
 * and the CSV export, which lives outside the cache because the cache must not depend on it.
 */
import { CACHE_METHODS, type CacheJobs } from './cache/worker/methods.ts';
import { readRecords } from './cache/read/records.ts';
import { serveCache } from './cache/worker/host.ts';
import { exportFileJob } from './export/write.ts';

serveCache({
  methods: CACHE_METHODS,
  jobs: { exportFile: exportFileJob, records: readRecords } satisfies CacheJobs,
});
