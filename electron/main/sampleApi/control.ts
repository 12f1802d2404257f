/**
 * The sample API's control route (server.ts), for a process that only has the server's address
 * (the Chromium tests, a developer): `POST {origin}/sample/advance?days=N` advances the dataset's
 * clock by N whole days (dataset.ts `advanceClock`) and answers 200 with its record of what changed.
 * It asks for the API's bearer token and sees no faults; it lies outside `/api/v1`, so nothing that
 * pages the API reaches it. Errors are the server's JSON shape: 405 for another method, 401 without
 * the token, 400 BAD_REQUEST (`parameter: "days"`) for a missing or bad `days`.
 */
import type http from 'node:http';
import type { SampleClockAdvance } from './dataset.ts';
import { bearerOf, sendError, sendJson } from './reply.ts';

/** The path of the route that advances the clock. */
export const SAMPLE_ADVANCE_PATH = '/sample/advance';

/** What the control route acts on. */
export interface SampleControl {
  /** The bearer token the API accepts (the route asks for the same). */
  accessToken: string;
  /** Advances the served dataset's clock (server.ts `SampleApi.advanceClock`). */
  advanceClock(days: number): SampleClockAdvance;
}

/** Whether `path` is a control route (answered by {@link answerControl}). */
export function isControlPath(path: string): boolean {
  return path === SAMPLE_ADVANCE_PATH || path === `${SAMPLE_ADVANCE_PATH}/`;
}

/** Answers a request to a control route (see the module comment). */
export function answerControl(req: http.IncomingMessage, res: http.ServerResponse, url: URL, control: SampleControl): void {
  if (req.method !== 'POST') return sendError(res, 405, 'METHOD_NOT_ALLOWED', `Use POST for ${SAMPLE_ADVANCE_PATH}.`, {}, { allow: 'POST' });
  const bearer = bearerOf(req);
  if (bearer !== control.accessToken) {
    return sendError(res, 401, 'UNAUTHORIZED', bearer === null ? 'Missing bearer token in the Authorization header.' : 'The bearer token is not valid.');
  }
  const raw = url.searchParams.get('days');
  const days = raw !== null && /^\d{1,3}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(days >= 1 && days <= 365)) {
    const got = raw === null ? 'it is missing' : `got "${raw.slice(0, 40)}"`;
    return sendError(res, 400, 'BAD_REQUEST', `The query parameter "days" must be a whole number of days from 1 to 365 (${got}).`, { parameter: 'days' });
  }
  sendJson(res, 200, control.advanceClock(days));
}
