// The API client against services that misbehave on purpose, over real loopback HTTP: a redirect
// to another address (the tokens must not follow it, and its body is not data), and answers far
// larger than a page can be (the client stops reading at its cap).
import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { createApiClient } from '../../electron/main/api/client.ts';

/** A loopback server answering with `handler`; counts requests and the bytes it managed to send. */
async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: http.IncomingHttpHeaders[] = [];
  const s = http.createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  const close = () => {
    s.closeAllConnections();
    return new Promise<void>((r) => s.close(() => r()));
  };
  opened.push(close);
  return { origin, baseUrl: `${origin}/api/v1`, seen, close };
}

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((close) => close()));
});

const tokens = async () => ({ accessToken: 'ACCESS-aaaa1111', refreshToken: 'REFRESH-bbbb2222' });

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

describe('redirects are never followed', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`HTTP ${status} to another origin: the second server receives nothing, the error names the location`, async () => {
      const elsewhere = await server((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'success', data: { count: 1, rows: [] } }));
      });
      const target = `${elsewhere.origin}/steal/api/v1/contacts?x=1`;
      const service = await server((_req, res) => {
        res.writeHead(status, { location: target, 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'success', data: { count: 0, rows: [] } }));
      });
      const client = createApiClient({ baseUrl: service.baseUrl, getTokens: tokens, retry: { limit: 3, baseDelayMs: 1 } });
      for (const call of [() => client.listContacts({}), () => client.listOrders({ page: 0, pageSize: 5 })]) {
        const err = await failure(call());
        expect(err.code).toBe('BAD_RESPONSE');
        expect(err.message).toContain(`HTTP ${status}`);
        expect(err.message).toContain(target);
        expect(err.message).toMatch(/base URL/);
      }
      expect(elsewhere.seen).toHaveLength(0);
      // Not retried either: one request per call.
      expect(service.seen).toHaveLength(2);
    });
  }

  it('a relative Location is named as the absolute address it points to; a missing one is said to be missing', async () => {
    let location: string | null = '/api/v2/contacts';
    const service = await server((_req, res) => {
      res.writeHead(302, location === null ? {} : { location });
      res.end();
    });
    const client = createApiClient({ baseUrl: service.baseUrl, getTokens: tokens });
    expect((await failure(client.listContacts({}))).message).toContain(`${service.origin}/api/v2/contacts`);
    location = null;
    expect((await failure(client.listContacts({}))).message).toMatch(/HTTP 302 without saying where/);
  });
});

/**
 * A service that starts a valid-looking page and never ends it: 64 KiB chunks, written only as fast
 * as the client reads (back-pressure), until the connection closes or `limit` bytes went out.
 * `sent()` is what the client could have read at most.
 */
async function endlessServer(limit: number) {
  let sent = 0;
  let closed!: () => void;
  const done = new Promise<void>((r) => (closed = r));
  const chunk = Buffer.from('{"id":"1","firstName":"Endless"},'.repeat(2000));
  const s = await server((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"message":"success","data":{"count":1,"rows":[');
    const pump = () => {
      while (sent < limit && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('{}]}}');
    };
    res.on('close', closed);
    pump();
  });
  return { ...s, sent: () => sent, done };
}

describe('a response larger than its page can be is cut off', () => {
  const MiB = 1024 * 1024;

  it('the connection probe (one row): stops reading at the small fixed cap', async () => {
    const limit = 512 * MiB;
    const s = await endlessServer(limit);
    const client = createApiClient({ baseUrl: s.baseUrl, getTokens: tokens, retry: { limit: 3, baseDelayMs: 1 }, timeoutMs: 60_000 });
    const err = await failure(client.listContacts({ page: 0, pageSize: 1 }));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.message).toMatch(/larger than 1 MiB for a page of 1 row/);
    expect(err.message).toMatch(/page size/);
    await s.done;
    // What the server got out before the client hung up: the cap plus what the loopback socket
    // buffers hold, nowhere near the endless body.
    expect(s.sent()).toBeLessThan(1 * MiB + 32 * MiB);
    expect(s.seen).toHaveLength(1);
  });

  it('a page of 100 rows: cut off at the cap derived from the page size', async () => {
    const s = await endlessServer(512 * MiB);
    const client = createApiClient({ baseUrl: s.baseUrl, getTokens: tokens, retry: { limit: 3, baseDelayMs: 1 }, timeoutMs: 60_000 });
    const heapBefore = process.memoryUsage().heapUsed;
    const err = await failure(client.listOrders({ page: 0, pageSize: 100 }));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.message).toMatch(/larger than 10\.3 MiB for a page of 100 rows/);
    await s.done;
    expect(s.sent()).toBeLessThan(10.25 * MiB + 32 * MiB);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * MiB);
  });

  it('a Content-Length over the cap is refused before the body is read', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * MiB) });
      res.write('{"message":"success","data":{"count":1,"rows":[');
      // ... and nothing more: a client that waits for the body waits for its timeout.
    });
    const client = createApiClient({ baseUrl: s.baseUrl, getTokens: tokens, retry: { limit: 0 }, timeoutMs: 10_000 });
    const started = performance.now();
    const err = await failure(client.listContacts({ pageSize: 10 }));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.message).toMatch(/larger than 4\.6 MiB for a page of 10 rows/);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
