/**
 * Serves the handler table over Electron IPC: one `ipcMain.handle` per contract call, with the
 * sender checked before dispatch, and events sent to the window's web contents.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { CALL_NAMES, callChannel, eventChannel, type EventName, type EventPayload, type Handlers } from '../../../shared/contract.ts';
import { isAppUrl } from '../app/security.ts';
import { dispatchCall, FORBIDDEN_SENDER_RESULT } from './dispatch.ts';

/**
 * True when an IPC message comes from the app's own top-level page (not a subframe, not another
 * window or a navigated-away page).
 */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, appUrl: string): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null) return false;
  return isAppUrl(frame.url, appUrl);
}

/**
 * Registers every call of the contract on `ipcMain`.
 * @returns a function that removes the handlers again
 */
export function registerIpc(ipcMain: IpcMain, handlers: Handlers, appUrl: string, log: (message: string, error: unknown) => void): () => void {
  for (const name of CALL_NAMES) {
    ipcMain.handle(callChannel(name), (event, input: unknown) => {
      if (!isTrustedSender(event, appUrl)) {
        log(`refused ${name} from untrusted sender ${event.senderFrame?.url ?? '(gone)'}`, null);
        return FORBIDDEN_SENDER_RESULT;
      }
      return dispatchCall(handlers, name, input, log);
    });
  }
  return () => {
    for (const name of CALL_NAMES) ipcMain.removeHandler(callChannel(name));
  };
}

/** Sends contract events to one web contents (dropped while it is gone or reloading). */
export function webContentsEmitter(getContents: () => WebContents | null) {
  return <E extends EventName>(event: E, payload: EventPayload<E>): void => {
    const contents = getContents();
    if (contents && !contents.isDestroyed()) contents.send(eventChannel(event), payload);
  };
}
