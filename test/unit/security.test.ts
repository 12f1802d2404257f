import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY, isAppUrl, isSafeExternalUrl } from '../../electron/main/app/security.ts';
import { APP_PAGE_URL } from '../../electron/main/app/appScheme.ts';
import { DEFAULT_WINDOW_STATE, devToolsAllowed, fitToDisplays, loadWindowState, saveWindowState, windowOptions } from '../../electron/main/app/window.ts';
import { buildMenuTemplate } from '../../electron/main/app/menu.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MenuCommand } from '../../shared/contract.ts';

describe('window options', () => {
  const options = windowOptions('/app/out/preload/index.cjs', DEFAULT_WINDOW_STATE, false, true);
  it('isolate, sandbox and keep Node out of the page', () => {
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
  it('uses a dark background in dark mode so there is no white flash', () => {
    expect(windowOptions('/p', DEFAULT_WINDOW_STATE, true, true).backgroundColor).not.toBe(options.backgroundColor);
  });
  it('have no DevTools in an installed app, and keep them when running from sources', () => {
    expect(devToolsAllowed(true)).toBe(false);
    expect(devToolsAllowed(false)).toBe(true);
    expect(options.webPreferences?.devTools).toBe(false);
    expect(windowOptions('/p', DEFAULT_WINDOW_STATE, false, false).webPreferences?.devTools).toBe(true);
  });
});

describe('window state', () => {
  it('round-trips through the data directory and survives a damaged file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-window-'));
    expect(loadWindowState(dir)).toEqual(DEFAULT_WINDOW_STATE);
    saveWindowState(dir, { x: 40, y: 60, width: 1400, height: 900 }, true);
    expect(loadWindowState(dir)).toEqual({ x: 40, y: 60, width: 1400, height: 900, maximized: true });
    writeFileSync(join(dir, 'window-state.json'), '{"width": "huge"');
    expect(loadWindowState(dir)).toEqual(DEFAULT_WINDOW_STATE);
  });
  it('drops a position that is on no display any more', () => {
    const displays = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    expect(fitToDisplays({ x: 100, y: 100, width: 1000, height: 700, maximized: false }, displays).x).toBe(100);
    expect(fitToDisplays({ x: 5000, y: 100, width: 1000, height: 700, maximized: false }, displays).x).toBeUndefined();
  });
  it('cuts a window saved on a larger monitor to the work area it opens on, all of it on screen', () => {
    const laptop = [{ x: 0, y: 0, width: 1920, height: 1040 }];
    expect(fitToDisplays({ x: 200, y: 100, width: 3000, height: 2000, maximized: false }, laptop)).toEqual({ x: 0, y: 0, width: 1920, height: 1040, maximized: false });
    expect(fitToDisplays({ x: 1500, y: 700, width: 1000, height: 700, maximized: true }, laptop)).toEqual({ x: 920, y: 340, width: 1000, height: 700, maximized: true });
    // A second monitor to the left (negative coordinates) keeps its own area.
    const two = [{ x: 0, y: 0, width: 1920, height: 1040 }, { x: -1280, y: 0, width: 1280, height: 984 }];
    expect(fitToDisplays({ x: -1200, y: 20, width: 1400, height: 900, maximized: false }, two)).toEqual({ x: -1280, y: 20, width: 1280, height: 900, maximized: false });
    // Off every display: no position (the OS centres it), and a size that fits the first one.
    expect(fitToDisplays({ x: 9000, y: 0, width: 2560, height: 1400, maximized: false }, laptop)).toEqual({ width: 1920, height: 1040, maximized: false });
  });
});

describe('content security policy', () => {
  const directives = new Map(CONTENT_SECURITY_POLICY.split(';').map((d) => {
    const [name, ...values] = d.trim().split(/\s+/);
    return [name, values] as const;
  }));
  it("allows only the app's own scripts", () => {
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
  });
  it('never allows inline or evaluated scripts', () => {
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
  });
  it('allows no inline styles and no remote images: only the app itself and data: URLs', () => {
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('img-src')).toEqual(["'self'", 'data:']);
    for (const sources of directives.values()) for (const source of sources) expect(source).toMatch(/^('self'|'none'|data:)$/);
  });
  it("is the policy of renderer/index.html's meta element, less the directives a meta element cannot carry", () => {
    const html = readFileSync(resolve(import.meta.dirname, '../../renderer/index.html'), 'utf8');
    const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*\/?>/gi)].map((m) => m[1]);
    expect(metas).toEqual([META_CONTENT_SECURITY_POLICY]);
    expect(CONTENT_SECURITY_POLICY).toBe(`${META_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`);
  });
});

describe('packaging', () => {
  it('turns the file protocol\'s extra privileges off (the page comes from the app scheme)', () => {
    const yml = readFileSync(resolve(import.meta.dirname, '../../electron-builder.yml'), 'utf8');
    const fuses = yml.slice(yml.indexOf('electronFuses:'));
    expect(fuses).toMatch(/^\s+grantFileProtocolExtraPrivileges:\s*false\s*$/m);
    expect(yml.match(/grantFileProtocolExtraPrivileges/g)).toHaveLength(1);
  });
});

describe('external links', () => {
  const hostile = [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'file://server/share/x.exe',
    'smb://server/share',
    'vbscript:msgbox(1)',
    'ms-msdt:/id PCWDiagnostic',
    'chrome://settings',
    'about:blank',
    'https://user:pass@example.com/',
    'http://',
    '//example.com/path',
    '/relative/path',
    'example.com',
    '',
    'https://example.com/\u0000evil',
    'https://exa mple.com/',
    `https://example.com/${'a'.repeat(5000)}`,
  ];
  it.each(hostile)('refuses %j', (url) => {
    expect(isSafeExternalUrl(url)).toBe(false);
  });
  it.each(['https://example.com/', 'http://example.com/a?b=c#d', 'https://templates.example.com/t/123.json'])('allows %s', (url) => {
    expect(isSafeExternalUrl(url)).toBe(true);
  });
  it('refuses non-strings', () => {
    expect(isSafeExternalUrl(undefined)).toBe(false);
    expect(isSafeExternalUrl({ toString: () => 'https://example.com' })).toBe(false);
  });
});

