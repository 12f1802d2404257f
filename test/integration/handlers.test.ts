/**
 * The handler table over a real core: a temp data directory, the embedded sample API over loopback
 * HTTP, real SQLite caches, the sync process. Exercises the first end-to-end slice through the same
 * `dispatchCall` the Electron transport and the Chromium harness use.
 */
import { parse } from 'csv-parse/sync';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallOutput, EventName, EventPayload } from '../../shared/contract.ts';
import { createCore, type Core, type PlatformServices } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { createSampleDataset } from '../../electron/main/sampleApi/dataset.ts';
import { cacheFilePath, syncLockPath } from '../../electron/main/base/paths.ts';

interface Recorded {
  /** Every event, with whether the core said a sync was running when it was emitted. */
  events: { event: EventName; payload: unknown; running: boolean | undefined }[];
  saved: string[];
}

/** The sync's events in the order emitted: `progress:<resource>`, `finished:<resource>`, `changed:<resources>`. */
function syncEventSequence(recorded: Recorded): string[] {
  return recorded.events.flatMap((e) => {
    if (e.event === 'syncProgress') return [`progress:${(e.payload as EventPayload<'syncProgress'>).resource}`];
    if (e.event === 'syncFinished') return [`finished:${(e.payload as EventPayload<'syncFinished'>).resource}`];
    if (e.event === 'cacheChanged') return [`changed:${(e.payload as EventPayload<'cacheChanged'>).resources.join('+')}`];
    return [];
  });
}

function setup(dataDir: string, keychain: 'keychain' | 'session-only' = 'session-only') {
  const recorded: Recorded = { events: [], saved: [] };
  const platform: PlatformServices = {
    async showSaveDialog(defaultPath) {
      const file = join(dataDir, '..', `${Date.now()}-${defaultPath}`);
      recorded.saved.push(file);
      return file;
    },
    showItemInFolder: () => {},
    openExternal: async () => {},
    setProgress: () => {},
  };
  /** The core, once created (its events are recorded with its running flag). */
  const ref: { core?: ReturnType<typeof createCore> } = {};
  const core = createCore({
    dataDir,
    version: 'test',
    logFile: null,
    platform,
    emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void recorded.events.push({ event, payload, running: ref.core?.syncs.running }),
    sample: { contacts: 1500, orders: 400, seed: 7 },
    keychain,
    autoSyncAfterMinutes: 0,
  });
  ref.core = core;
  const handlers = createHandlers(core);
  async function call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
    const result = await dispatchCall(handlers, name, input);
    if (!result.ok) throw new Error(`${name} failed: ${result.error.code} ${result.error.message}`);
    return result.value as CallOutput<N>;
  }
  async function waitForSync(runId: string, resources: number): Promise<EventPayload<'syncFinished'>[]> {
    for (let i = 0; i < 600; i++) {
      const done = recorded.events.filter((e) => e.event === 'syncFinished' && (e.payload as { runId: string }).runId === runId);
      if (done.length >= resources && !core.syncs.running) return done.map((e) => e.payload as EventPayload<'syncFinished'>);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    throw new Error('sync did not finish within 60 s');
  }
  return { core, handlers, call, recorded, waitForSync };
}

