/**
 * Tokens stay with the service they were saved for. Two loopback "services" record every header
 * they receive: a profile saved with tokens for the first, then edited to point at the second,
 * never sends them there — the sync says to enter the tokens for the new address — and the same
 * holds for a change of account scope. In the real keychain, tokens bound to one origin are refused
 * for another. Tokens with no recorded address (earlier versions, or put into the keychain by hand)
 * are never sent by "Test connection" to an address typed in the form, and are bound to the
 * profile's saved address the first time they are used with it.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallOutput, SyncRun } from '../../shared/contract.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { Keychain } from '../../electron/main/credentials/keychain.ts';
import { CredentialStore, type TokenBinding } from '../../electron/main/credentials/store.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';

interface Recorder {
  baseUrl: string;
  /** The authorization and refreshtoken headers of every request, in order. */
  seen: { authorization: string | undefined; refreshtoken: string | undefined }[];
  close(): Promise<void>;
}

/** A service that answers every list with no records and records the headers it got. */
async function recordingService(): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ authorization: req.headers.authorization, refreshtoken: req.headers.refreshtoken as string | undefined });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'Success', data: { count: 0, rows: [] } }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    seen,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

const root = mkdtempSync(join(tmpdir(), 'ld-binding-'));
let first: Recorder;
let second: Recorder;
let core: Core;
let handlers: ReturnType<typeof createHandlers>;
const finished: SyncRun[] = [];
const platform = { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} };

async function call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
  const result = await dispatchCall(handlers, name, input);
  if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code });
  return result.value as CallOutput<N>;
}

/** Starts a sync and waits for its runs (or the error that kept it from starting). */
async function sync(): Promise<SyncRun[] | { code: string; message: string }> {
  finished.length = 0;
  const result = await dispatchCall(handlers, 'startSync', { resources: ['contacts', 'orders'] });
  if (!result.ok) return result.error;
  for (let i = 0; i < 600 && (core.syncs.running || finished.length === 0); i++) await new Promise((ok) => setTimeout(ok, 50));
  return [...finished];
}

beforeAll(async () => {
  [first, second] = await Promise.all([recordingService(), recordingService()]);
  core = createCore({
    dataDir: join(root, 'data'),
    version: 'test',
    logFile: null,
    platform,
    emit: (event, payload) => {
      if (event === 'syncFinished') finished.push(payload as SyncRun);
    },
    keychain: 'session-only',
    autoSyncAfterMinutes: 0,
  });
  handlers = createHandlers(core);
});

afterAll(async () => {
  await core.close();
  await Promise.all([first.close(), second.close()]);
  rmSync(root, { recursive: true, force: true });
});

