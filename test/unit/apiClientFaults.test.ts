// The API client's behaviour under each fault of the sample API (and of small purpose-built loopback
// servers for answers the sample API does not give): retried and succeeded, or failed with the
// right code after the right number of requests. Plus: tokens never reach messages or logs.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { inspect } from 'node:util';
import { createApiClient, parseRetryAfter, type ApiClientOptions, type RequestOutcome } from '../../electron/main/api/client.ts';
import { logger } from '../../electron/main/base/log.ts';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { toErrorPayload } from '../../shared/errors.ts';

const tokens = async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN });

let api: SampleApi;
const outcomes: RequestOutcome[] = [];
const logLines: string[] = [];

function makeClient(extra: Partial<ApiClientOptions> = {}) {
  return createApiClient({ baseUrl: api.baseUrl, getTokens: tokens, retry: { limit: 3, baseDelayMs: 5, maxDelayMs: 20 }, onOutcome: (o) => outcomes.push(o), ...extra });
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

/** A loopback server answering every request with `handler`; returns base URL, request count, close. */
async function customServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

beforeAll(async () => {
  api = await startSampleApi({ contacts: 500, orders: 100 });
  const capture = Object.assign((message: { data: unknown[] }) => logLines.push(message.data.map((d) => (d instanceof Error ? `${d.message} ${d.stack}` : String(d))).join(' ')), { level: 'silly', transforms: [] });
  (logger.transports as unknown as Record<string, unknown>).capture = capture;
  logger.transports.file.level = false;
});
afterAll(() => api.close());
beforeEach(() => {
  api.setFaults({});
  outcomes.length = 0;
});

describe('API client under faults', () => {
  it('dropped connections: retried and succeeded; all attempts dropped → NETWORK_UNREACHABLE', async () => {
    api.setFaults({ dropRate: 1, maxFaults: 2 });
    const before = api.stats().requests;
    const page = await makeClient().listContacts({ pageSize: 5 });
    expect(page.records).toHaveLength(5);
    expect(page.attempts).toBe(3);
    expect(api.stats().requests - before).toBe(3);
    expect(outcomes).toEqual([{ ok: true, at: expect.any(Date) }]);

    api.setFaults({ dropRate: 1 });
    const err = await failure(makeClient().listContacts({}));
    expect(err.code).toBe('NETWORK_UNREACHABLE');
    expect(err.message).toMatch(/after 4 attempts/);
    expect(outcomes.at(-1)).toMatchObject({ ok: false, code: 'NETWORK_UNREACHABLE' });
  });

  it('5xx: retried and succeeded; persistent → SERVER_ERROR after limit + 1 requests', async () => {
    api.setFaults({ serverErrorRate: 1, maxFaults: 3 });
    expect((await makeClient().listOrders({ page: 0, pageSize: 2 })).attempts).toBe(4);
    api.setFaults({ serverErrorRate: 1 });
    const before = api.stats().requests;
    const err = await failure(makeClient({ retry: { limit: 2, baseDelayMs: 1 } }).listOrders({ page: 0, pageSize: 2 }));
    expect(err.code).toBe('SERVER_ERROR');
    expect(api.stats().requests - before).toBe(3);
    expect(err.message).toMatch(/HTTP 50[023].*try again later/);
  });

  it('429: waits what Retry-After says, then succeeds; persistent → RATE_LIMITED', async () => {
    api.setFaults({ rateLimitRate: 1, retryAfterSeconds: 1, maxFaults: 1 });
    const t = performance.now();
    const page = await makeClient({ retry: { limit: 3, baseDelayMs: 1, maxDelayMs: 1 } }).listContacts({ pageSize: 3 });
    expect(page.attempts).toBe(2);
    expect(performance.now() - t).toBeGreaterThanOrEqual(950);

    api.setFaults({ rateLimitRate: 1, retryAfterSeconds: 0 });
    const err = await failure(makeClient({ retry: { limit: 1, baseDelayMs: 1 } }).listContacts({}));
    expect(err.code).toBe('RATE_LIMITED');
    expect(outcomes.at(-1)).toMatchObject({ ok: false, code: 'RATE_LIMITED' });
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('HTML error page from a proxy (502): retried and succeeded; persistent → SERVER_ERROR', async () => {
    api.setFaults({ htmlErrorRate: 1, maxFaults: 1 });
    expect((await makeClient().listContacts({})).attempts).toBe(2);
    api.setFaults({ htmlErrorRate: 1 });
    expect((await failure(makeClient().listContacts({}))).code).toBe('SERVER_ERROR');
  });

  it('truncated bodies: retried and succeeded; persistent → NETWORK_UNREACHABLE', async () => {
    api.setFaults({ truncateRate: 1, maxFaults: 2 });
    const page = await makeClient().listContacts({ pageSize: 50 });
    expect(page.attempts).toBe(3);
    expect(page.records.every((r) => r.ok)).toBe(true);
    api.setFaults({ truncateRate: 1 });
    expect((await failure(makeClient().listContacts({ pageSize: 50 }))).code).toBe('NETWORK_UNREACHABLE');
  });

  it('schema-violating records are reported in place with id and reason, never dropped', async () => {
    api.setFaults({ invalidRecordRate: 0.3, seed: 2 });
    for (const list of [
      async () => (await makeClient().listContacts({ pageSize: 100 })).records,
      async () => (await makeClient().listOrders({ page: 0, pageSize: 60 })).records,
    ]) {
      const records = await list();
      const bad = records.filter((r) => !r.ok);
      expect(bad.length).toBeGreaterThan(5);
      expect(bad.length).toBeLessThan(records.length);
      for (const r of bad) {
        if (r.ok) continue;
        expect(r.id).toMatch(/^\d+$/);
        expect(r.reason.length).toBeGreaterThan(5);
        expect((r.raw as { id: unknown }).id !== undefined).toBe(true);
      }
    }
    const records = (await makeClient().listContacts({ pageSize: 100 })).records;
    // in server order: ids line up with the dataset whether valid or not
    expect(records.map((r) => (r.ok ? r.record.id : r.id))).toEqual([...api.dataset.contactIds()].slice(0, 100));
    const reasons = records.flatMap((r) => (r.ok ? [] : [r.reason])).join(' | ');
    expect(reasons).toMatch(/isLiveMode|createdAt|fullName|ContactLabels|isVerified/);
  });

  it('drift: records inserted between page reads show up as a changed count and shifted rows', async () => {
    const local = await startSampleApi({ contacts: 100, orders: 10, faults: { drift: { inserts: 3 } } });
    try {
      const client = createApiClient({ baseUrl: local.baseUrl, getTokens: tokens });
      const p0 = await client.listContacts({ page: 0, pageSize: 10 });
      const p1 = await client.listContacts({ page: 1, pageSize: 10 });
      expect(p1.count).toBe(p0.count + 3);
      const id = (r: (typeof p0.records)[number]) => (r.ok ? r.record.id : r.id);
      // the last 3 rows of page 0 were pushed onto page 1: read twice
      expect(p1.records.slice(0, 3).map(id)).toEqual(p0.records.slice(7).map(id));
      local.setFaults({ drift: { deletes: 4 }, seed: 9 });
      const before = local.dataset.contactCount;
      await client.listContacts({ page: 0, pageSize: 10 });
      expect(local.dataset.contactCount).toBe(before - 4);
    } finally {
      await local.close();
    }
  });

  it('per-request timeout → TIMEOUT after retries', async () => {
    api.setFaults({ latencyMs: 400 });
    const t = performance.now();
    const err = await failure(makeClient({ timeoutMs: 80, retry: { limit: 1, baseDelayMs: 1 } }).listContacts({}));
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toMatch(/80 ms.*after 2 attempts/);
    expect(performance.now() - t).toBeLessThan(1000);
  });

  it('cancellation through AbortSignal: during a request and during a backoff wait → CANCELLED, no outcome reported', async () => {
    api.setFaults({ latencyMs: 3000 });
    const c1 = new AbortController();
    const t = performance.now();
    setTimeout(() => c1.abort(), 50);
    expect((await failure(makeClient().listContacts({}, { signal: c1.signal }))).code).toBe('CANCELLED');
    expect(performance.now() - t).toBeLessThan(1000);

    api.setFaults({ serverErrorRate: 1 });
    const c2 = new AbortController();
    setTimeout(() => c2.abort(), 100);
    const t2 = performance.now();
    expect((await failure(makeClient({ retry: { limit: 5, baseDelayMs: 10_000 } }).listContacts({}, { signal: c2.signal }))).code).toBe('CANCELLED');
    expect(performance.now() - t2).toBeLessThan(1000);

    const c3 = new AbortController();
    c3.abort();
    expect((await failure(makeClient().listContacts({}, { signal: c3.signal }))).code).toBe('CANCELLED');
    expect(outcomes).toEqual([]);
  });

  it('401 → AUTH_REJECTED at once (no retry); 403 too', async () => {
    const before = api.stats().requests;
    const wrong = createApiClient({ baseUrl: api.baseUrl, getTokens: async () => ({ accessToken: 'not-the-token', refreshToken: SAMPLE_REFRESH_TOKEN }), onOutcome: (o) => outcomes.push(o) });
    const err = await failure(wrong.listOrders({ page: 0, pageSize: 1 }));
    expect(err.code).toBe('AUTH_REJECTED');
    expect(err.message).toMatch(/HTTP 401.*new tokens/);
    expect(api.stats().requests - before).toBe(1);
    expect(outcomes.at(-1)).toMatchObject({ ok: false, code: 'AUTH_REJECTED' });
    const noRefresh = createApiClient({ baseUrl: api.baseUrl, getTokens: async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: null }) });
    const missing = await failure(noRefresh.listContacts({}));
    expect(missing.code).toBe('AUTH_REJECTED');
    // The refusal names the missing refresh token, not a rejected access token.
    expect(missing.message).toMatch(/HTTP 401.*no refresh token was sent.*Enter the refresh token/);
    expect(missing.message).not.toMatch(/rejected/);
    expect((await noRefresh.listOrders({ page: 0, pageSize: 1 })).records).toHaveLength(1);

    const s = await customServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end('{"message":"forbidden"}');
    });
    try {
      const c = createApiClient({ baseUrl: s.baseUrl, getTokens: tokens, retry: { baseDelayMs: 1 } });
      expect((await failure(c.listContacts({}))).code).toBe('AUTH_REJECTED');
      expect(s.requests()).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('nothing listening → NETWORK_UNREACHABLE', async () => {
    const s = await customServer(() => undefined);
    const baseUrl = s.baseUrl;
    await s.close();
    const c = createApiClient({ baseUrl, getTokens: tokens, retry: { limit: 2, baseDelayMs: 1 }, onOutcome: (o) => outcomes.push(o) });
    const err = await failure(c.listContacts({}));
    expect(err.code).toBe('NETWORK_UNREACHABLE');
    expect(err.message).toMatch(/ECONNREFUSED.*after 3 attempts.*network connection/);
    expect(outcomes).toEqual([{ ok: false, code: 'NETWORK_UNREACHABLE', at: expect.any(Date) }]);
  });

  it('BAD_RESPONSE: wrong envelope (no retry), HTML with 200 (retried), unexpected 404; VALIDATION for 400', async () => {
    let mode = 'envelope';
    const s = await customServer((_req, res) => {
      if (mode === 'envelope') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"message":"success","data":{"rows":"nope"}}');
      } else if (mode === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Please log in to the Wi-Fi</body></html>');
      } else if (mode === '404') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('Not Found');
      } else {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"message":"orderStatus is invalid","error":"BAD_REQUEST"}');
      }
    });
    try {
      const c = createApiClient({ baseUrl: s.baseUrl, getTokens: tokens, retry: { limit: 2, baseDelayMs: 1 } });
      let err = await failure(c.listContacts({}));
      expect(err.code).toBe('BAD_RESPONSE');
      expect(err.message).toMatch(/envelope.*\/api\/v1/);
      expect(s.requests()).toBe(1);
      mode = 'html';
      err = await failure(c.listContacts({}));
      expect(err.code).toBe('BAD_RESPONSE');
      expect(err.message).toMatch(/HTML page/);
      expect(s.requests()).toBe(4);
      mode = '404';
      expect((await failure(c.listOrders({ page: 0, pageSize: 1 }))).code).toBe('BAD_RESPONSE');
      expect(s.requests()).toBe(5);
      mode = '400';
      err = await failure(c.listOrders({ page: 0, pageSize: 1 }));
      expect(err.code).toBe('VALIDATION');
      expect(err.message).toMatch(/orderStatus is invalid/);
      expect(s.requests()).toBe(6);
    } finally {
      await s.close();
    }
  });
});

