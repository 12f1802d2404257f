/**
 * Quitting waits for the core to close. Electron ends the process as soon as `will-quit` returns,
 * without waiting for promises; the core's close is asynchronous (each cache's database worker
 * closes its connection and removes the cache's session marker, a running sync is cancelled and
 * releases its lock, exports remove their temporary files). Cut short, the next start finds the
 * marker of a process that is gone, treats the cache as not closed cleanly and runs the full
 * integrity check (seconds at 1M contacts) instead of opening at once.
 */

/** What this needs of Electron's `app`. */
export interface QuittingApp {
  on(event: 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

/**
 * Holds the first `will-quit` until `close` has finished (or `timeoutMs` has passed, so a stuck
 * close never keeps the app from quitting), then quits for real.
 * @param close the core's close; its failure is reported to `onError` and does not stop the quit
 * @param timeoutMs longest wait, ms
 */
export function closeBeforeQuit(app: QuittingApp, close: () => Promise<void>, timeoutMs = 5000, onError: (error: unknown) => void = () => {}): void {
  let state: 'running' | 'closing' | 'closed' = 'running';
  app.on('will-quit', (event) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        onError(new Error(`closing took longer than ${timeoutMs} ms; quitting anyway`));
        resolve();
      }, timeoutMs);
    });
    const closing = Promise.resolve()
      .then(close)
      .catch((error: unknown) => onError(error));
    void Promise.race([closing, waited]).then(() => {
      clearTimeout(timer);
      state = 'closed';
      app.quit();
    });
  });
}
