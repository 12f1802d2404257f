/**
 * Entry of the thread that writes a large read's staged pages (cache/stageWriterThread.ts starts
 * it; built as `stageWriterWorker.js`): opens its own connection to the cache and writes each page
 * it is sent.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runStageWriter, type StageWriterWorkerData } from './cache/stageWriterThread.ts';

if (parentPort) runStageWriter(workerData as StageWriterWorkerData, parentPort);
