/**
 * Builds `window.letterdesk` from the contract's call names over any transport.
 *
 * The same function runs in the Electron preload (transport: ipcRenderer) and, serialised by
 * Playwright, as an init script in plain Chromium (transport: functions bound with
 * `page.exposeBinding`). It therefore closes over nothing: everything it needs comes in as
 * arguments, and it must stay free of imports.
 *
 * @param callNames the contract's call names (`CALL_NAMES`)
 * @param invoke sends one call and resolves to its `Result` (never rejects for handler errors)
 * @param subscribe registers a listener for an event and returns the unsubscribe function
 * @returns a frozen object with one function per call plus `on(event, listener)`
 */
export function buildLetterdeskApi(
  callNames: readonly string[],
  eventNames: readonly string[],
  invoke: (name: string, input: unknown) => Promise<unknown>,
  subscribe: (event: string, listener: (payload: unknown) => void) => () => void,
): Record<string, unknown> {
  const api: Record<string, unknown> = Object.create(null);
  for (const name of callNames) {
    api[name] = (input: unknown) => invoke(name, input === undefined ? {} : input);
  }
  api.on = (event: string, listener: (payload: unknown) => void) => {
    if (!eventNames.includes(event)) throw new Error(`Unknown Letterdesk event "${event}"`);
    if (typeof listener !== 'function') throw new Error('on(event, listener) needs a function');
    return subscribe(event, listener);
  };
  return Object.freeze(api);
}
