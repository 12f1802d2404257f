/**
 * The profile form's connection test, through the handler, against real loopback peers: the
 * sample API with good and bad tokens, a closed port, a server that is not this API, a host name
 * that does not exist. Each failure is told in plain words, with the technical detail beside it.
 */
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, ConnectionTest } from '../../shared/contract.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { plainWords } from '../../electron/main/core/connectionTest.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-conntest-'));
let core: Core;
let handlers: ReturnType<typeof createHandlers>;
let notThisApi: http.Server;

async function test(input: CallInput<'testConnection'>): Promise<ConnectionTest> {
  const result = await dispatchCall(handlers, 'testConnection', input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value as ConnectionTest;
}

beforeAll(async () => {
  core = createCore({
    dataDir: join(root, 'data'), version: 'test', logFile: null,
    platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
    emit: () => {}, sample: { contacts: 50, orders: 20 }, sampleApiThread: 'main', keychain: 'session-only', autoSyncAfterMinutes: 0,
  });
  handlers = createHandlers(core);
  notThisApi = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>Welcome to nginx!</body></html>');
  });
  await new Promise<void>((ok) => notThisApi.listen(0, '127.0.0.1', ok));
});

afterAll(async () => {
  await core.close();
  await new Promise((ok) => notThisApi.close(ok));
  rmSync(root, { recursive: true, force: true });
});

describe('testing a profile before saving it', () => {
  it('the service with good tokens: both resources answer with their counts', async () => {
    const baseUrl = await core.sampleApi.ensure();
    const result = await test({ baseUrl, accountId: null, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } });
    expect(result).toMatchObject({ ok: true, contacts: { ok: true, count: 50 }, orders: { ok: true, count: 20 } });
  });

  it('a rejected token, and no token at all', async () => {
    const baseUrl = await core.sampleApi.ensure();
    const rejected = await test({ baseUrl, accountId: null, tokens: { accessToken: 'not-the-token', refreshToken: 'nor-this' } });
    expect(rejected.ok).toBe(false);
    expect(rejected.contacts).toMatchObject({ ok: false, code: 'AUTH_REJECTED', message: 'The service rejected the token. Paste a new access token and refresh token.' });
    const none = await test({ baseUrl, accountId: null, tokens: null });
    expect(none.contacts.message).toBe('The service answers at this address. Enter the access token and refresh token to test them too.');
  });

  it('a closed port is "connection refused"', async () => {
    const server = net.createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((ok) => server.close(ok));
    const result = await test({ baseUrl: `http://127.0.0.1:${port}/api/v1`, accountId: null, tokens: { accessToken: 'a-token', refreshToken: 'r' } });
    expect(result.contacts.message).toMatch(/^Nothing answers at that address \(connection refused\)/);
    expect(result.contacts.detail).toMatch(/ECONNREFUSED/);
  });

  it('a web server that is not this API', async () => {
    const { port } = notThisApi.address() as net.AddressInfo;
    const result = await test({ baseUrl: `http://127.0.0.1:${port}/api/v1`, accountId: null, tokens: { accessToken: 'a-token', refreshToken: 'r' } });
    expect(result.orders).toMatchObject({ ok: false, code: 'BAD_RESPONSE' });
    expect(result.orders.message).toMatch(/^Something answered, but not this API/);
  });

  it('a host name that does not resolve is "address not found" (the words of the DNS failure; no lookup is made here)', () => {
    expect(plainWords('NETWORK_UNREACHABLE', 'could not reach https://example.invalid/api/v1/contacts (ENOTFOUND)')).toMatch(/^The address was not found/);
    expect(plainWords('TIMEOUT', 'timed out')).toMatch(/did not answer in time/);
  });
});
