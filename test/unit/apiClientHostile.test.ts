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
