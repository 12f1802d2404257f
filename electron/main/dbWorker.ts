/**
 * Entry of the database worker thread (cache/client.ts starts it; built as `dbWorker.js`): the
 * cache's worker host serving the cache's read methods and the jobs — the cache's own `records`
 * and the CSV export, which lives outside the cache because the cache must not depend on it.
 */
import { CACHE_METHODS, type CacheJobs } from './cache/methods.ts';
import { recordsJob } from './cache/records.ts';
import { serveCache } from './cache/workerHost.ts';
import { exportCsvJob } from './export/write.ts';

serveCache({
  methods: CACHE_METHODS,
  jobs: { exportCsv: exportCsvJob, records: recordsJob } satisfies CacheJobs,
});
