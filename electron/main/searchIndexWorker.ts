/**
 * Entry of the thread that builds a large sync build's search index (cache/build/searchIndexBuild.ts
 * starts it; built as `searchIndexWorker.js`): opens its own file, attaches the cache, indexes the
 * pages of a read as they are staged, finishes the index at the build, and says how it ended
 * through the shared state.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runSearchIndexWorker } from './cache/build/searchIndex.thread.ts';
import type { SearchIndexWorkerData } from './cache/build/searchIndexBuild.ts';

if (parentPort) runSearchIndexWorker(workerData as SearchIndexWorkerData, parentPort);
