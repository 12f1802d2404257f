/**
 * The native application menu: standard roles and accelerators (File, Edit, View, Window, Help) plus
 * Letterdesk's commands, which are forwarded to the page as `menuCommand` events.
 */
import type { BrowserWindow, MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '../../../shared/contract.ts';
import { devToolsAllowed } from './window.ts';

/**
 * Builds the menu template.
 * @param platform `process.platform`; macOS gets the app menu and a Window menu with its roles
 * @param send forwards a command to the page
 * @param openLogFolder opens the folder with the log files
 * @param packaged `app.isPackaged`: an installed app has no "Toggle Developer Tools" item (window.ts
 *   `devToolsAllowed`)
 */
export function buildMenuTemplate(
  platform: NodeJS.Platform,
  send: (command: MenuCommand) => void,
  openLogFolder: () => void,
  packaged: boolean,
): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const item = (label: string, accelerator: string, command: MenuCommand): MenuItemConstructorOptions => ({ label, accelerator, click: () => send(command) });
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      label: 'Letterdesk',
      submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'services' }, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' }],
    });
  }
  template.push(
    {
      label: '&File',
      submenu: [
        item('Sync Now', 'CmdOrCtrl+R', 'sync'),
        item('Export Current View…', 'CmdOrCtrl+E', 'export'),
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
        { type: 'separator' },
        item('Find', 'CmdOrCtrl+F', 'find'),
      ],
    },
    {
      label: '&View',
      submenu: [
        item('Overview', 'CmdOrCtrl+1', 'view-overview'),
        item('Contacts', 'CmdOrCtrl+2', 'view-contacts'),
        item('Orders', 'CmdOrCtrl+3', 'view-orders'),
        item('Templates', 'CmdOrCtrl+4', 'view-templates'),
        item('Campaigns', 'CmdOrCtrl+5', 'view-campaigns'),
        item('Duplicates', 'CmdOrCtrl+8', 'view-duplicates'),
        item('Sync', 'CmdOrCtrl+6', 'view-sync'),
        item('Profiles', 'CmdOrCtrl+7', 'view-profiles'),
        { type: 'separator' },
        item('Back', mac ? 'Cmd+[' : 'Alt+Left', 'back'),
        item('Forward', mac ? 'Cmd+]' : 'Alt+Right', 'forward'),
        item('Toggle Sidebar', 'CmdOrCtrl+B', 'toggle-sidebar'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...(devToolsAllowed(packaged) ? [{ role: 'toggleDevTools' } as const] : []),
      ],
    },
    { label: '&Window', role: 'windowMenu' },
    {
      label: '&Help',
      role: 'help',
      submenu: [item('Keyboard Shortcuts', 'CmdOrCtrl+/', 'shortcuts'), { type: 'separator' }, { label: 'Show Log Files', click: openLogFolder }],
    },
  );
  return template;
}

/**
 * The command of a Windows app command (`app-command`: the mouse's back and forward buttons, which
 * Windows sends as app commands rather than mouse events), or null for one Letterdesk ignores.
 * @param command Electron's command name, e.g. `browser-backward`
 */
export function appCommandMenuCommand(command: string): MenuCommand | null {
  if (command === 'browser-backward') return 'back';
  if (command === 'browser-forward') return 'forward';
  return null;
}

/** Forwards the window's app commands ({@link appCommandMenuCommand}) to the page. */
export function forwardAppCommands(window: Pick<BrowserWindow, 'on'>, send: (command: MenuCommand) => void): void {
  window.on('app-command', (_event, command) => {
    const menuCommand = appCommandMenuCommand(command);
    if (menuCommand !== null) send(menuCommand);
  });
}
