/**
 * Electron hardening that can be checked without Electron: the CSP, the URL rules for navigation
 * and external links, and the guards installed on every web contents (DESIGN.md "Security").
 */
import type { Session, WebContents } from 'electron';

/**
 * The page's Content Security Policy, one directive per entry. Nothing remote at all: scripts,
 * styles, fonts and connections come from the app's own origin only, and images from it too (the
 * template previews the sync downloaded, served from the cache through the app scheme) or from
 * `data:` URLs in the app's own stylesheet. No inline scripts or styles: Svelte sets styles through
 * the CSSOM (`element.style`), which `style-src` does not govern.
 */
const POLICY: readonly (readonly [directive: string, sources: string])[] = [
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-ancestors', "'none'"],
];

/** Directives a `<meta>` element cannot carry: the browser ignores them there, with a console error. */
const HEADER_ONLY_DIRECTIVES = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

/** The CSP the app's scheme (and the test server) sends with the page, as a response header. */
export const CONTENT_SECURITY_POLICY = POLICY.map(([directive, sources]) => `${directive} ${sources}`).join('; ');

/**
 * The same policy without the header-only directives: exactly what `renderer/index.html`'s
 * `<meta http-equiv="Content-Security-Policy">` holds (a unit test compares them), so the page is
 * protected even where no header is sent (the development server).
 */
export const META_CONTENT_SECURITY_POLICY = POLICY.filter(([directive]) => !HEADER_ONLY_DIRECTIVES.has(directive))
  .map(([directive, sources]) => `${directive} ${sources}`)
  .join('; ');

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
 * True when `url` is the app's own page: the same scheme, host (with port), and path as `appUrl`
 * (`letterdesk://app/index.html` in the app, the dev server's page in development), without user
 * or password; query and fragment may differ. A `file:` URL is compared the same way, so
 * `file://host/<same path>` is not the app.
 */
export function isAppUrl(url: string, appUrl: string): boolean {
  try {
    const target = new URL(url);
    const app = new URL(appUrl);
    return (
      target.protocol === app.protocol &&
      target.host === app.host &&
      target.pathname === app.pathname &&
      target.username === '' &&
      target.password === ''
    );
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

/**
 * The policy of the development server's page (`npm run dev`): the same, except that styles may be
 * inline, because Vite's development client injects each stylesheet as a `<style>` element (the
 * built page links them as files). Never used by a packaged app.
 */
export const DEVELOPMENT_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

/** {@link META_CONTENT_SECURITY_POLICY} for the development server's page (see {@link DEVELOPMENT_CONTENT_SECURITY_POLICY}). */
export const DEVELOPMENT_META_CONTENT_SECURITY_POLICY = META_CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

/**
 * Whether a page may use `permission`: only the app's own page, and only to write plain text to the
 * clipboard (copying selected rows); never to read it, nor anything else (camera, notifications,
 * geolocation…).
 * @param permission Electron's permission name
 * @param requestingUrl the URL of the page or frame asking
 * @param appUrl the app page's URL
 */
export function permissionAllowed(permission: string, requestingUrl: string, appUrl: string): boolean {
  return permission === 'clipboard-sanitized-write' && isAppUrl(requestingUrl, appUrl);
}

/**
 * Sends `policy` as the CSP response header of every response (replacing one sent already, whatever
 * its case) and refuses every permission request but {@link permissionAllowed}'s.
 * @param policy {@link CONTENT_SECURITY_POLICY}, or the development server's policy
 * @param appUrl the app page's URL, for the permission check
 */
export function hardenSession(session: Session, policy: string = CONTENT_SECURITY_POLICY, appUrl = ''): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = Object.fromEntries(Object.entries(details.responseHeaders ?? {}).filter(([name]) => name.toLowerCase() !== 'content-security-policy'));
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [policy] } });
  });
  session.setPermissionRequestHandler((contents, permission, callback, details) => callback(permissionAllowed(permission, details.requestingUrl ?? contents.getURL(), appUrl)));
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permissionAllowed(permission, requestingOrigin, appUrl));
}
