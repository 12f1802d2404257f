/**
 * Electron hardening that can be checked without Electron: the CSP, the URL rules for navigation
 * and external links, and the guards installed on every web contents (DESIGN.md "Security").
 */
import type { App, HandlerDetails, Session, WebContents, WebRequest, WindowOpenHandlerResponse } from 'electron';

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

/** What happens to a navigation of the page: stay (the app's own page), or refused, and then maybe opened in the browser. */
export type NavigationDecision = { allow: true } | { allow: false; openExternal: boolean };

/**
 * Whether the page may navigate to `url` (`will-navigate`): only to the app's own page
 * ({@link isAppUrl}); anything else is refused, and an http(s) link ({@link isSafeExternalUrl}) goes
 * to the system browser instead.
 */
export function navigationDecision(url: string, appUrl: string): NavigationDecision {
  return isAppUrl(url, appUrl) ? { allow: true } : { allow: false, openExternal: isSafeExternalUrl(url) };
}

/**
 * What `window.open` (and a link with a target) gets: never a new window; an http(s) link
 * ({@link isSafeExternalUrl}) is opened in the system browser instead.
 * @returns the answer for Electron's window-open handler and whether to open `url` externally
 */
export function windowOpenDecision(url: string): { response: WindowOpenHandlerResponse; openExternal: boolean } {
  return { response: { action: 'deny' }, openExternal: isSafeExternalUrl(url) };
}

/** The part of Electron's `WebContents` that {@link hardenWebContents} uses. */
export type GuardedWebContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/**
 * Blocks navigation and redirects away from the app ({@link navigationDecision}), every
 * `window.open` ({@link windowOpenDecision}), and `<webview>` attachment.
 */
export function hardenWebContents(contents: GuardedWebContents, options: GuardOptions): void {
  const blocked = options.onBlocked ?? (() => {});
  contents.on('will-navigate', (details) => {
    const { url } = details;
    const decision = navigationDecision(url, options.appUrl);
    if (decision.allow) return;
    details.preventDefault();
    blocked('navigate', url);
    if (decision.openExternal) options.openExternal(url);
  });
  contents.on('will-redirect', (details) => {
    if (navigationDecision(details.url, options.appUrl).allow) return;
    details.preventDefault();
    blocked('navigate', details.url);
  });
  contents.setWindowOpenHandler(({ url }: HandlerDetails) => {
    const decision = windowOpenDecision(url);
    blocked('window-open', url);
    if (decision.openExternal) options.openExternal(url);
    return decision.response;
  });
  contents.on('will-attach-webview', (event, _webPreferences, params) => {
    event.preventDefault();
    blocked('webview', params.src ?? '');
  });
}

/**
 * Installs {@link hardenWebContents} on every web contents the app creates (`web-contents-created`):
 * the window's page, and anything else Chromium makes (a devtools page, a refused popup's contents).
 */
export function guardEveryWebContents(app: Pick<App, 'on'>, options: GuardOptions): void {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, options));
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
 * `scheme://host[:port]` of a URL or origin, for any scheme (Node's `URL.origin` is `null` for
 * schemes it does not know, such as `letterdesk:`), or null when `value` is not a URL or carries a
 * user or password.
 */
export function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '' || url.host === '') return null;
    return `${url.protocol}//${url.host}`;
  } catch {
    return null;
  }
}

/**
 * Whether the app's page may use `permission`: only to write plain text to the clipboard (copying
 * selected rows); never to read it, nor anything else (camera, notifications, geolocation…).
 * @param permission Electron's permission name
 * @param requestingOrigin the origin asking, as Electron's permission check handler passes it
 *   (`letterdesk://app`, with or without a trailing `/`), or the origin of the frame's URL for a request
 * @param appUrl the app page's URL; its origin is the only one allowed
 * @param embeddingOrigin the origin of the page embedding the asking frame, when Electron gives one
 *   (a cross-origin subframe): it must be the app's too
 */
export function permissionAllowed(permission: string, requestingOrigin: string, appUrl: string, embeddingOrigin?: string): boolean {
  const app = originOf(appUrl);
  const sameAsApp = (origin: string): boolean => {
    // An origin has no path beyond `/`, no query and no fragment: anything more is not an origin.
    if (!/^[^?#]*?:\/\/[^/?#]*\/?$/.test(origin)) return false;
    return app !== null && originOf(origin) === app;
  };
  return permission === 'clipboard-sanitized-write' && sameAsApp(requestingOrigin) && (embeddingOrigin === undefined || sameAsApp(embeddingOrigin));
}

/** Electron's permission check handler (`session.setPermissionCheckHandler`). */
export type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;
/** Electron's permission request handler (`session.setPermissionRequestHandler`). */
export type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
/** Electron's `webRequest.onHeadersReceived` listener. */
export type HeadersReceivedListener = NonNullable<Parameters<WebRequest['onHeadersReceived']>[0]>;

/**
 * The response headers with `policy` as the only CSP header (one sent already is dropped, whatever
 * its case), for `webRequest.onHeadersReceived`.
 */
export function headersWithPolicy(responseHeaders: Record<string, string[]> | undefined, policy: string): Record<string, string[]> {
  const headers = Object.fromEntries(Object.entries(responseHeaders ?? {}).filter(([name]) => name.toLowerCase() !== 'content-security-policy'));
  return { ...headers, 'Content-Security-Policy': [policy] };
}

/** The part of Electron's `Session` that {@link hardenSession} uses. */
export type HardenedSession = Pick<Session, 'setPermissionCheckHandler' | 'setPermissionRequestHandler'> & { webRequest: Pick<WebRequest, 'onHeadersReceived'> };

/**
 * Sends `policy` as the CSP response header of every response ({@link headersWithPolicy}) and
 * allows only {@link permissionAllowed}'s permissions, both when a page checks one (Electron passes
 * the asking frame's origin) and when it requests one (Electron passes the frame's URL).
 * @param policy {@link CONTENT_SECURITY_POLICY}, or the development server's policy
 * @param appUrl the app page's URL, for the permission decisions
 */
export function hardenSession(session: HardenedSession, policy: string = CONTENT_SECURITY_POLICY, appUrl = ''): void {
  const onHeaders: HeadersReceivedListener = (details, callback) => callback({ responseHeaders: headersWithPolicy(details.responseHeaders, policy) });
  session.webRequest.onHeadersReceived(onHeaders);
  const request: PermissionRequestHandler = (_contents, permission, callback, details) =>
    callback(isAppUrl(details.requestingUrl, appUrl) && permissionAllowed(permission, originOf(details.requestingUrl) ?? '', appUrl));
  session.setPermissionRequestHandler(request);
  const check: PermissionCheckHandler = (_contents, permission, requestingOrigin, details) => permissionAllowed(permission, requestingOrigin, appUrl, details.embeddingOrigin);
  session.setPermissionCheckHandler(check);
}
