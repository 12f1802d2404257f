/**
 * Runs the sync entry of test/reliability/syncChild.ts in a Node process of its own, as a crash
 * there (a native stack overflow, running out of heap) must not take the test runner with it.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const CHILD = resolve(import.meta.dirname, 'syncChild.ts');

/** How the child ended: its exit, stdout, the last 500 characters of stderr, and how long it ran (ms). */
export interface SyncChildOutcome {
  timedOut: boolean;
  code: number | null;
  signal: string | null;
  out: string;
  err: string;
  ms: number;
}

/**
 * Starts the child and waits for its exit, killing it (SIGKILL) at `timeoutMs`.
 * @param options.heapMb the child's `--max-old-space-size` in MiB
 * @param options.env the child's whole environment (`SYNC_CACHE_FILE`, `SYNC_BASE_URL`, …)
 * @param options.timeoutMs how long it may run before it is killed and `timedOut` is set
 */
export function runSyncChild(options: { heapMb: number; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<SyncChildOutcome> {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(process.execPath, [`--max-old-space-size=${options.heapMb}`, CHILD], { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ timedOut, code, signal, out, err: err.slice(-500), ms: performance.now() - started });
    });
  });
}