describe('tokens bound to the service they were saved for', () => {
  const accessToken = `access-${randomBytes(12).toString('hex')}`;
  const refreshToken = `refresh-${randomBytes(12).toString('hex')}`;
  let profileId = '';

  it('a profile saved with tokens sends them to its own service', async () => {
    const profile = await call('saveProfile', { name: 'Office', environment: 'custom', baseUrl: first.baseUrl, accountId: null, pageSize: 100, credentials: { accessToken, refreshToken, sessionOnly: true } });
    profileId = profile.id;
    const status = await call('getCredentialStatus', { profileId });
    expect(status.boundTo).toEqual({ origin: new URL(first.baseUrl).origin, accountId: null });
    const runs = await sync();
    expect(Array.isArray(runs) && runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    expect(first.seen.some((h) => h.authorization === `Bearer ${accessToken}` && h.refreshtoken === refreshToken)).toBe(true);
    const { resources } = await call('getSyncStatus', {});
    expect(resources.contacts.source).toEqual({ origin: new URL(first.baseUrl).origin, accountId: null });
    expect(resources.orders.source).toEqual({ origin: new URL(first.baseUrl).origin, accountId: null });
  });

  it('pointing the profile at another address sends the tokens nowhere and asks for new ones', async () => {
    await call('saveProfile', { id: profileId, name: 'Office', environment: 'custom', baseUrl: second.baseUrl, accountId: null, pageSize: 100 });
    expect((await call('getCredentialStatus', { profileId })).stored).toBe(false);
    const outcome = await sync();
    expect(outcome).toMatchObject({ code: 'AUTH_MISSING' });
    const leaked = second.seen.filter((h) => h.authorization !== undefined || h.refreshtoken !== undefined);
    expect(leaked).toEqual([]);
    // The copy is kept and still says where it came from.
    const { resources } = await call('getSyncStatus', {});
    expect(resources.contacts.source).toEqual({ origin: new URL(first.baseUrl).origin, accountId: null });
  });

  it('a sync from the new address with its own tokens replaces the copy and its recorded source', async () => {
    await call('saveProfile', { id: profileId, name: 'Office', environment: 'custom', baseUrl: second.baseUrl, accountId: null, pageSize: 100, credentials: { accessToken, refreshToken, sessionOnly: true } });
    const runs = await sync();
    expect(Array.isArray(runs) && runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    const { resources } = await call('getSyncStatus', {});
    expect(resources.contacts.source).toEqual({ origin: new URL(second.baseUrl).origin, accountId: null });
    expect(resources.orders.source).toEqual({ origin: new URL(second.baseUrl).origin, accountId: null });
  });

  it('a change of account scope asks for the tokens again too', async () => {
    await call('saveProfile', { id: profileId, name: 'Office', environment: 'custom', baseUrl: first.baseUrl, accountId: null, pageSize: 100, credentials: { accessToken, refreshToken, sessionOnly: true } });
    const before = first.seen.length;
    await call('saveProfile', { id: profileId, name: 'Office', environment: 'custom', baseUrl: first.baseUrl, accountId: 'acct-7', pageSize: 100 });
    expect(await sync()).toMatchObject({ code: 'AUTH_MISSING' });
    expect(first.seen.length).toBe(before);
  });
});

describe('the credential store refuses tokens for another service', () => {
  it.for([
    ['memory', true],
    ['keychain', false],
  ] as const)('%s: getFor checks origin and account', async ([, sessionOnly], context) => {
    const store = new CredentialStore({ service: `Letterdesk-test-binding-${process.pid}`, sessionOnly });
    const problem = sessionOnly ? null : await store.keychainProblem();
    if (problem !== null) {
      // CI always has a Secret Service; elsewhere the keychain case is reported as skipped.
      if (process.env.CI) throw new Error(`the keychain is not usable: ${problem}`);
      context.skip(`the keychain is not usable: ${problem}`);
    }
    const tokens = { accessToken: `a-${randomBytes(8).toString('hex')}`, refreshToken: null };
    const api: TokenBinding = { origin: 'https://api.example.com', accountId: null };
    const evil: TokenBinding = { origin: 'https://evil.example.net', accountId: null };
    await store.set('bound', tokens, { sessionOnly, boundTo: api });
    // Saved by an earlier version: no binding recorded.
    await store.set('unbound', tokens, { sessionOnly });
    try {
      expect(await store.getFor('bound', api, api)).toEqual(tokens);
      await expect(store.getFor('bound', evil, api)).rejects.toMatchObject({ code: 'AUTH_MISSING' });
      await expect(store.getFor('bound', { origin: 'https://api.example.com', accountId: 'other' }, api)).rejects.toMatchObject({ code: 'AUTH_MISSING' });
      await expect(store.getFor('bound', evil, api)).rejects.toThrow(/saved for https:\/\/api\.example\.com/);
      // Even when the profile itself now names the other address, bound tokens stay with theirs.
      await expect(store.getFor('bound', evil, evil)).rejects.toMatchObject({ code: 'AUTH_MISSING' });

      await expect(store.getFor('unbound', evil, api)).rejects.toThrow(/no recorded address/);
      expect((await store.status('unbound')).boundTo).toBeNull();
      expect(await store.getFor('unbound', api, api)).toEqual(tokens);
      expect((await store.status('unbound')).boundTo).toEqual(api);
      await expect(store.getFor('unbound', evil, evil)).rejects.toThrow(/saved for https:\/\/api\.example\.com/);
    } finally {
      await store.clear('bound');
      await store.clear('unbound');
    }
  });
});

/** Every header value a service received, to look for a token in. */
const headerValues = (recorder: Recorder): string[] => recorder.seen.flatMap((h) => [h.authorization ?? '', h.refreshtoken ?? '']);

describe('tokens with no recorded address', () => {
  it.for([
    ['memory', 'session-only'],
    ['keychain', 'keychain'],
  ] as const)('%s: Test connection sends them only to the saved address, and that first use binds them', async ([, keychain], context) => {
    const service = `Letterdesk-test-unbound-${process.pid}`;
    const own = keychain === 'session-only' ? core : createCore({ dataDir: join(root, `data-${keychain}`), version: 'test', logFile: null, platform, emit: () => {}, keychain, keychainService: service, autoSyncAfterMinutes: 0 });
    const ownHandlers = own === core ? handlers : createHandlers(own);
    const ownCall = async <N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> => {
      const result = await dispatchCall(ownHandlers, name, input);
      if (!result.ok) throw new Error(result.error.message);
      return result.value as CallOutput<N>;
    };
    const test = (input: CallInput<'testConnection'>) => ownCall('testConnection', input);
    try {
      const problem = keychain === 'keychain' ? await own.credentials.keychainProblem() : null;
      if (problem !== null) {
        // CI always has a Secret Service; elsewhere the keychain case is reported as skipped.
        if (process.env.CI) throw new Error(`the keychain is not usable: ${problem}`);
        context.skip(`the keychain is not usable: ${problem}`);
      }
      const { id: profileId } = await ownCall('saveProfile', { name: `Legacy ${keychain}`, environment: 'custom', baseUrl: first.baseUrl, accountId: null, pageSize: 100 });
      const accessToken = `legacy-${randomBytes(12).toString('hex')}`;
      if (keychain === 'keychain') {
        // A bare token put into the keychain by hand (as with secret-tool): nothing records its address.
        await new Keychain(service, 5000).set(profileId, accessToken);
      } else {
        // Session tokens set without a binding, as earlier versions saved them.
        await own.credentials.set(profileId, { accessToken, refreshToken: null }, { sessionOnly: true });
      }
      expect((await own.credentials.status(profileId)).boundTo).toBeNull();

      // The form now names another service: the stored token is not sent there, nor bound to it.
      const secondBefore = second.seen.length;
      await test({ profileId, baseUrl: second.baseUrl, accountId: null, tokens: null });
      expect(second.seen.length).toBeGreaterThan(secondBefore);
      expect(headerValues(second).filter((v) => v.includes(accessToken))).toEqual([]);
      expect((await own.credentials.status(profileId)).boundTo).toBeNull();

      // Its saved address gets it, and from then on the token is bound to that address.
      const outcome = await test({ profileId, baseUrl: first.baseUrl, accountId: null, tokens: null });
      expect(outcome.ok).toBe(true);
      expect(first.seen.some((h) => h.authorization === `Bearer ${accessToken}`)).toBe(true);
      expect((await own.credentials.status(profileId)).boundTo).toEqual({ origin: new URL(first.baseUrl).origin, accountId: null });
      if (keychain === 'keychain') {
        const secret = JSON.parse((await new Keychain(service, 5000).get(profileId)) ?? '{}') as { accessToken?: string; boundTo?: unknown };
        expect(secret).toMatchObject({ accessToken, boundTo: { origin: new URL(first.baseUrl).origin, accountId: null } });
      }

      await test({ profileId, baseUrl: second.baseUrl, accountId: null, tokens: null });
      expect(headerValues(second).filter((v) => v.includes(accessToken))).toEqual([]);
      await own.credentials.clear(profileId);
    } finally {
      if (own !== core) await own.close();
    }
  });
});
