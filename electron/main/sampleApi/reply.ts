/**
 * The sample API's JSON answers (server.ts): a body with its length, and the error shape
 * `{ "message": <text>, "error": <CODE>, …extra }` every error answer uses; and the bearer token a
 * request carries.
 */
import type http from 'node:http';

/** Answers `status` with `body` as JSON. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const buf = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(buf.length), ...headers });
  res.end(buf);
}

/** Answers `status` with `{ message, error, ...extra }` (`error` an upper-case code such as BAD_REQUEST). */
export function sendError(res: http.ServerResponse, status: number, error: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): void {
  sendJson(res, status, { message, error, ...extra }, headers);
}

/** The bearer token of a request's `Authorization` header, or null when it carries none. */
export function bearerOf(req: http.IncomingMessage): string | null {
  const auth = req.headers.authorization;
  return typeof auth === 'string' && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '').trim() : null;
}
