/**
 * Entry of the thread that computes a build's sort positions (cache/sortPositions.ts starts it;
 * built as `positionsWorker.js`): opens its own file, attaches the cache, writes
 * `build_positions` from the staging table, and says how it ended through the shared state.
 */
import { workerData } from 'node:worker_threads';
import { computePositionsInWorker } from './cache/sortPositionsWorker.ts';
import type { PositionsWorkerData } from './cache/sortPositions.ts';

computePositionsInWorker(workerData as PositionsWorkerData);
