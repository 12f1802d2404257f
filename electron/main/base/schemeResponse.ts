/**
 * The shape of an answer of the app scheme (appScheme.ts), shared by the files and the previews
 * it serves, and the error answers they give.
 */

/** An answer of the scheme: status, headers and body (null for HEAD). */
export interface SchemeResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

/** Headers every answer carries: no type guessing, and revalidation (a sync may replace a preview). */
export const BASE_HEADERS: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };

/**
 * A plain-text error answer.
 * @param status HTTP status (404, 405 …)
 * @param message the body's text
 * @param extra more headers (e.g. `Allow`)
 */
export function errorResponse(status: number, message: string, extra: Record<string, string> = {}): SchemeResponse {
  return { status, headers: { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', ...extra }, body: new TextEncoder().encode(message) };
}

/** 404, the answer to everything the scheme does not serve. */
export const notFound = (): SchemeResponse => errorResponse(404, 'Not found');
