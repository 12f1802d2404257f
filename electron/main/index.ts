/**
 * Electron entry point: single-instance lock, the hardened window, the menu, logging, IPC.
 * Everything below the shell (profiles, cache, sync, export) lives in `core.ts` and is shared with
 * the CLI and the test harness.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, protocol, screen, session, shell, utilityProcess } from 'electron';
import log from 'electron-log/main';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MenuCommand } from '../../shared/contract.ts';
import { createCore, type PlatformServices } from './core/index.ts';
import { createHandlers } from './ipc/handlers.ts';
import { APP_PAGE_URL } from './app/appScheme.ts';
import { handleAppScheme, registerAppSchemePrivileges } from './app/appSchemeElectron.ts';
import { CONTENT_SECURITY_POLICY, DEVELOPMENT_CONTENT_SECURITY_POLICY, guardEveryWebContents, hardenSession, isSafeExternalUrl } from './app/security.ts';
import { buildMenuTemplate, forwardAppCommands } from './app/menu.ts';
import { closeBeforeQuit } from './app/quit.ts';
import { claimSingleInstance } from './app/singleInstance.ts';
import { utilitySyncProcessLauncher } from './app/syncProcess.ts';
import { fitToDisplays, loadWindowState, saveWindowState, windowOptions } from './app/window.ts';
import { registerIpc, webContentsEmitter } from './ipc/electronTransport.ts';
import { logger, redact } from './base/log.ts';
import { resolveDataDir } from './base/paths.ts';

const here = dirname(fileURLToPath(import.meta.url));

// The data directory: LETTERDESK_DATA_DIR, else Electron's userData folder (which resolveDataDir
// computes the same way for the CLI).
const dataDir = resolveDataDir();
app.setPath('userData', dataDir);
app.setName('Letterdesk');
// The page's own scheme (letterdesk://app) must be declared privileged before the app is ready.
registerAppSchemePrivileges(protocol);

// No log.initialize(): it would give the page a second bridge (electron-log's preload, writing
// into main.log without the sender checks of window.letterdesk) that the renderer does not use.
log.hooks.push((message) => ({ ...message, data: message.data.map((d: unknown) => (typeof d === 'string' ? redact(d) : d)) }));
logger.transports.file.resolvePathFn = () => log.transports.file.getFile().path;
logger.transports.console.level = false;

let window: BrowserWindow | null = null;
if (claimSingleInstance(app, () => window)) {
  // electron-vite's dev server during `npm run dev`; an installed app always loads its own files
  // through its scheme (the URL decides which page IPC trusts, so the environment must not choose it there).
  const rendererUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  const appUrl = rendererUrl ?? APP_PAGE_URL;

  const emit = webContentsEmitter(() => window?.webContents ?? null);
  const platform: PlatformServices = {
    async showSaveDialog(defaultPath, filters) {
      const options = { defaultPath, filters };
      const result = window ? await dialog.showSaveDialog(window, options) : await dialog.showSaveDialog(options);
      return result.canceled || !result.filePath ? null : result.filePath;
    },
    showItemInFolder: (path) => shell.showItemInFolder(path),
    async openExternal(url) {
      if (!isSafeExternalUrl(url)) throw new Error('Only http(s) links can be opened.');
      await shell.openExternal(url);
    },
    setProgress(fraction) {
      window?.setProgressBar(fraction === null ? -1 : Math.max(0, Math.min(1, fraction)));
    },
    async printToPdf() {
      if (!window) throw new Error('There is no window to print.');
      return window.webContents.printToPDF({ preferCSSPageSize: true, printBackground: true });
    },
    launchSyncProcess: utilitySyncProcessLauncher((modulePath, args, options) => utilityProcess.fork(modulePath, args, options)),
  };

  const minutes = (name: string): number | undefined => {
    const value = Number(process.env[name]);
    return process.env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const autoSyncAfterMinutes = minutes('LETTERDESK_AUTO_SYNC_MINUTES');
  const periodicSyncMinutes = minutes('LETTERDESK_PERIODIC_SYNC_MINUTES');
  const core = createCore({
    dataDir,
    ...(autoSyncAfterMinutes === undefined ? {} : { autoSyncAfterMinutes }),
    ...(periodicSyncMinutes === undefined ? {} : { periodicSyncMinutes }),
    version: app.getVersion(),
    logFile: log.transports.file.getFile().path,
    platform,
    emit,
  });
  const handlers = createHandlers(core);

  guardEveryWebContents(app, {
    appUrl,
    openExternal: (url) => void shell.openExternal(url),
    onBlocked: (kind, url) => logger.warn(`blocked ${kind}: ${url.slice(0, 200)}`),
  });

  const createWindow = (): void => {
    const state = fitToDisplays(loadWindowState(dataDir), screen.getAllDisplays().map((d) => d.workArea));
    window = new BrowserWindow(windowOptions(join(here, '../preload/index.cjs'), state, nativeTheme.shouldUseDarkColors, app.isPackaged));
    // maximize() also shows the window, so it waits for the first paint like show() does.
    window.once('ready-to-show', () => {
      if (state.maximized) window?.maximize();
      window?.show();
    });
    const remember = (): void => {
      if (!window || window.isDestroyed()) return;
      saveWindowState(dataDir, window.getNormalBounds(), window.isMaximized());
    };
    window.on('close', remember);
    forwardAppCommands(window, (command) => emit('menuCommand', { command }));
    window.on('closed', () => {
      window = null;
    });
    void window.loadURL(appUrl);
  };

  app.whenReady().then(() => {
    nativeTheme.themeSource = 'system';
    hardenSession(session.defaultSession, rendererUrl === undefined ? CONTENT_SECURITY_POLICY : DEVELOPMENT_CONTENT_SECURITY_POLICY, appUrl);
    handleAppScheme(protocol, { rendererDir: join(here, '../renderer'), readPreview: (key) => core.readPreview(key) });
    registerIpc(ipcMain, handlers, appUrl, (message, error) => logger.error(message, error));
    const send = (command: MenuCommand) => emit('menuCommand', { command });
    Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate(process.platform, send, () => shell.showItemInFolder(log.transports.file.getFile().path), app.isPackaged)));
    createWindow();
    core.start();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  closeBeforeQuit(app, () => core.close(), 5000, (error) => logger.error('quit: closing the core', error));
}
