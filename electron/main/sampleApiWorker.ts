/**
 * Runs the sample API in a worker thread, so that generating and serialising pages never blocks the
 * thread that started it (in the app: the Electron main process, whose event loop must stay free).
 * workerData: SampleApiOptions. Posts `{ type: 'ready', baseUrl }` or `{ type: 'failed', error }`.
 * The owner stops it with `worker.terminate()`, which closes the listening socket.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toErrorPayload } from '../../shared/errors.ts';
import { startSampleApi, type SampleApiOptions } from './sampleApi/server.ts';

try {
  const server = await startSampleApi(workerData as SampleApiOptions);
  parentPort?.postMessage({ type: 'ready', baseUrl: server.baseUrl });
} catch (error) {
  parentPort?.postMessage({ type: 'failed', error: toErrorPayload(error) });
}
