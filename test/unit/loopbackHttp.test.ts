// Plain http is allowed only for exactly this computer: `localhost`, 127.0.0.0/8 and [::1]. Names
// that merely look local (`localhost.` with its trailing dot is an absolute DNS name, resolved by
// DNS rather than the hosts file) must use https, in the profile rules and in the API client.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../electron/main/api/client.ts';
import { isLoopbackHost } from '../../shared/loopback.ts';
import { normalizeBaseUrl } from '../../electron/main/profiles/baseUrl.ts';

const LOOPBACK_HTTP = [
  ['http://localhost:3000/api/v1', 'http://localhost:3000/api/v1'],
  ['http://LocalHost/api/v1', 'http://localhost/api/v1'],
  ['http://127.0.0.1:4123/api/v1', 'http://127.0.0.1:4123/api/v1'],
  ['http://127.255.255.254/api/v1', 'http://127.255.255.254/api/v1'],
  // IPv4 literals in other spellings are canonicalised by the URL parser before the check.
  ['http://127.1/api/v1', 'http://127.0.0.1/api/v1'],
  ['http://0x7f000001/api/v1', 'http://127.0.0.1/api/v1'],
  ['http://127.0.0.1./api/v1', 'http://127.0.0.1/api/v1'],
  ['http://[::1]:8080/api/v1', 'http://[::1]:8080/api/v1'],
  ['http://[0:0:0:0:0:0:0:1]/api/v1', 'http://[::1]/api/v1'],
] as const;

const NOT_LOOPBACK_HTTP = [
  'http://localhost./api/v1',
  'http://LOCALHOST.:3000/api/v1',
  'http://localhost.localdomain/api/v1',
  'http://localhost.example.com/api/v1',
  'http://foo.localhost/api/v1',
  'http://[::ffff:127.0.0.1]/api/v1',
  'http://[::]/api/v1',
  'http://0.0.0.0/api/v1',
  'http://128.0.0.1/api/v1',
];

describe('only exactly localhost, 127.0.0.0/8 and [::1] may use http', () => {
  it('the profile rules accept the loopback spellings and refuse look-alikes', () => {
    for (const [raw, normalised] of LOOPBACK_HTTP) expect(normalizeBaseUrl(raw), raw).toBe(normalised);
    for (const raw of NOT_LOOPBACK_HTTP) {
      expect(() => normalizeBaseUrl(raw), raw).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/must use https/) }));
      // Over https the same address is fine: the rule is about sending tokens unencrypted.
      expect(normalizeBaseUrl(raw.replace(/^http:/, 'https:')), raw).toMatch(/^https:/);
    }
  });

  it('isLoopbackHost takes URL host names exactly', () => {
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['localhost.', 'LOCALHOST.', '127.0.0.1.', '::1', '[::1].', '127.0.0.256', '127.0.0', 'localhost.localdomain', '']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('the API client refuses http to anything else before sending a request', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const getTokens = async () => ({ accessToken: 'ACCESS-1', refreshToken: 'REFRESH-1' });
      for (const host of ['localhost.', 'LOCALHOST.', 'localhost.localdomain', 'example.com']) {
        expect(() => createApiClient({ baseUrl: `http://${host}:${port}/api/v1`, getTokens }), host).toThrow(
          expect.objectContaining({ code: 'VALIDATION', message: expect.stringMatching(/https/) }),
        );
      }
      const client = createApiClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, getTokens, retry: { limit: 0 } });
      await expect(client.listOrders({ page: 0, pageSize: 1 })).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
