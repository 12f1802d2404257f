/**
 * The app's {@link SyncProcessLauncher}: the sync runs in an Electron utility process (Chromium's
 * service process with Node.js, the process type Electron provides for heavy work outside the main
 * process; `child_process.fork` of the Electron binary is not meant for that). Same protocol as the
 * Node launcher (sync/process.ts): structured-clone messages, the sync's entry script, heap limits
 * as runtime flags.
 *
 * Not run by the tests on machines without an Electron binary; the Node launcher, which the CLI,
 * the tests and the benchmark use, runs the same entry and protocol.
 */
import { utilityProcess } from 'electron';
import { fileURLToPath } from 'node:url';
import { SYNC_PROCESS_ENV, exitRelay, type SyncProcess, type SyncProcessLauncher } from '../sync/process.ts';

/** Starts the sync entry in a utility process named "Letterdesk sync" (Task Manager, app metrics). */
export const utilitySyncProcessLauncher: SyncProcessLauncher = (script, execArgv): SyncProcess => {
  const child = utilityProcess.fork(fileURLToPath(script), [], {
    // `execArgv` reaches the utility process as Chromium switches, where V8 takes its flags from
    // `--js-flags`; the plain Node form is kept beside it. The sync process reports the heap
    // limit it got (controller.ts logs it), which shows whether the limit applied.
    execArgv: execArgv.length > 0 ? [...execArgv, `--js-flags=${execArgv.join(' ')}`] : [],
    env: { ...process.env, ...SYNC_PROCESS_ENV },
    serviceName: 'Letterdesk sync',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const relay = exitRelay();
  child.stderr?.on('data', (chunk: Buffer | string) => relay.stderr(chunk));
  // A fatal V8 error (such as running out of memory) is reported as 'error' before the exit;
  // without a listener Electron would throw it in the main process. Its text joins the stderr
  // tail, where the controller recognises running out of memory and which it logs.
  child.on('error', (type: string, location: string, report?: string) => relay.stderr(`${type} at ${location}\n${report ?? ''}\n`));
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
