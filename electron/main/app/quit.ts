/**
 * Quitting waits for the core to close. Electron ends the process as soon as `will-quit` returns,
 * without waiting for promises; the core's close is asynchronous (each cache's database worker
 * closes its connection and removes the cache's session marker, a running sync is cancelled and
 * releases its lock, exports remove their temporary files). Cut short, the next start finds the
 * marker of a process that is gone, treats the cache as not closed cleanly and runs the full
 * integrity check (seconds at 1M contacts) instead of opening at once.
 */

import type { App } from 'electron';

/** What this needs of Electron's `app`. */
export type QuittingApp = Pick<App, 'on' | 'quit'>;

/** Where the quit is: nothing asked yet, the core closing, the core closed. */
export type QuitState = 'running' | 'closing' | 'closed';

/**
 * What a `will-quit` does in each state: the first holds the quit (`preventDefault`) and starts
 * closing the core; one while it closes is held too and starts nothing; once closed, it lets the quit
 * through.
 */
export function willQuitStep(state: QuitState): { prevent: boolean; startClosing: boolean } {
  return { prevent: state !== 'closed', startClosing: state === 'running' };
}

/**
 * Holds the first `will-quit` until `close` has finished (or `timeoutMs` has passed, so a stuck
 * close never keeps the app from quitting), then quits for real.
 * @param close the core's close; its failure is reported to `onError` and does not stop the quit
 * @param timeoutMs longest wait, ms
 */
export function closeBeforeQuit(app: QuittingApp, close: () => Promise<void>, timeoutMs = 5000, onError: (error: unknown) => void = () => {}): void {
  let state: QuitState = 'running';
  app.on('will-quit', (event) => {
    const step = willQuitStep(state);
    if (step.prevent) event.preventDefault();
    if (!step.startClosing) return;
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
