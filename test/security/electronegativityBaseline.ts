/**
 * Reviewed Electronegativity findings. A finding fails the security test unless an entry here
 * covers it: same check, a file path ending in `file`, and the same `code` — the source text from
 * the finding to the end of its line, blanks collapsed (reviewFindings.ts `codeAt`); line numbers
 * move, so they are not compared. An entry covers `count` findings (default 1), so a second
 * identical call added to a reviewed file is a new finding to review. Each entry says why it is
 * not a problem; the test also fails when an entry no longer matches anything (stale).
 */
export interface BaselineEntry {
  check: string;
  /** The end of the finding's path, e.g. `main/index.ts`. */
  file: string;
  /** The code the finding points at, from its column to the end of the line, blanks collapsed. */
  code: string;
  /** How many findings with this check, file and code are reviewed. @default 1 */
  count?: number;
  reason: string;
}

const NEW_WINDOW = "new BrowserWindow(windowOptions(join(here, '../preload/index.cjs'), state, nativeTheme.shouldUseDarkColors, app.isPackaged));";

export const BASELINE: BaselineEntry[] = [
  {
    check: 'CONTEXT_ISOLATION_JS_CHECK',
    file: 'main/index.ts',
    code: NEW_WINDOW,
    reason: 'webPreferences come from windowOptions() in app/window.ts (contextIsolation: true), which the scanner cannot follow; test/unit/security.test.ts asserts them.',
  },
  {
    check: 'SANDBOX_JS_CHECK',
    file: 'main/index.ts',
    code: NEW_WINDOW,
    reason: 'sandbox: true is set in app/window.ts windowOptions(); asserted by test/unit/security.test.ts and the _electron suite.',
  },
  {
    check: 'AUXCLICK_JS_CHECK',
    file: 'main/index.ts',
    code: NEW_WINDOW,
    reason: 'Middle-click opens go through setWindowOpenHandler, which always denies (app/security.ts hardenWebContents).',
  },
  {
    check: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'main/index.ts',
    code: 'shell.openExternal(url);',
    reason: 'The platform service openExternal checks isSafeExternalUrl (http/https only, no credentials) on the line before, tested with a table of hostile URLs.',
  },
  {
    check: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'main/index.ts',
    code: 'shell.openExternal(url),',
    reason: 'The callback given to hardenWebContents, which calls it only after isSafeExternalUrl(url) returned true.',
  },
  {
    check: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'main/app/security.ts',
    code: 'options.openExternal(url);',
    count: 2,
    reason: 'Navigation away from the app and window.open: the openExternal callback is only reached after isSafeExternalUrl(url) returned true.',
  },
  {
    check: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'main/ipc/handlers.ts',
    code: 'core.options.platform.openExternal(url);',
    reason: 'The openExternal handler validates with isSafeExternalUrl before calling the platform service.',
  },
  {
    check: 'CSP_GLOBAL_CHECK',
    file: 'renderer/index.html',
    code: '<meta',
    reason: "The page's meta CSP equals CONTENT_SECURITY_POLICY without frame-ancestors (script-src 'self', style-src 'self', no remote hosts); test/unit/security.test.ts compares them.",
  },
];
