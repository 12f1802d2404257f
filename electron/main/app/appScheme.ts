/**
 * The app's own scheme, `letterdesk://app/…` (DESIGN.md "App scheme"): the page and its assets
 * come from the built renderer folder, and `preview/<key>` from the active profile's cache. This
 * module is the whole request → response decision, without Electron, so Node tests and the Chromium
 * test server (test/e2e/rendererServer.ts) run the same code the app does; `registerAppScheme`
 * (appSchemeElectron.ts) only adapts it to `protocol.handle`.
 */
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { PREVIEW_PATH_PREFIX } from '../../../shared/previewKey.ts';
import { previewResponse, type PreviewReader } from '../previews/serve.ts';
import { BASE_HEADERS, errorResponse, notFound, type SchemeResponse } from '../base/schemeResponse.ts';
import { CONTENT_SECURITY_POLICY } from './security.ts';

export type { SchemeResponse } from '../base/schemeResponse.ts';

/** The scheme's name. */
export const APP_SCHEME = 'letterdesk';
/** The one host the scheme serves. */
export const APP_HOST = 'app';
/** The page's URL in the app: what the window loads and what IPC trusts (security.ts `isAppUrl`). */
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * Privileges of the scheme (Electron `protocol.registerSchemesAsPrivileged`): standard (relative
 * URLs, an origin of its own, web storage), secure (like https: no mixed-content downgrade), the
 * fetch API and CORS mode (module scripts and stylesheets are requested in CORS mode, same-origin
 * here), and V8's code cache. Not `bypassCSP`: the page's policy applies to its own scheme too.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true } as const;

/** Where {@link appSchemeResponse} finds what it serves. */
export interface AppSchemeSources {
  /** Absolute path of the built renderer folder (out/renderer); nothing outside it is served. */
  rendererDir: string;
  /** Reads a preview from the active profile's cache; absent: every preview answers 404. */
  readPreview?: PreviewReader;
}

/** Media types by file extension: the only files served (anything else in the folder is 404). */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/**
 * The path segments of a request, percent-decoded, or null when one of them could step out of the
 * folder or name something odd: `..` or `.` (also encoded), an empty segment (`//`), a slash or
 * backslash inside a segment, a NUL or other control character, a drive letter or stream (`:`), or
 * an encoding that is not UTF-8.
 */
function safeSegments(pathname: string): string[] | null {
  const raw = pathname.replace(/^\//, '');
  if (raw === '') return [];
  const segments: string[] = [];
  for (const part of raw.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return null;
    }
    // eslint-disable-next-line no-control-regex
    if (segment === '' || segment === '.' || segment === '..' || /[/\\:\u0000-\u001f\u007f]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

/** Whether `path` is `dir` itself or lies below it (both absolute). */
function isInside(dir: string, path: string): boolean {
  const inside = relative(dir, path);
  return !(inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside));
}

/**
 * The real path of `file` (every symlink resolved) when it is a file that really lies inside the real
 * `dir`, else null: a symlink in the folder that points outside it is not followed out.
 */
async function realFileInside(dir: string, file: string): Promise<string | null> {
  // The callback form through the module object, which Electron's asar support patches.
  const realpath = promisify(fs.realpath);
  try {
    const [realDir, realFile] = await Promise.all([realpath(dir), realpath(file)]);
    return realFile !== realDir && isInside(realDir, realFile) ? realFile : null;
  } catch {
    return null;
  }
}

/**
 * Answers one request of the app scheme. Every answer (a file, a preview, a 404 or 405) carries
 * {@link CONTENT_SECURITY_POLICY} as header, so whatever serves this alone (the Chromium test
 * server) applies the page's policy too.
 *  - `letterdesk://app/` and `/index.html`: the page;
 *  - `letterdesk://app/<file>`: a file inside `rendererDir` with a known extension, typed by it; a
 *    symlink is resolved and served only when its target lies inside the folder too;
 *  - `letterdesk://app/preview/<key>`: the cached preview of that key (previews/serve.ts);
 *  - anything else — another scheme or host, a user or port, a path that leaves the folder (`..`,
 *    `%2e%2e`, `%2f`, `%5c`, a symlink to outside), a missing file or directory, an unknown
 *    extension — is 404; a method
 *    other than GET or HEAD is 405.
 * Never throws: a file that cannot be read is 404 too.
 * @param url the request's full URL
 * @param sources the renderer folder and the preview reader
 * @param method the request's method @default 'GET'
 */
export async function appSchemeResponse(url: string, sources: AppSchemeSources, method = 'GET'): Promise<SchemeResponse> {
  const response = await schemeAnswer(url, sources, method);
  return { ...response, headers: { ...response.headers, 'Content-Security-Policy': CONTENT_SECURITY_POLICY } };
}

async function schemeAnswer(url: string, sources: AppSchemeSources, method: string): Promise<SchemeResponse> {
  if (method !== 'GET' && method !== 'HEAD') return errorResponse(405, 'Method not allowed', { Allow: 'GET, HEAD' });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return notFound();
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST || parsed.username !== '' || parsed.password !== '') return notFound();
  const segments = safeSegments(parsed.pathname);
  if (segments === null) return notFound();
  const response = await answer(segments, sources);
  return method === 'HEAD' ? { ...response, body: null } : response;
}

async function answer(segments: string[], sources: AppSchemeSources): Promise<SchemeResponse> {
  const previewPrefix = PREVIEW_PATH_PREFIX.replace(/\/$/, '');
  if (segments[0] === previewPrefix) {
    return segments.length === 2 ? previewResponse(sources.readPreview, segments[1] as string) : notFound();
  }
  const names = segments.length === 0 ? ['index.html'] : segments;
  const file = join(sources.rendererDir, ...names);
  if (relative(sources.rendererDir, file) === '' || !isInside(sources.rendererDir, file)) return notFound();
  const type = MEDIA_TYPES[extname(file).toLowerCase()];
  if (type === undefined) return notFound();
  const real = await realFileInside(sources.rendererDir, file);
  if (real === null) return notFound();
  let body: Uint8Array;
  try {
    body = await readFile(real);
  } catch {
    return notFound();
  }
  return { status: 200, headers: { ...BASE_HEADERS, 'Content-Type': type }, body };
}
