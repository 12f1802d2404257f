/**
 * The main window's options and its remembered size and position.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BrowserWindowConstructorOptions, Rectangle } from 'electron';

/** Size and position of the window, plus whether it was maximised. */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 800, maximized: false };

/**
 * The hardened BrowserWindow options (DESIGN.md "Security"): context isolation, sandbox, no Node
 * integration, web security on, no webview tag, no remote content reaching Node.
 * @param preloadPath absolute path of the built preload (out/preload/index.cjs)
 * @param state remembered bounds
 * @param dark whether the OS is in dark mode (background colour without a white flash)
 * @param packaged `app.isPackaged`: an installed app has no DevTools ({@link devToolsAllowed})
 */
export function windowOptions(preloadPath: string, state: WindowState, dark: boolean, packaged: boolean): BrowserWindowConstructorOptions {
  return {
    ...(state.x === undefined || state.y === undefined ? {} : { x: state.x, y: state.y }),
    width: state.width,
    height: state.height,
    minWidth: 900,
    minHeight: 560,
    show: false,
    title: 'Letterdesk',
    backgroundColor: dark ? '#16181d' : '#ffffff',
    autoHideMenuBar: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
      devTools: devToolsAllowed(packaged),
    },
  };
}

/**
 * Whether the page may open DevTools: only when running from sources (`npm run dev`, `npm start`),
 * never in an installed app, where they would make pasting hostile code into the page one step.
 * @param packaged `app.isPackaged`
 */
export function devToolsAllowed(packaged: boolean): boolean {
  return !packaged;
}

/** Reads the remembered window state; anything missing or damaged gives the default. */
export function loadWindowState(dataDir: string): WindowState {
  try {
    const raw = JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8')) as Partial<WindowState>;
    const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
    if (!num(raw.width) || !num(raw.height)) return { ...DEFAULT_WINDOW_STATE };
    return {
      ...(num(raw.x) && num(raw.y) ? { x: Math.round(raw.x), y: Math.round(raw.y) } : {}),
      width: Math.max(900, Math.min(10000, Math.round(raw.width))),
      height: Math.max(560, Math.min(10000, Math.round(raw.height))),
      maximized: raw.maximized === true,
    };
  } catch {
    return { ...DEFAULT_WINDOW_STATE };
  }
}

/** Writes the window state atomically (temporary file + rename). */
export function saveWindowState(dataDir: string, bounds: Rectangle, maximized: boolean): void {
  const file = join(dataDir, 'window-state.json');
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const state: WindowState = { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height, maximized };
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

/**
 * Puts a remembered window back on screen. If no display contains its top-left area (a monitor was
 * unplugged), the position is dropped and the OS centres the window. Its size is cut to the work
 * area it lands on (a window saved on a large external monitor opens on a laptop's screen with its
 * caption buttons and edges reachable), and it is moved in so that all of it is on that area.
 */
export function fitToDisplays(state: WindowState, workAreas: Rectangle[]): WindowState {
  const within = (a: Rectangle) => ({ width: Math.min(state.width, a.width), height: Math.min(state.height, a.height) });
  if (state.x !== undefined && state.y !== undefined) {
    const { x, y } = state;
    const area = workAreas.find((a) => x + 100 > a.x && x < a.x + a.width - 100 && y >= a.y - 10 && y < a.y + a.height - 50);
    if (area) {
      const size = within(area);
      return {
        x: Math.max(area.x, Math.min(x, area.x + area.width - size.width)),
        y: Math.max(area.y, Math.min(y, area.y + area.height - size.height)),
        ...size,
        maximized: state.maximized,
      };
    }
  }
  const first = workAreas[0];
  return { ...(first ? within(first) : { width: state.width, height: state.height }), maximized: state.maximized };
}
