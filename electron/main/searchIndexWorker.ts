/**
 * Entry of the thread that builds a large sync build's search index (cache/searchIndexBuild.ts
 * starts it; built as `searchIndexWorker.js`): opens its own file, attaches the cache, fills the
 * index from the staging table, and says how it ended through the shared state.
 */
import { workerData } from 'node:worker_threads';
import { buildSearchIndexInWorker } from './cache/searchIndexThread.ts';
import type { SearchIndexWorkerData } from './cache/searchIndexBuild.ts';

buildSearchIndexInWorker(workerData as SearchIndexWorkerData);
