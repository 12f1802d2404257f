/**
 * The preload: exposes `window.letterdesk` built from the contract (shared/contract.ts) and nothing
 * else — no raw ipcRenderer. Runs sandboxed, bundled into one CommonJS file.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildLetterdeskApi } from '../../shared/bridge.ts';
import { CALL_NAMES, EVENT_NAMES, callChannel, eventChannel, type CallName, type EventName } from '../../shared/contract.ts';

const api = buildLetterdeskApi(
  CALL_NAMES,
  EVENT_NAMES,
  (name, input) => ipcRenderer.invoke(callChannel(name as CallName), input),
  (event, listener) => {
    const channel = eventChannel(event as EventName);
    // Hand the page the payload only, never Electron's event object (it exposes the sender).
    const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, wrapped);
    return () => {
      ipcRenderer.removeListener(channel, wrapped);
    };
  },
);

contextBridge.exposeInMainWorld('letterdesk', api);
