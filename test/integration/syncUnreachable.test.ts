/**
 * A sync that fails because the service cannot be reached stops there: the contacts fail with
 * NETWORK_UNREACHABLE (a closed loopback port refuses every connection, after the client's
 * retries) and the orders are not attempted — no "Downloading 0 rows" for a resource that would
 * only fail the same way. A server error, by contrast, still lets the next resource run.
 */
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, EventPayload, SyncRun } from '../../shared/contract.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-unreachable-'));
const events: { event: EventName; payload: unknown }[] = [];
let core: Core;
let handlers: ReturnType<typeof createHandlers>;

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((ok) => server.close(ok));
  return port;
}

async function syncAndWait(): Promise<SyncRun[]> {
  const from = events.length;
  const started = await dispatchCall(handlers, 'startSync', { resources: ['contacts', 'orders'] });
  expect(started.ok).toBe(true);
  for (let i = 0; i < 1200 && (core.syncs.running || !events.slice(from).some((e) => e.event === 'syncFinished')); i++) await new Promise((ok) => setTimeout(ok, 50));
  return events.slice(from).filter((e) => e.event === 'syncFinished').map((e) => e.payload as SyncRun);
}

beforeAll(() => {
  core = createCore({
    dataDir: join(root, 'data'),
    version: 'test',
    logFile: null,
    platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
    emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void events.push({ event, payload }),
    sampleApiThread: 'main',
    sample: { contacts: 300, orders: 90 },
    keychain: 'session-only',
    autoSyncAfterMinutes: 0,
  });
  handlers = createHandlers(core);
});

afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a service that cannot be reached', () => {
  it('fails the contacts and leaves the orders unattempted', async () => {
    const saved = await dispatchCall(handlers, 'saveProfile', {
      name: 'Away', environment: 'custom', baseUrl: `http://127.0.0.1:${await closedPort()}/api/v1`, accountId: null, pageSize: 100,
      credentials: { accessToken: 'access-token-1234', refreshToken: 'refresh-token-1234', sessionOnly: true },
    });
    expect(saved.ok).toBe(true);
    const from = events.length;
    const runs = await syncAndWait();
    expect(runs.map((r) => [r.resource, r.outcome, r.error?.code])).toEqual([['contacts', 'failed', 'NETWORK_UNREACHABLE']]);
    const ordersProgress = events.slice(from).filter((e) => e.event === 'syncProgress' && (e.payload as EventPayload<'syncProgress'>).resource === 'orders');
    expect(ordersProgress).toEqual([]);
    expect(core.currentConnectivity().state).toBe('offline');
  }, 60_000);

  it('a server error still lets the next resource run', async () => {
    const sample = await dispatchCall(handlers, 'createSampleProfile', {});
    expect(sample.ok).toBe(true);
    core.sampleApi.server?.setFaults({ serverErrorRate: 1, endpoints: ['contacts'] });
    try {
      const runs = await syncAndWait();
      expect(runs.map((r) => [r.resource, r.outcome, r.error?.code ?? null])).toEqual([
        ['contacts', 'failed', 'SERVER_ERROR'],
        ['orders', 'succeeded', null],
      ]);
    } finally {
      core.sampleApi.server?.setFaults({});
    }
  }, 60_000);
});
