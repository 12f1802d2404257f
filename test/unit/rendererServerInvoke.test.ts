/**
 * The harness's HTTP transport (test/e2e/rendererServer.ts `INVOKE_PATH`), which the benchmark's
 * page section calls the handlers through: a call of the page's own origin gets the handlers'
 * Result as JSON; anything else is refused the way the preload refuses another sender.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOKE_PATH, serveRenderer } from '../e2e/rendererServer.ts';

let server: Awaited<ReturnType<typeof serveRenderer>>;
const received: unknown[] = [];

beforeAll(async () => {
  server = await serveRenderer({
    invoke: async (name, input) => {
      received.push({ name, input });
      return { ok: true, value: { echoed: name, input } };
    },
  });
});

afterAll(async () => {
  await server.close();
});

const post = (body: string, site: string) =>
  fetch(`${server.origin}${INVOKE_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'sec-fetch-site': site }, body });

describe('the harness HTTP transport', () => {
  it("answers a call of the page's own origin with the handler's result", async () => {
    const response = await post(JSON.stringify({ name: 'getStatus', input: { profileId: 'p' } }), 'same-origin');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, value: { echoed: 'getStatus', input: { profileId: 'p' } } });
  });

  it('refuses a call from another site without calling the handlers', async () => {
    const before = received.length;
    const response = await post(JSON.stringify({ name: 'getStatus' }), 'cross-site');
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_SENDER');
    expect(received.length).toBe(before);
  });

  it('says a body that is not JSON is not a call', async () => {
    const response = await post('{name:', 'same-origin');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('VALIDATION');
  });
});