describe('handlers over a real core (sample data slice)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-handlers-'));
  const dataDir = join(root, 'data');
  let env: ReturnType<typeof setup>;
  let core: Core;

  beforeAll(() => {
    env = setup(dataDir);
    core = env.core;
  });
  afterAll(async () => {
    await core.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('starts with no profile and says so', async () => {
    expect(await env.call('listProfiles', {})).toEqual({ profiles: [], activeProfileId: null, loadProblem: null });
    const result = await dispatchCall(env.handlers, 'queryContacts', { query: {}, window: { offset: 0, limit: 10 } });
    expect(result).toMatchObject({ ok: false, error: { code: 'NO_PROFILE' } });
  });

  it('explores sample data: creates the profile, syncs, and shows exactly what the sample API served', async () => {
    const profile = await env.call('createSampleProfile', {});
    expect(profile.sampleData).toBe(true);
    const { runId } = await env.call('startSync', { resources: ['contacts', 'orders'] });
    const runs = await env.waitForSync(runId, 2);
    expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    expect(env.recorded.events.some((e) => e.event === 'syncProgress')).toBe(true);
    // Each resource is announced once, as soon as it is published: the contacts (and the page's
    // cue to show them) come before the orders are read, not after the whole sync.
    const sequence = syncEventSequence(env.recorded);
    const ordersRead = sequence.indexOf('progress:orders');
    expect(ordersRead).toBeGreaterThan(0);
    expect(sequence.slice(0, ordersRead)).toEqual(expect.arrayContaining(['finished:contacts', 'changed:contacts']));
    // The kept filters are read after both resources: the contacts' counts changed once more then.
    expect(sequence.filter((s) => s.startsWith('finished:') || s.startsWith('changed:'))).toEqual(['finished:contacts', 'changed:contacts', 'finished:orders', 'changed:orders', 'changed:contacts']);
    // The orders' run ends the sync: when it is announced, the sync is no longer running (a page
    // that asks for the status in answer must not be told "running" for ever).
    const announcedWhileRunning = env.recorded.events.filter((e) => e.event === 'syncFinished').map((e) => e.running);
    expect(announcedWhileRunning).toEqual([true, false]);

    // The sample API runs in its worker thread; the same seed and size give the same data here.
    expect(core.sampleApi.server).toBeNull();
    const dataset = createSampleDataset({ contacts: 1500, orders: 400, seed: 7 });
    const page = await env.call('queryContacts', { query: { sort: { column: 'name', direction: 'asc' } }, window: { offset: 0, limit: 1000 } });
    expect(page.total).toEqual({ count: dataset.contactCount, exact: true });
    const all: string[] = [];
    for (let offset = 0; offset < dataset.contactCount; offset += 1000) {
      const window = await env.call('queryContacts', { query: {}, window: { offset, limit: 1000 } });
      all.push(...window.rows.map((r) => r.id));
    }
    const served = [...dataset.contactIds()].sort();
    expect(all.sort()).toEqual(served);

    const status = await env.call('getSyncStatus', {});
    expect(status.resources.contacts.rows).toBe(dataset.contactCount);
    expect(status.resources.orders.rows).toBe(dataset.orderCount);
    expect(status.history.filter((r) => r.runId === runId)).toHaveLength(2);
  });

  it('searches by a name prefix and opens the detail with the contact’s orders', async () => {
    const first = (await env.call('queryContacts', { query: {}, window: { offset: 0, limit: 1 } })).rows[0]!;
    const prefix = `${first.firstName.slice(0, 3)} ${first.lastName.slice(0, 2)}`;
    const found = await env.call('queryContacts', { query: { search: prefix }, window: { offset: 0, limit: 1000 } });
    expect(found.rows.map((r) => r.id)).toContain(first.id);
    const fold = (t: string) => t.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    const words = fold(prefix).split(' ');
    for (const row of found.rows) {
      const text = fold(JSON.stringify((await env.call('getContact', { id: row.id })).contact));
      expect(words.every((w) => text.includes(w)), `${row.id} does not match ${prefix}`).toBe(true);
    }
    const detail = await env.call('getContact', { id: first.id });
    expect(detail.contact.id).toBe(first.id);
    const missing = await dispatchCall(env.handlers, 'getContact', { id: '999999999999' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('exports the current view as CSV that parses back to the same rows', async () => {
    const query = { search: '', sort: { column: 'name' as const, direction: 'asc' as const } };
    const view = await env.call('queryContacts', { query, window: { offset: 0, limit: 1000 } });
    const result = await env.call('exportFile', { kind: 'contacts', query, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: false } });
    expect(result.path).not.toBeNull();
    const rows = parse(readFileSync(result.path!, 'utf8'), { columns: true, relax_column_count: false }) as Record<string, string>[];
    expect(rows).toHaveLength(view.total.count);
    expect(result.rows).toBe(view.total.count);
  });

  it('names the status codes in the orders CSV as the active profile does, then as the service does', async () => {
    const profile = core.activeProfile();
    const codes = (await env.call('orderFacets', { query: {} })).statuses.map((s) => s.value);
    expect(codes.length).toBeGreaterThan(1);
    const statusNames = { [String(codes[0])]: { name: 'Printed', colour: 'blue' as const } };
    const saved = await env.call('saveProfile', { id: profile.id, name: profile.name, environment: profile.environment, baseUrl: profile.baseUrl, accountId: profile.accountId, pageSize: profile.pageSize, statusNames });
    expect(saved.statusNames).toEqual(statusNames);
    // The page sends no names (or others): the handler uses the profile's.
    const result = await env.call('exportFile', { kind: 'orders', query: null, columns: ['id', 'status', 'statusName'], options: { delimiter: 'comma', bom: false, neutralizeFormulas: false }, statusNames: { [String(codes[0])]: { name: 'Not these', colour: 'red' } } });
    const rows = parse(readFileSync(result.path!, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(400);
    // The codes the profile leaves unnamed read as the service's kept order statuses name them.
    const learned = (await env.call('learnedStatusNames', {})).names;
    expect(Object.keys(learned).length).toBeGreaterThan(1);
    for (const r of rows) expect(r['Status name']).toBe(r.Status === String(codes[0]) ? 'Printed' : (learned[r.Status!] ?? `Status ${r.Status}`));
    expect(new Set(rows.map((r) => r['Status name']))).toContain(learned[String(codes[1])]);
    expect((await env.call('exportColumns', { kind: 'orders' })).find((c) => c.key === 'raw')).toEqual({ key: 'raw', header: 'Raw JSON', inDefault: false });
  });

  it('lists the templates and campaigns of the cached orders, opens one, and exports both lists', async () => {
    const templates = await env.call('queryTemplates', { query: {}, window: { offset: 0, limit: 100 } });
    expect(templates.total.exact).toBe(true);
    expect(templates.rows.reduce((n, t) => n + t.orders, 0)).toBe(400);
    const first = templates.rows[0]!;
    expect(await env.call('getTemplate', { id: first.id })).toEqual(first);
    expect(await dispatchCall(env.handlers, 'getTemplate', { id: '404' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect((await env.call('countOrders', { query: { templateId: first.id } })).count).toBe(first.orders);
    const campaigns = await env.call('queryCampaigns', { query: { sort: { column: 'orders', direction: 'desc' } }, window: { offset: 0, limit: 1000 } });
    expect(campaigns.rows.reduce((n, c) => n + c.orders, 0)).toBe(400);
    expect(await env.call('getCampaign', { id: campaigns.rows[0]!.id })).toEqual(campaigns.rows[0]);
    for (const kind of ['templates', 'campaigns'] as const) {
      const result = await env.call('exportFile', { kind, query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } });
      expect(result.path).toMatch(new RegExp(`-${kind}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
      expect(parse(readFileSync(result.path!, 'utf8'), { columns: true })).toHaveLength(kind === 'templates' ? templates.total.count : campaigns.total.count);
    }
    // The sync status counts the records kept as invalid and each run's changes (none on a first sync).
    const status = await env.call('getSyncStatus', {});
    expect(status.resources.contacts.invalidRecords).toBe(0);
    expect(status.history.every((r) => r.changes === null || r.changes === undefined)).toBe(true);
  });

  it('refuses to open non-http links and to reveal files it did not write', async () => {
    expect(await dispatchCall(env.handlers, 'openExternal', { url: 'file:///etc/passwd' })).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(await dispatchCall(env.handlers, 'showInFolder', { path: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('a resource that fails without ending the sync', () => {
  it('is announced as soon as it ends, while the next resource is read, and is not published', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ld-failed-early-'));
    const env = setup(join(root, 'data'));
    const { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } = await import('../../electron/main/sampleApi/server.ts');
    // The contacts gain a record after every page: every full read disagrees with the last, so the
    // contacts run fails (a drift error, not an auth error) and the orders are read after it.
    const server = await startSampleApi({ contacts: 300, orders: 80, faults: { drift: { inserts: 1 }, endpoints: ['contacts'] } });
    try {
      const profile = await env.call('saveProfile', { name: 'Drifting contacts', environment: 'custom', baseUrl: server.baseUrl, accountId: null, pageSize: 100 });
      await env.call('useProfile', { profileId: profile.id });
      await env.call('setCredentials', { profileId: profile.id, accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN, sessionOnly: true });
      const { runId } = await env.call('startSync', { resources: ['contacts', 'orders'] });
      const runs = await env.waitForSync(runId, 2);
      expect(runs.map((r) => [r.resource, r.outcome])).toEqual([
        ['contacts', 'failed'],
        ['orders', 'succeeded'],
      ]);
      expect(runs[0]!.error?.code).not.toBe('AUTH_REJECTED');
      const sequence = syncEventSequence(env.recorded);
      // The failure reaches the page before the orders' first progress, not after the whole sync;
      // nothing was published for the contacts, so there is no cue to reload them.
      expect(sequence.indexOf('finished:contacts')).toBeGreaterThanOrEqual(0);
      expect(sequence.indexOf('finished:contacts')).toBeLessThan(sequence.indexOf('progress:orders'));
      expect(sequence.filter((s) => s.startsWith('finished:') || s.startsWith('changed:'))).toEqual(['finished:contacts', 'finished:orders', 'changed:orders']);
      expect(env.recorded.events.filter((e) => e.event === 'syncFinished').map((e) => e.running)).toEqual([true, false]);
      const status = await env.call('getSyncStatus', {});
      expect(status.resources.contacts.rows).toBe(0);
      expect(status.resources.orders.rows).toBe(80);
      // Every request was answered: the contacts' failure is about their data, not the service.
      expect(status.resources.contacts.lastError?.code).toBe('DRIFT');
      expect(status.connectivity).toMatchObject({ state: 'online', message: null });
    } finally {
      await server.close();
      await env.core.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a profile another process is syncing', () => {
  it('refuses a sync, a cache clear and a removal with BUSY, naming that process, and syncs once it is gone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ld-locked-'));
    const env = setup(join(root, 'data'));
    // Another Letterdesk (the command line) holding this profile's sync lock.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const profile = await env.call('createSampleProfile', {});
      const lock = syncLockPath(cacheFilePath(join(root, 'data'), profile.id));
      mkdirSync(dirname(lock), { recursive: true });
      writeFileSync(lock, JSON.stringify({ pid: other.pid, host: hostname(), startedAt: new Date().toISOString() }));
      const refused = await dispatchCall(env.handlers, 'startSync', { resources: ['contacts', 'orders'] });
      expect(refused).toMatchObject({ ok: false, error: { code: 'BUSY', message: expect.stringMatching(new RegExp(`^Another Letterdesk \\(process ${other.pid}, the app or the command line\\)`)) } });
      expect(await dispatchCall(env.handlers, 'clearCacheAndResync', {})).toMatchObject({ ok: false, error: { code: 'BUSY' } });
      // Nor is the profile removed (with its cache or without) under that sync.
      expect(await dispatchCall(env.handlers, 'removeProfile', { profileId: profile.id, purgeCache: true })).toMatchObject({ ok: false, error: { code: 'BUSY' } });
      expect((await env.call('listProfiles', {})).profiles.map((p) => p.id)).toEqual([profile.id]);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: other.pid });
      expect(env.core.syncs.running).toBe(false);

      const exited = new Promise((r) => other.once('exit', r));
      other.kill();
      await exited;
      const { runId } = await env.call('startSync', { resources: ['contacts', 'orders'] });
      expect((await env.waitForSync(runId, 2)).map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
      expect(() => readFileSync(lock)).toThrow(/ENOENT/);
    } finally {
      other.kill();
      await env.core.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('saving a profile with its tokens', () => {
  it('is one step: tokens that cannot be stored leave no profile behind, and the next attempt succeeds', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ld-save-with-tokens-'));
    // A keychain whose D-Bus session bus does not exist (a desktop session without a Secret Service).
    const bus = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(root, 'no-such-bus')}`;
    const env = setup(join(root, 'data'), 'keychain');
    const fields = { name: 'Acme', environment: 'production', baseUrl: 'https://api.example.com/api/v1', accountId: null, pageSize: 500 } as const;
    try {
      // A token with a line break inside: refused before anything is written.
      const malformed = await dispatchCall(env.handlers, 'saveProfile', { ...fields, credentials: { accessToken: 'abc\ndef', refreshToken: null, sessionOnly: false } });
      expect(malformed).toMatchObject({ ok: false, error: { code: 'VALIDATION', message: expect.stringMatching(/line breaks/) } });
      // Well-formed, but the keychain cannot store them: the new profile is not kept either.
      const noKeychain = await dispatchCall(env.handlers, 'saveProfile', { ...fields, credentials: { accessToken: 'at-1', refreshToken: 'rt-1', sessionOnly: false } });
      expect(noKeychain).toMatchObject({ ok: false, error: { code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringMatching(/^The tokens were not saved\./) } });
      expect(await env.call('listProfiles', {})).toMatchObject({ profiles: [], activeProfileId: null });
      expect(env.recorded.events.filter((e) => e.event === 'profilesChanged')).toEqual([]);

      // The same form submitted again, for this session only: created, made active, tokens stored.
      const saved = await env.call('saveProfile', { ...fields, credentials: { accessToken: 'at-1', refreshToken: 'rt-1', sessionOnly: true } });
      expect(await env.call('listProfiles', {})).toMatchObject({ profiles: [{ id: saved.id, name: 'Acme' }], activeProfileId: saved.id });
      expect(await env.call('getCredentialStatus', { profileId: saved.id })).toMatchObject({ stored: true, storage: 'session' });

      // An edit whose tokens the keychain refuses is not kept at all: the old tokens are never sent
      // to the base URL that came with the new ones.
      const edit = await dispatchCall(env.handlers, 'saveProfile', {
        ...fields, id: saved.id, name: 'Acme EU', baseUrl: 'https://eu.example.com/api/v1', credentials: { accessToken: 'at-2', refreshToken: 'rt-2', sessionOnly: false },
      });
      expect(edit).toMatchObject({ ok: false, error: { code: 'KEYCHAIN_UNAVAILABLE' } });
      expect((await env.call('listProfiles', {})).profiles).toMatchObject([{ id: saved.id, name: 'Acme', baseUrl: 'https://api.example.com/api/v1' }]);
      expect(await env.call('getCredentialStatus', { profileId: saved.id })).toMatchObject({ stored: true, storage: 'session' });

      // Removing it while the keychain cannot be reached: removed, and the page is told that tokens
      // stored there may remain.
      const removed = await env.call('removeProfile', { profileId: saved.id, purgeCache: true });
      expect(removed.profiles).toEqual([]);
      expect(removed.credentialsProblem).toMatch(/D-Bus/);
    } finally {
      if (bus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = bus;
      await env.core.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('tokens never leave the keychain', () => {
  it('after a sync with real tokens, no file under the data directory and no renderer-visible value holds them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ld-leak-'));
    const dataDir = join(root, 'data');
    const env = setup(dataDir, process.env.CI || process.env.DBUS_SESSION_BUS_ADDRESS ? 'keychain' : 'session-only');
    const accessToken = `at-${crypto.randomUUID()}`;
    const refreshToken = `rt-${crypto.randomUUID()}`;
    try {
      const { startSampleApi } = await import('../../electron/main/sampleApi/server.ts');
      const server = await startSampleApi({ contacts: 300, orders: 80, accessToken, refreshToken });
      try {
        const profile = await env.call('saveProfile', { name: 'Leak check', environment: 'custom', baseUrl: server.baseUrl, accountId: null, pageSize: 100 });
        await env.call('useProfile', { profileId: profile.id });
        const status = await env.call('setCredentials', { profileId: profile.id, accessToken, refreshToken, sessionOnly: false }).catch(() =>
          env.call('setCredentials', { profileId: profile.id, accessToken, refreshToken, sessionOnly: true }),
        );
        expect(JSON.stringify(status)).not.toContain(accessToken);
        // In CI a Secret Service runs (dbus-run-session + gnome-keyring): the tokens must be in it.
        if (process.env.CI) expect(status.storage).toBe('keychain');
        const { runId } = await env.call('startSync', { resources: ['contacts', 'orders'] });
        const runs = await env.waitForSync(runId, 2);
        expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
        // Everything the page could have seen: every event and every call result.
        const visible = JSON.stringify([env.recorded.events, await env.call('getSyncStatus', {}), await env.call('listProfiles', {}), status]);
        expect(visible).not.toContain(accessToken);
        expect(visible).not.toContain(refreshToken);
        await env.call('clearCredentials', { profileId: profile.id });
        await env.core.close();
        const files: string[] = [];
        const walk = (dir: string): void => {
          for (const name of readdirSync(dir)) {
            const path = join(dir, name);
            if (statSync(path).isDirectory()) walk(path);
            else files.push(path);
          }
        };
        walk(dataDir);
        expect(files.some((f) => f.endsWith('.sqlite'))).toBe(true);
        for (const file of files) {
          const bytes = readFileSync(file);
          expect(bytes.includes(accessToken), file).toBe(false);
          expect(bytes.includes(refreshToken), file).toBe(false);
        }
      } finally {
        await server.close();
      }
    } finally {
      await env.core.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
