/**
 * Entry of the thread that checkpoints the cache's WAL while the sync stages pages
 * (cache/checkpointer.ts starts it; built as `checkpointWorker.js`).
 */
import { workerData } from 'node:worker_threads';
import { checkpointUntilStopped, type CheckpointWorkerData } from './cache/checkpointer.ts';

checkpointUntilStopped(workerData as CheckpointWorkerData);
