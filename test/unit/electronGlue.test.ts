/**
 * The code only Electron runs (electron/main/app/): each decision as a pure function, and each
 * piece of glue driven through the fakes of test/helpers/fakeElectron.ts with the arguments
 * Electron documents for that callback (electron.d.ts of the installed package): the permission
 * check gets an origin, the permission request a frame URL, `will-navigate` its details event,
 * `protocol.handle` a fetch `Request`, and so on.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_PAGE_URL, APP_SCHEME } from '../../electron/main/app/appScheme.ts';
import { handleAppScheme, registerAppSchemePrivileges } from '../../electron/main/app/appSchemeElectron.ts';
import { appCommandMenuCommand, forwardAppCommands } from '../../electron/main/app/menu.ts';
import { closeBeforeQuit, willQuitStep } from '../../electron/main/app/quit.ts';
import {
  CONTENT_SECURITY_POLICY,
  DEVELOPMENT_CONTENT_SECURITY_POLICY,
  guardEveryWebContents,
  hardenSession,
  hardenWebContents,
  headersWithPolicy,
  navigationDecision,
  originOf,
  permissionAllowed,
  windowOpenDecision,
} from '../../electron/main/app/security.ts';
import { claimSingleInstance, raiseSteps } from '../../electron/main/app/singleInstance.ts';
import { syncForkOptions, utilitySyncProcessLauncher } from '../../electron/main/app/syncProcess.ts';
import type { SyncProcessExit } from '../../electron/main/sync/process.ts';
import type { MenuCommand } from '../../shared/contract.ts';
import { FakeApp, FakeProtocol, FakeSession, FakeWebContents, FakeWindow, fakeFork } from '../helpers/fakeElectron.ts';

const APP_ORIGIN = 'letterdesk://app';
const DEV_URL = 'http://localhost:5173/';

describe('decisions', () => {
  it('originOf gives scheme://host[:port] for any scheme, null for no URL or one with credentials', () => {
    expect(originOf(APP_PAGE_URL)).toBe(APP_ORIGIN);
    expect(originOf('letterdesk://app/')).toBe(APP_ORIGIN);
    expect(originOf('http://localhost:5173/x?y#z')).toBe('http://localhost:5173');
    expect(originOf('file:///index.html')).toBeNull();
    expect(originOf('https://user:pw@example.com/')).toBeNull();
    expect(originOf('not a url')).toBeNull();
  });

  it('permissionAllowed: only clipboard writing, only for the app origin as Electron spells origins', () => {
    for (const origin of [APP_ORIGIN, `${APP_ORIGIN}/`]) expect(permissionAllowed('clipboard-sanitized-write', origin, APP_PAGE_URL), origin).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', 'http://localhost:5173', DEV_URL)).toBe(true);
    for (const permission of ['clipboard-read', 'notifications', 'media', 'geolocation', 'openExternal', 'fullscreen', 'unknown']) {
      expect(permissionAllowed(permission, APP_ORIGIN, APP_PAGE_URL), permission).toBe(false);
    }
    for (const origin of ['https://evil.example', 'letterdesk://evil', 'letterdesk://app:1', 'file://', 'null', '', APP_PAGE_URL, `${APP_ORIGIN}/?x`, 'http://localhost:5174']) {
      expect(permissionAllowed('clipboard-sanitized-write', origin, origin === 'http://localhost:5174' ? DEV_URL : APP_PAGE_URL), origin).toBe(false);
    }
    // The app's page framed by another origin (Electron then sets embeddingOrigin).
    expect(permissionAllowed('clipboard-sanitized-write', APP_ORIGIN, APP_PAGE_URL, 'https://evil.example')).toBe(false);
    expect(permissionAllowed('clipboard-sanitized-write', APP_ORIGIN, APP_PAGE_URL, APP_ORIGIN)).toBe(true);
  });

  it('navigationDecision keeps the app page, refuses the rest and opens only http(s) in the browser', () => {
    expect(navigationDecision(`${APP_PAGE_URL}#orders`, APP_PAGE_URL)).toEqual({ allow: true });
    expect(navigationDecision('https://example.com/page', APP_PAGE_URL)).toEqual({ allow: false, openExternal: true });
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'letterdesk://app/preview/0123456789abcdef0123456789abcdef', 'data:text/html,x']) {
      expect(navigationDecision(url, APP_PAGE_URL), url).toEqual({ allow: false, openExternal: false });
    }
  });

  it('windowOpenDecision always denies and opens only http(s) in the browser', () => {
    expect(windowOpenDecision('https://example.com/')).toEqual({ response: { action: 'deny' }, openExternal: true });
    expect(windowOpenDecision(APP_PAGE_URL)).toEqual({ response: { action: 'deny' }, openExternal: false });
    expect(windowOpenDecision('javascript:alert(1)')).toEqual({ response: { action: 'deny' }, openExternal: false });
  });

  it('headersWithPolicy replaces any CSP header, whatever its case, and keeps the others', () => {
    expect(headersWithPolicy({ 'content-security-policy': ["default-src *"], 'CONTENT-SECURITY-POLICY': ['x'], 'Content-Type': ['text/html'] }, 'p')).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': ['p'] });
    expect(headersWithPolicy(undefined, 'p')).toEqual({ 'Content-Security-Policy': ['p'] });
  });

  it('raiseSteps un-minimises first, and does nothing without a window', () => {
    expect(raiseSteps({ minimized: true })).toEqual(['restore', 'show', 'focus']);
    expect(raiseSteps({ minimized: false })).toEqual(['show', 'focus']);
    expect(raiseSteps(null)).toEqual([]);
  });

  it('willQuitStep holds the quit until the core is closed, and starts closing once', () => {
    expect(willQuitStep('running')).toEqual({ prevent: true, startClosing: true });
    expect(willQuitStep('closing')).toEqual({ prevent: true, startClosing: false });
    expect(willQuitStep('closed')).toEqual({ prevent: false, startClosing: false });
  });

  it('appCommandMenuCommand maps the mouse back and forward buttons', () => {
    expect(appCommandMenuCommand('browser-backward')).toBe('back');
    expect(appCommandMenuCommand('browser-forward')).toBe('forward');
    expect(appCommandMenuCommand('browser-refresh')).toBeNull();
  });

  it('syncForkOptions passes the heap flags to Node and to V8, the allow-listed environment, and names the process', () => {
    expect(syncForkOptions(['--max-old-space-size=96', '--expose-gc'], { PATH: '/bin', LETTERDESK_ACCESS_TOKEN: 'secret', NODE_OPTIONS: '--require /tmp/x.js' })).toEqual({
      execArgv: ['--max-old-space-size=96', '--expose-gc', '--js-flags=--max-old-space-size=96 --expose-gc'],
      env: { PATH: '/bin', MALLOC_ARENA_MAX: '2' },
      serviceName: 'Letterdesk sync',
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    expect(syncForkOptions([], {}).execArgv).toEqual([]);
  });
});

describe('session: permissions and the CSP header, as Electron calls them', () => {
  const hardened = (appUrl = APP_PAGE_URL, policy = CONTENT_SECURITY_POLICY): FakeSession => {
    const fake = new FakeSession();
    hardenSession(fake.session, policy, appUrl);
    return fake;
  };

  it('the permission check: Electron passes the origin (letterdesk://app), and copying rows is allowed', () => {
    const fake = hardened();
    // What Chromium asks when the page calls navigator.clipboard.writeText.
    expect(fake.check(null, 'clipboard-sanitized-write', APP_ORIGIN, { isMainFrame: true, requestingUrl: `${APP_PAGE_URL}#contacts` })).toBe(true);
    expect(fake.check(new FakeWebContents().asWebContents, 'clipboard-sanitized-write', `${APP_ORIGIN}/`, { isMainFrame: true, requestingUrl: APP_PAGE_URL })).toBe(true);
    expect(fake.check(null, 'clipboard-read', APP_ORIGIN, { isMainFrame: true, requestingUrl: APP_PAGE_URL })).toBe(false);
    expect(fake.check(null, 'notifications', APP_ORIGIN, { isMainFrame: true, requestingUrl: APP_PAGE_URL })).toBe(false);
    expect(fake.check(null, 'media', APP_ORIGIN, { isMainFrame: true, requestingUrl: APP_PAGE_URL, mediaType: 'video', securityOrigin: APP_ORIGIN })).toBe(false);
    expect(fake.check(null, 'clipboard-sanitized-write', 'https://evil.example', { isMainFrame: false, requestingUrl: 'https://evil.example/frame', embeddingOrigin: APP_ORIGIN })).toBe(false);
    expect(fake.check(null, 'clipboard-sanitized-write', APP_ORIGIN, { isMainFrame: false, requestingUrl: APP_PAGE_URL, embeddingOrigin: 'https://evil.example' })).toBe(false);
  });

  it('the permission check of the development server page', () => {
    const fake = hardened(DEV_URL, DEVELOPMENT_CONTENT_SECURITY_POLICY);
    expect(fake.check(null, 'clipboard-sanitized-write', 'http://localhost:5173', { isMainFrame: true, requestingUrl: DEV_URL })).toBe(true);
    expect(fake.check(null, 'clipboard-sanitized-write', APP_ORIGIN, { isMainFrame: true, requestingUrl: APP_PAGE_URL })).toBe(false);
  });

  it('the permission request: Electron passes the frame URL in details, and answers through the callback', async () => {
    const fake = hardened();
    const contents = new FakeWebContents().asWebContents;
    expect(await fake.request(contents, 'clipboard-sanitized-write', { isMainFrame: true, requestingUrl: `${APP_PAGE_URL}#orders` })).toBe(true);
    expect(await fake.request(contents, 'clipboard-read', { isMainFrame: true, requestingUrl: APP_PAGE_URL })).toBe(false);
    expect(await fake.request(contents, 'media', { isMainFrame: true, requestingUrl: APP_PAGE_URL, mediaTypes: ['video'], securityOrigin: APP_ORIGIN })).toBe(false);
    expect(await fake.request(contents, 'clipboard-sanitized-write', { isMainFrame: false, requestingUrl: 'https://evil.example/' })).toBe(false);
    expect(await fake.request(contents, 'clipboard-sanitized-write', { isMainFrame: true, requestingUrl: 'letterdesk://app/preview/0123456789abcdef0123456789abcdef' })).toBe(false);
  });

  it('every response gets the policy as its only CSP header', async () => {
    const fake = hardened();
    const answer = await fake.headers({
      id: 1,
      url: 'letterdesk://app/assets/index.js',
      method: 'GET',
      resourceType: 'script',
      referrer: APP_PAGE_URL,
      timestamp: 0,
      statusLine: 'HTTP/1.1 200 OK',
      statusCode: 200,
      responseHeaders: { 'content-security-policy': ["script-src 'unsafe-eval'"], 'Content-Type': ['text/javascript'] },
    });
    expect(answer).toEqual({ responseHeaders: { 'Content-Type': ['text/javascript'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
});

describe('web contents: navigation, new windows and webviews, as Electron emits them', () => {
  const guarded = () => {
    const app = new FakeApp();
    const opened: string[] = [];
    const blocked: string[] = [];
    guardEveryWebContents(app.app, { appUrl: APP_PAGE_URL, openExternal: (u) => opened.push(u), onBlocked: (k, u) => blocked.push(`${k} ${u}`) });
    const contents = new FakeWebContents();
    app.webContentsCreated(contents);
    return { contents, opened, blocked };
  };

  it('every new web contents is guarded', () => {
    const app = new FakeApp();
    guardEveryWebContents(app.app, { appUrl: APP_PAGE_URL, openExternal: () => {} });
    const contents = new FakeWebContents();
    app.webContentsCreated(contents);
    expect(contents.windowOpenHandler).not.toBeNull();
    expect(contents.listeners.count('will-navigate')).toBe(1);
  });

  it('will-navigate: stays on the app page, refuses the rest, sends http(s) links to the browser', () => {
    const g = guarded();
    expect(g.contents.navigate(`${APP_PAGE_URL}#orders`)).toBe(false);
    expect(g.contents.navigate('https://example.com/page')).toBe(true);
    expect(g.contents.navigate('javascript:alert(1)')).toBe(true);
    expect(g.contents.navigate('file:///etc/passwd')).toBe(true);
    expect(g.opened).toEqual(['https://example.com/page']);
    expect(g.blocked).toEqual(['navigate https://example.com/page', 'navigate javascript:alert(1)', 'navigate file:///etc/passwd']);
  });

  it('will-redirect: only to the app page, never opened outside', () => {
    const g = guarded();
    expect(g.contents.redirect(APP_PAGE_URL)).toBe(false);
    expect(g.contents.redirect('https://example.com/')).toBe(true);
    expect(g.opened).toEqual([]);
  });

  it('setWindowOpenHandler: every window.open denied, safe links opened in the browser', () => {
    const g = guarded();
    for (const url of ['https://example.com/', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', APP_PAGE_URL]) expect(g.contents.open(url), url).toEqual({ action: 'deny' });
    expect(g.opened).toEqual(['https://example.com/']);
  });

  it('will-attach-webview: refused', () => {
    const g = guarded();
    expect(g.contents.attachWebview('https://evil.example/')).toBe(true);
    expect(g.blocked).toEqual(['webview https://evil.example/']);
  });

  it('hardenWebContents takes a web contents directly too', () => {
    const contents = new FakeWebContents();
    hardenWebContents(contents.contents, { appUrl: DEV_URL, openExternal: () => {} });
    expect(contents.navigate(`${DEV_URL}#x`)).toBe(false);
    expect(contents.navigate(APP_PAGE_URL)).toBe(true);
  });
});

describe('protocol: the app scheme through protocol.handle', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-glue-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(root, 'assets', 'index.js'), 'export {}');

  it('registers the scheme as privileged before ready', () => {
    const fake = new FakeProtocol();
    registerAppSchemePrivileges(fake.protocol);
    expect(fake.privileged).toEqual([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true } }]);
  });

  it('answers a fetch Request with a Response: the page, a script, HEAD, 404 and 405, each with the CSP', async () => {
    const fake = new FakeProtocol();
    handleAppScheme(fake.protocol, { rendererDir: root });
    const page = await fake.fetch(APP_PAGE_URL);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe('<!doctype html><title>app</title>');
    const script = await fake.fetch('letterdesk://app/assets/index.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const head = await fake.fetch('letterdesk://app/assets/index.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const missing = await fake.fetch('letterdesk://app/assets/none.js');
    expect(missing.status).toBe(404);
    const post = await fake.fetch(APP_PAGE_URL, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    for (const r of [page, script, head, missing, post]) expect(r.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe('utilityProcess.fork: the sync process launcher', () => {
  it('forks the entry with the sync options and relays spawn, messages, stderr, a fatal error and the exit', async () => {
    const { fork, calls } = fakeFork();
    const launch = utilitySyncProcessLauncher(fork);
    const sync = launch(new URL('file:///opt/letterdesk/out/main/syncProcess.js'), ['--max-old-space-size=96']);
    expect(calls).toHaveLength(1);
    const [{ modulePath, args, options, child }] = calls as [(typeof calls)[number]];
    expect(modulePath).toBe('/opt/letterdesk/out/main/syncProcess.js');
    expect(args).toEqual([]);
    expect(options).toMatchObject({ execArgv: ['--max-old-space-size=96', '--js-flags=--max-old-space-size=96'], serviceName: 'Letterdesk sync', stdio: ['ignore', 'inherit', 'pipe'] });
    expect(options.env).toMatchObject({ MALLOC_ARENA_MAX: '2' });

    expect(sync.pid).toBeUndefined();
    child.spawn(4242);
    expect(sync.pid).toBe(4242);

    const received: unknown[] = [];
    sync.onMessage((m) => received.push(m));
    child.message({ type: 'progress', done: 1 });
    expect(received).toEqual([{ type: 'progress', done: 1 }]);
    sync.postMessage({ type: 'cancel' });
    expect(child.sent).toEqual([{ type: 'cancel' }]);

    const exits: SyncProcessExit[] = [];
    sync.onExit((e) => exits.push(e));
    child.stderr.write('warning: slow\n');
    await new Promise((resolve) => setImmediate(resolve));
    child.fatal('Reached heap limit', 'Allocation failed - JavaScript heap out of memory');
    child.exit(134);
    child.exit(134); // a second report changes nothing
    expect(exits).toHaveLength(1);
    expect(exits[0]).toMatchObject({ code: 134, signal: null });
    expect(exits[0]?.stderrTail).toContain('warning: slow');
    expect(exits[0]?.stderrTail).toContain('FatalError at Reached heap limit');
    expect(exits[0]?.stderrTail).toContain('JavaScript heap out of memory');

    // Once it has exited, nothing more is sent and it is not killed.
    sync.postMessage({ type: 'cancel' });
    sync.kill();
    expect(child.sent).toHaveLength(1);
    expect(child.kills).toBe(0);
  });

  it('kills a running process', () => {
    const { fork, calls } = fakeFork();
    const sync = utilitySyncProcessLauncher(fork)(new URL('file:///x/sync.js'), []);
    sync.kill();
    expect(calls[0]?.child.kills).toBe(1);
    expect(calls[0]?.options.execArgv).toEqual([]);
  });
});

describe('app: the single-instance lock and second-instance', () => {
  it('without the lock this instance quits and installs nothing', () => {
    const app = new FakeApp();
    app.lockGranted = false;
    expect(claimSingleInstance(app.app, () => null)).toBe(false);
    expect(app.quits).toBe(1);
    expect(app.listeners.count('second-instance')).toBe(0);
  });

  it('with it, a second start restores a minimised window, shows and focuses it', () => {
    const app = new FakeApp();
    const window = new FakeWindow();
    let current: FakeWindow | null = null;
    expect(claimSingleInstance(app.app, () => current?.window ?? null)).toBe(true);
    expect(app.quits).toBe(0);
    app.secondInstance(); // before the window exists: nothing to raise
    current = window;
    window.minimized = true;
    app.secondInstance(['/opt/Letterdesk/letterdesk', '--original-process-start-time=1'], '/tmp');
    expect(window.calls).toEqual(['restore', 'show', 'focus']);
    app.secondInstance();
    expect(window.calls).toEqual(['restore', 'show', 'focus', 'show', 'focus']);
  });
});

describe('app: will-quit waits for the core', () => {
  it('holds the quit while the core closes, then quits once, letting that quit through', async () => {
    const app = new FakeApp();
    let finishClose: () => void = () => {};
    const closed = new Promise<void>((resolve) => (finishClose = resolve));
    let closing = 0;
    closeBeforeQuit(app.app, () => {
      closing += 1;
      return closed;
    });
    expect(app.willQuit()).toBe(true);
    expect(app.willQuit()).toBe(true); // a second quit while closing is held too
    await expect.poll(() => closing).toBe(1);
    expect(app.quits).toBe(0);
    finishClose();
    await expect.poll(() => app.quitFinished).toBe(true);
    expect(app.quits).toBe(1);
    expect(closing).toBe(1);
  });
});

describe('window: app commands', () => {
  it('forwards the mouse back and forward buttons to the page, ignoring other commands', () => {
    const window = new FakeWindow();
    const sent: MenuCommand[] = [];
    forwardAppCommands(window.window, (c) => sent.push(c));
    window.appCommand('browser-backward');
    window.appCommand('browser-forward');
    window.appCommand('media-play-pause');
    expect(sent).toEqual(['back', 'forward']);
  });
});
