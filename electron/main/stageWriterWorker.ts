/**
 * Entry of the thread that writes a large read's staged pages (cache/build/stageWriter.ts starts
 * it; built as `stageWriterWorker.js`): opens its own connection to the cache and writes each page
 * it is sent.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { StageWriterWorkerData } from './cache/build/stageWriter.ts';
import { runStageWriter } from './cache/build/stageWriter.thread.ts';

if (parentPort) runStageWriter(workerData as StageWriterWorkerData, parentPort);
