/**
 * One Letterdesk per user: a second start hands over to the running one, which brings its window
 * to the front (two instances would share the data folder, its caches and the sync lock).
 */
import type { App, BrowserWindow } from 'electron';

/** What the running instance does to its window when another start is handed over. */
export type RaiseStep = 'restore' | 'show' | 'focus';

/**
 * The steps that bring the window to the front: un-minimise it first when it is minimised, then
 * show and focus it; nothing while there is no window (before the first one, or after the last one
 * closed on macOS).
 * @param window whether there is a window and whether it is minimised
 */
export function raiseSteps(window: { minimized: boolean } | null): RaiseStep[] {
  if (window === null) return [];
  return window.minimized ? ['restore', 'show', 'focus'] : ['show', 'focus'];
}

/** The part of Electron's `BrowserWindow` that raising it uses. */
export type RaisableWindow = Pick<BrowserWindow, 'isMinimized' | 'restore' | 'show' | 'focus'>;

/** The part of Electron's `app` that {@link claimSingleInstance} uses. */
export type SingleInstanceApp = Pick<App, 'requestSingleInstanceLock' | 'quit' | 'on'>;

/**
 * Takes the single-instance lock (`app.requestSingleInstanceLock`). Without it another instance is
 * running and has been told: this one quits. With it, each later start (`second-instance`) raises
 * the window ({@link raiseSteps}).
 * @param window the current main window, or null
 * @returns whether this instance holds the lock and should go on starting
 */
export function claimSingleInstance(app: SingleInstanceApp, window: () => RaisableWindow | null): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => {
    const current = window();
    for (const step of raiseSteps(current === null ? null : { minimized: current.isMinimized() })) current?.[step]();
  });
  return true;
}
