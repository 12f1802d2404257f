/**
 * The embedded sample API (DESIGN.md "Sample API"): started on demand, stoppable (the e2e tests take
 * the service "offline"), restarted on its previous port so a sample profile's base URL stays valid.
 */
import { Worker } from 'node:worker_threads';
import { fromErrorPayload, type ErrorPayload } from '../../../shared/errors.ts';
import { entryUrl } from '../entries.ts';
import { startSampleApi, type SampleApi, type SampleApiOptions } from '../sampleApi/server.ts';

/** Options of {@link SampleApiRuntime}. */
export interface SampleApiRuntimeOptions {
  /** What the server serves (size, seed, host, port, tokens, faults). */
  server: SampleApiOptions;
  /**
   * A worker thread keeps page generation off the caller's event loop (the app's main process);
   * 'main' runs it in this thread so tests and the command line reach the server object.
   */
  thread: 'worker' | 'main';
}

/** The embedded sample API, started on demand. */
export class SampleApiRuntime {
  readonly #options: SampleApiRuntimeOptions;
  #server: SampleApi | null = null;
  #worker: Worker | null = null;
  #baseUrl: string | null = null;
  #starting: Promise<string> | null = null;
  #port: number;

  constructor(options: SampleApiRuntimeOptions) {
    this.#options = options;
    this.#port = options.server.port ?? 0;
  }

  /**
   * Starts the server (on its previous port if it ran before) and returns its base URL.
   * @returns `http://<loopback>:<port>/api/v1`
   * @throws LetterdeskError when the server cannot listen (port taken, host not loopback)
   */
  ensure(): Promise<string> {
    if (this.#baseUrl) return Promise.resolve(this.#baseUrl);
    this.#starting ??= (async () => {
      try {
        const options = { ...this.#options.server, port: this.#port };
        if (this.#options.thread === 'main') {
          this.#server = await startSampleApi(options);
          this.#baseUrl = this.#server.baseUrl;
        } else {
          const started = await startWorker(options);
          this.#worker = started.worker;
          this.#baseUrl = started.baseUrl;
        }
        this.#port = Number(new URL(this.#baseUrl).port);
        return this.#baseUrl;
      } finally {
        this.#starting = null;
      }
    })();
    return this.#starting;
  }

  /** Stops the server; `ensure` starts it again on the same port. */
  async stop(): Promise<void> {
    const server = this.#server;
    const worker = this.#worker;
    this.#server = null;
    this.#worker = null;
    this.#baseUrl = null;
    await server?.close();
    await worker?.terminate();
  }

  /** Whether the server is listening. */
  get running(): boolean {
    return this.#baseUrl !== null;
  }

  /** The server object when it runs in this thread (`thread: 'main'`), else null. */
  get server(): SampleApi | null {
    return this.#server;
  }
}

function startWorker(options: SampleApiOptions): Promise<{ worker: Worker; baseUrl: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(entryUrl('sampleApiWorker'), { workerData: options });
    worker.once('message', (message: { type: string; baseUrl?: string; error?: ErrorPayload }) => {
      if (message.type === 'ready' && message.baseUrl) resolve({ worker, baseUrl: message.baseUrl });
      else {
        void worker.terminate();
        reject(fromErrorPayload(message.error ?? { code: 'INTERNAL', message: 'The sample API did not start.' }));
      }
    });
    worker.once('error', reject);
  });
}