describe('navigation', () => {
  it('stays on the app page only', () => {
    expect(isAppUrl(`${APP_PAGE_URL}#contacts`, APP_PAGE_URL)).toBe(true);
    expect(isAppUrl(`${APP_PAGE_URL}?x=1`, APP_PAGE_URL)).toBe(true);
    expect(isAppUrl('file:///etc/passwd', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('https://evil.example/', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('http://localhost:5173/x', 'http://localhost:5173/')).toBe(false);
    expect(isAppUrl('http://localhost:5173/#x', 'http://localhost:5173/')).toBe(true);
    expect(isAppUrl('http://localhost:5174/', 'http://localhost:5173/')).toBe(false);
    expect(isAppUrl('not a url', APP_PAGE_URL)).toBe(false);
  });
  it('compares scheme, host and path: another host, scheme, port, user or page is not the app', () => {
    expect(isAppUrl('letterdesk://evil/index.html', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('letterdesk://app:8080/index.html', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('letterdesk://user@app/index.html', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('letterdesk://app/preview/0123456789abcdef0123456789abcdef', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('other://app/index.html', APP_PAGE_URL)).toBe(false);
    expect(isAppUrl('https://app/index.html', APP_PAGE_URL)).toBe(false);
  });
  it('does not take a file URL on another host for the app page with the same path', () => {
    const appFile = 'file:///opt/Letterdesk/resources/app.asar/out/renderer/index.html';
    expect(isAppUrl(appFile, appFile)).toBe(true);
    expect(isAppUrl('file://evil/opt/Letterdesk/resources/app.asar/out/renderer/index.html', appFile)).toBe(false);
    expect(isAppUrl('file://evil.example/opt/Letterdesk/resources/app.asar/out/renderer/index.html', appFile)).toBe(false);
  });
});

describe('application menu', () => {
  it('has the standard menus and sends commands with their accelerators', () => {
    const sent: MenuCommand[] = [];
    const template = buildMenuTemplate('linux', (c) => sent.push(c), () => {}, false);
    expect(template.map((m) => m.label?.replace('&', ''))).toEqual(['File', 'Edit', 'View', 'Window', 'Help']);
    const items = template.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
    const find = (label: string) => items.find((i) => i.label === label);
    expect(find('Sync Now')?.accelerator).toBe('CmdOrCtrl+R');
    expect(find('Export Current View…')?.accelerator).toBe('CmdOrCtrl+E');
    expect(find('Overview')?.accelerator).toBe('CmdOrCtrl+1');
    expect(find('Contacts')?.accelerator).toBe('CmdOrCtrl+2');
    expect(find('Orders')?.accelerator).toBe('CmdOrCtrl+3');
    expect(find('Find')?.accelerator).toBe('CmdOrCtrl+F');
    // The menu and the sidebar agree: the views are numbered in the sidebar's order.
    expect(find('Templates')?.accelerator).toBe('CmdOrCtrl+4');
    expect(find('Campaigns')?.accelerator).toBe('CmdOrCtrl+5');
    expect(find('Sync')?.accelerator).toBe('CmdOrCtrl+6');
    expect(find('Profiles')?.accelerator).toBe('CmdOrCtrl+7');
    expect(find('Duplicates')?.accelerator).toBe('CmdOrCtrl+8');
    const views = template.find((m) => m.label === '&View')?.submenu;
    expect((Array.isArray(views) ? views : []).filter((i) => i.accelerator?.startsWith('CmdOrCtrl+') && /\d$/.test(i.accelerator)).map((i) => i.label)).toEqual([
      'Overview', 'Contacts', 'Orders', 'Templates', 'Campaigns', 'Duplicates', 'Sync', 'Profiles',
    ]);
    expect(items.filter((i) => i.click && String(i.label).startsWith('Profiles'))).toHaveLength(1);
    expect(find('Keyboard Shortcuts')?.accelerator).toBe('CmdOrCtrl+/');
    expect(find('Back')?.accelerator).toBe('Alt+Left');
    expect(find('Toggle Sidebar')?.accelerator).toBe('CmdOrCtrl+B');
    (find('Sync Now')?.click as () => void)();
    (find('Orders')?.click as () => void)();
    expect(sent).toEqual(['sync', 'view-orders']);
    // Reload would discard the page state; Ctrl+R is Sync here, so no reload role anywhere.
    expect(items.some((i) => i.role === 'reload' || i.role === 'forceReload')).toBe(false);
  });
  it('uses the macOS keys for Back and Forward there', () => {
    const items = buildMenuTemplate('darwin', () => {}, () => {}, true).flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
    expect(items.find((i) => i.label === 'Back')?.accelerator).toBe('Cmd+[');
    expect(items.find((i) => i.label === 'Forward')?.accelerator).toBe('Cmd+]');
  });
  it('adds the app menu on macOS', () => {
    expect(buildMenuTemplate('darwin', () => {}, () => {}, true)[0]?.label).toBe('Letterdesk');
  });
  it('offers DevTools only when running from sources', () => {
    const roles = (packaged: boolean) => buildMenuTemplate('linux', () => {}, () => {}, packaged).flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : [])).map((i) => i.role);
    expect(roles(false)).toContain('toggleDevTools');
    expect(roles(true)).not.toContain('toggleDevTools');
  });
});
