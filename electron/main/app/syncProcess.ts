/**
 * The app's {@link SyncProcessLauncher}: the sync runs in an Electron utility process (Chromium's
 * service process with Node.js, the process type Electron provides for heavy work outside the main
 * process; `child_process.fork` of the Electron binary is not meant for that). Same protocol as the
 * Node launcher (sync/process.ts): structured-clone messages, the sync's entry script, heap limits
 * as runtime flags.
 *
 * It takes Electron's `utilityProcess.fork` as a parameter (index.ts passes it), so the unit tests
 * drive it with a fake typed against Electron's declarations; the Node launcher, which the CLI, the
 * tests and the benchmark use, runs the same entry and protocol.
 */
import type { ForkOptions, UtilityProcess } from 'electron';
import { fileURLToPath } from 'node:url';
import { syncChildEnv } from '../sync/childEnv.ts';
import { SYNC_PROCESS_ENV, exitRelay, type SyncProcess, type SyncProcessLauncher } from '../sync/process.ts';

/** The part of a forked Electron `UtilityProcess` the launcher uses. */
export type ForkedUtilityProcess = Pick<UtilityProcess, 'pid' | 'stderr' | 'postMessage' | 'kill' | 'on' | 'once'>;

/** Electron's `utilityProcess.fork`, narrowed to what the launcher uses. */
export type ForkUtilityProcess = (modulePath: string, args: string[], options: ForkOptions) => ForkedUtilityProcess;

/**
 * The options of the sync's utility process: the heap flags both as Node flags and as V8's
 * `--js-flags` (a utility process takes its V8 flags from there), this process's environment
 * narrowed to the sync's allow-list (sync/childEnv.ts) plus the sync's own variables, a name for
 * Task Manager and app metrics, stderr piped for the exit report.
 * @param execArgv Node flags of the sync process (heap limits, `--expose-gc`)
 * @param env this process's environment
 */
export function syncForkOptions(execArgv: readonly string[], env: NodeJS.ProcessEnv): ForkOptions {
  return {
    execArgv: execArgv.length > 0 ? [...execArgv, `--js-flags=${execArgv.join(' ')}`] : [],
    env: syncChildEnv(env, SYNC_PROCESS_ENV),
    serviceName: 'Letterdesk sync',
    stdio: ['ignore', 'inherit', 'pipe'],
  };
}

/**
 * Starts the sync entry in a utility process named "Letterdesk sync".
 * @param fork Electron's `utilityProcess.fork`
 */
export function utilitySyncProcessLauncher(fork: ForkUtilityProcess): SyncProcessLauncher {
  return (script, execArgv): SyncProcess => {
    // The sync process reports the heap limit it got (controller.ts logs it), which shows whether
    // the flags applied.
    const child = fork(fileURLToPath(script), [], syncForkOptions(execArgv, process.env));
    const relay = exitRelay();
    child.stderr?.on('data', (chunk: Buffer | string) => relay.stderr(chunk));
    // A fatal V8 error (such as running out of memory) is reported as 'error' before the exit;
    // without a listener Electron would throw it in the main process. Its text joins the stderr
    // tail, where the controller recognises running out of memory and which it logs.
    child.on('error', (type, location, report) => relay.stderr(`${type} at ${location}\n${report ?? ''}\n`));
    child.once('exit', (code) => relay.exit({ code, signal: null }));
    return {
      get pid() {
        return child.pid;
      },
      postMessage(message) {
        if (!relay.exited) child.postMessage(message);
      },
      onMessage(listener) {
        child.on('message', listener);
      },
      onExit: relay.onExit,
      kill() {
        if (!relay.exited) child.kill();
      },
    };
  };
}