describe('tokens never appear in error messages or logs', () => {
  it('across every failure kind, including a server that echoes the headers back', async () => {
    const access = 'eyJ.SECRET-ACCESS-7f3a9c.sig';
    const refresh = 'SECRET-REFRESH-55e1b2';
    let mode = 0;
    const s = await customServer((req, res) => {
      const echo = `${req.headers.authorization} ${req.headers.refreshtoken}`;
      const m = mode % 5;
      if (m === 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `bad query; you sent ${echo}` }));
      } else if (m === 1) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `token ${echo} rejected` }));
      } else if (m === 2) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(echo);
      } else if (m === 3) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: echo, data: { count: 'x', rows: echo } }));
      } else {
        req.socket.destroy();
      }
    });
    const errors: unknown[] = [];
    try {
      const c = createApiClient({ baseUrl: s.baseUrl, getTokens: async () => ({ accessToken: access, refreshToken: refresh }), retry: { limit: 1, baseDelayMs: 1 }, timeoutMs: 2000 });
      for (mode = 0; mode < 5; mode++) {
        errors.push(await failure(c.listContacts({})));
        errors.push(await failure(c.listOrders({ page: 0, pageSize: 1 })));
      }
      // a token that cannot go into a header
      const broken = createApiClient({ baseUrl: s.baseUrl, getTokens: async () => ({ accessToken: `${access}\nX`, refreshToken: refresh }) });
      errors.push(await failure(broken.listContacts({})));
    } finally {
      await s.close();
    }
    expect(new Set(errors.map((e) => (e as { code: string }).code))).toEqual(new Set(['VALIDATION', 'AUTH_REJECTED', 'SERVER_ERROR', 'BAD_RESPONSE', 'NETWORK_UNREACHABLE']));
    logger.warn('an error for the log', errors[0]);
    const everything = [...errors.map((e) => `${inspect(e, { depth: 10 })} ${JSON.stringify(toErrorPayload(e))} ${String(e)}`), ...logLines].join('\n');
    expect(logLines.some((l) => l.includes('retry'))).toBe(true);
    for (const secret of [access, refresh, 'SECRET-ACCESS', 'SECRET-REFRESH']) expect(everything).not.toContain(secret);
  });
});
