/**
 * Electron hardening that can be checked without Electron: the CSP, the URL rules for navigation
 * and external links, and the guards installed on every web contents (DESIGN.md "Security").
 */
import type { Session, WebContents } from 'electron';

/**
 * The page's Content Security Policy. `script-src 'self'` forbids inline and remote scripts;
 * images may come from https (template thumbnails, §2.3 `thumbnailUrl`) and nothing else remote.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' https: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * True when `url` may be opened in the system browser: an absolute `http:` or `https:` URL with a
 * host and without embedded credentials. Everything else (`javascript:`, `file:`, `data:`,
 * `smb:`, custom schemes, relative or malformed URLs) is refused.
 */
export function isSafeExternalUrl(url: unknown): url is string {
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) return false;
  // Control characters and whitespace never belong in a link we open for someone.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(url)) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.hostname === '') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  return true;
}

/**
 * True when `url` is the app's own page: same origin and path prefix as `appUrl` (a `file:` URL of
 * out/renderer/index.html in production, the dev server in development).
 */
export function isAppUrl(url: string, appUrl: string): boolean {
  try {
    const target = new URL(url);
    const app = new URL(appUrl);
    if (target.protocol !== app.protocol) return false;
    if (app.protocol === 'file:') return target.pathname === app.pathname;
    return target.origin === app.origin;
  } catch {
    return false;
  }
}

/** What {@link hardenWebContents} needs from the outside world. */
export interface GuardOptions {
  /** URL of the app's own page. */
  appUrl: string;
  /** Opens a URL in the system browser (Electron's `shell.openExternal`). */
  openExternal: (url: string) => void;
  /** Receives refused navigations, for the log. */
  onBlocked?: (kind: 'navigate' | 'window-open' | 'webview' | 'permission', url: string) => void;
}

/**
 * Blocks navigation away from the app, every `window.open` (http(s) links go to the system browser
 * instead), `<webview>` attachment, and every permission request.
 */
export function hardenWebContents(contents: WebContents, options: GuardOptions): void {
  const blocked = options.onBlocked ?? (() => {});
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url, options.appUrl)) return;
    event.preventDefault();
    blocked('navigate', url);
    if (isSafeExternalUrl(url)) options.openExternal(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (isAppUrl(url, options.appUrl)) return;
    event.preventDefault();
    blocked('navigate', url);
  });
  contents.setWindowOpenHandler(({ url }) => {
    blocked('window-open', url);
    if (isSafeExternalUrl(url)) options.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event, _prefs, params) => {
    event.preventDefault();
    blocked('webview', params.src ?? '');
  });
}

/** Sends the CSP as a response header for every page load and refuses every permission request. */
export function hardenSession(session: Session): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
