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
import { exitRelay, type SyncProcess, type SyncProcessLauncher } from '../sync/process.ts';

/** Starts the sync entry in a utility process named "Letterdesk sync" (Task Manager, app metrics). */
export const utilitySyncProcessLauncher: SyncProcessLauncher = (script, execArgv): SyncProcess => {
  const child = utilityProcess.fork(fileURLToPath(script), [], {
    execArgv,
    serviceName: 'Letterdesk sync',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const relay = exitRelay();
  child.stderr?.on('data', (chunk: Buffer | string) => relay.stderr(chunk));
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
