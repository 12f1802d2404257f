/**
 * Requirement: "A damaged cache file … detected at open, moved aside (never deleted), the user told, and
 * a fresh sync offered. A damaged profiles file likewise."
 *
 * A real cache is built by a real sync from the sample API, then damaged in several ways (random
 * bytes over the whole file, over the header, over b-tree pages; truncated at several lengths; a
 * text file in its place; written by a newer schema). For each:
 *  - `openCache` (the app's open) refuses it with CACHE_DAMAGED — or CACHE_TOO_NEW for a newer file;
 *  - a damaged file is moved aside byte for byte (same content at `details.movedTo`), nothing is
 *    deleted, and the message says what happened and what to do; a too-new file is left untouched;
 *  - through the real core + handlers (what the page sees): the first cache call answers with
 *    CACHE_DAMAGED and its message, and a fresh sync then rebuilds a working cache.
 * A damaged profiles.json is moved aside byte for byte and the app starts with no profiles.
 *
 * Seeded damage: LETTERDESK_DAMAGE_SEED replays.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventName, EventPayload } from '../../shared/contract.ts';
import { isLetterdeskError } from '../../shared/errors.ts';
import { openCache, sessionMarkerPath } from '../../electron/main/cache/store/db.ts';
import { createCore } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { cacheFilePath, profilesFilePath } from '../../electron/main/base/paths.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { mulberry32 } from '../reliability/random.ts';

const SEED = process.env.LETTERDESK_DAMAGE_SEED ? Number(process.env.LETTERDESK_DAMAGE_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
console.log(`reliabilityDamage: seed ${SEED} (replay with LETTERDESK_DAMAGE_SEED=${SEED})`);

type Damage = { name: string; apply(file: string, rng: () => number): void; expect: 'CACHE_DAMAGED' | 'CACHE_TOO_NEW' };

const randomBytes = (n: number, rng: () => number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rng() * 256)));

/** The root page number of `table` and the page size (to overwrite that b-tree page). */
function rootPageOf(file: string, table: string): { page: number; pageSize: number } {
  const db = new Database(file, { readonly: true });
  try {
    const page = (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(table) as { rootpage: number }).rootpage;
    return { page, pageSize: db.pragma('page_size', { simple: true }) as number };
  } finally {
    db.close();
  }
}

const DAMAGES: Damage[] = [
  { name: 'random bytes over the whole file', expect: 'CACHE_DAMAGED', apply: (f, rng) => writeFileSync(f, randomBytes(statSync(f).size, rng)) },
  { name: 'random bytes over the 100-byte header', expect: 'CACHE_DAMAGED', apply: (f, rng) => {
    const b = readFileSync(f);
    randomBytes(100, rng).copy(b, 0);
    writeFileSync(f, b);
  } },
  { name: 'random bytes over the contacts table root page', expect: 'CACHE_DAMAGED', apply: (f, rng) => {
    const { page, pageSize } = rootPageOf(f, 'contacts');
    const b = readFileSync(f);
    randomBytes(pageSize, rng).copy(b, (page - 1) * pageSize);
    b[(page - 1) * pageSize] = 0xff; // never a valid b-tree page type, whatever the random bytes
    writeFileSync(f, b);
  } },
  { name: 'random bytes over the schema page (sqlite_master)', expect: 'CACHE_DAMAGED', apply: (f, rng) => {
    const b = readFileSync(f);
    randomBytes(2000, rng).copy(b, 100);
    b[100] = 0xff; // the schema page's b-tree type byte: never valid
    writeFileSync(f, b);
  } },
  { name: 'truncated to half', expect: 'CACHE_DAMAGED', apply: (f) => truncateSync(f, Math.floor(statSync(f).size / 2 / 4096) * 4096) },
  { name: 'truncated mid-page', expect: 'CACHE_DAMAGED', apply: (f, rng) => truncateSync(f, 4096 * 2 + 1 + Math.floor(rng() * 4000)) },
  { name: 'truncated inside the header', expect: 'CACHE_DAMAGED', apply: (f, rng) => truncateSync(f, 16 + Math.floor(rng() * 80)) },
  { name: 'a text file in its place', expect: 'CACHE_DAMAGED', apply: (f) => writeFileSync(f, 'This is not a database.\n'.repeat(500)) },
  { name: 'written by a newer Letterdesk (user_version 999)', expect: 'CACHE_TOO_NEW', apply: (f) => {
    const db = new Database(f);
    db.pragma('user_version = 999');
    db.close();
  } },
];

describe('damaged cache and profiles files', () => {
  const root = mkdtempSync(join(tmpdir(), 'ld-rel-damage-'));
  const pristine = join(root, 'pristine.sqlite');
  let api: SampleApi;

  beforeAll(async () => {
    api = await startSampleApi({ contacts: 400, orders: 40, seed: 11 });
    const db = openCache(pristine);
    const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), { resources: ['contacts', 'orders'], pageSize: 100 });
    expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  });
  afterAll(async () => {
    await api?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const [index, damage] of DAMAGES.entries()) {
    it(`${damage.name}: openCache ${damage.expect === 'CACHE_TOO_NEW' ? 'refuses it and leaves it untouched' : 'detects it and moves it aside, never deleting it'}`, () => {
      const rng = mulberry32(SEED + index);
      const dir = mkdtempSync(join(root, 'case-'));
      const file = join(dir, 'cache.sqlite');
      copyFileSync(pristine, file);
      damage.apply(file, rng);
      const bytes = readFileSync(file);
      const mtime = statSync(file).mtimeMs;
      let caught: unknown = null;
      try {
        openCache(file).close();
      } catch (error) {
        caught = error;
      }
      const context = `${damage.name} (seed ${SEED}, LETTERDESK_DAMAGE_SEED=${SEED})`;
      expect(isLetterdeskError(caught), `${context}: ${String(caught)}`).toBe(true);
      const error = caught as { code: string; message: string; details?: { movedTo?: string } };
      expect(error.code, `${context}: ${error.message}`).toBe(damage.expect);
      if (damage.expect === 'CACHE_TOO_NEW') {
        expect(readFileSync(file).equals(bytes), context).toBe(true);
        expect(statSync(file).mtimeMs).toBe(mtime);
        expect(error.message).toMatch(/newer Letterdesk/);
        expect(error.message).toMatch(/untouched/);
        return;
      }
      expect(existsSync(file), `${context}: the damaged file is still at the cache path`).toBe(false);
      const movedTo = error.details?.movedTo;
      expect(movedTo, `${context}: details.movedTo`).toBeTypeOf('string');
      expect(dirname(movedTo as string)).toBe(dir);
      expect(readFileSync(movedTo as string).equals(bytes), `${context}: the moved file holds exactly the damaged bytes`).toBe(true);
      expect(error.message).toContain(movedTo as string);
      expect(error.message).toMatch(/nothing was deleted/i);
      expect(error.message).toMatch(/sync/i);
      // A fresh cache can be created in its place.
      expect(() => openCache(file).close()).not.toThrow();
    });
  }

  it('session marker: a cache closed cleanly opens without the full check; after an unclean shutdown (marker of a dead process) the full quick_check runs and finds damage the cheap checks cannot see', () => {
    const dir = mkdtempSync(join(root, 'marker-'));
    const file = join(dir, 'cache.sqlite');
    copyFileSync(pristine, file);
    const marker = sessionMarkerPath(file);
    // A connection that checked the file owns the marker while it is open and removes it on close.
    const db = openCache(file);
    expect(readFileSync(marker, 'utf8')).toBe(String(process.pid));
    // A second connection of a live process neither checks in full nor takes the marker over.
    openCache(file, { readonly: true }).close();
    expect(existsSync(marker)).toBe(true);
    db.close();
    expect(existsSync(marker), 'close() removes the marker').toBe(false);

    // Damage a leaf page deep inside the contacts table: not the header, schema or any root page.
    const probe = new Database(file, { readonly: true });
    const pageSize = probe.pragma('page_size', { simple: true }) as number;
    const leaf = (probe.prepare("SELECT max(pageno) AS p FROM dbstat WHERE name = 'contacts' AND pagetype = 'leaf'").get() as { p: number }).p;
    probe.close();
    const bytes = readFileSync(file);
    randomBytes(pageSize - 8, mulberry32(SEED)).copy(bytes, (leaf - 1) * pageSize + 8);
    bytes[(leaf - 1) * pageSize] = 0xff;
    writeFileSync(file, bytes);

    // Closed cleanly: the open stays instant and does not read that page.
    openCache(file).close();
    expect(existsSync(file)).toBe(true);
    // The marker of a process that is gone: the last session ended without closing the cache.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(marker, String(dead));
    let caught: unknown = null;
    try {
      openCache(file).close();
    } catch (error) {
      caught = error;
    }
    expect(caught, 'quick_check after an unclean shutdown').toMatchObject({ code: 'CACHE_DAMAGED' });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(marker), 'the stale marker goes with the damaged file').toBe(false);
  });

  it('through the app (core + handlers): the user is told CACHE_DAMAGED on the first cache call, the file is kept aside, and a fresh sync rebuilds the cache', async () => {
    const dataDir = join(root, 'app');
    const events: { event: string; payload: unknown }[] = [];
    const options = {
      dataDir,
      version: 'test',
      logFile: null,
      platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
      emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void events.push({ event, payload }),
      sample: { contacts: 300, orders: 30, seed: 5 },
      keychain: 'session-only' as const,
      autoSyncAfterMinutes: 0,
    };
    let core = createCore(options);
    let handlers = createHandlers(core);
    const profile = await dispatchCall(handlers, 'createSampleProfile', {});
    expect(profile).toMatchObject({ ok: true });
    const profileId = (profile as { value: { id: string } }).value.id;
    await core.close();

    // Damage the profile's cache while the app is closed.
    const file = cacheFilePath(dataDir, profileId);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(64 * 1024, mulberry32(SEED)));
    const damagedBytes = readFileSync(file);

    core = createCore(options);
    handlers = createHandlers(core);
    try {
      // start() opens the cache while the window loads; the damage it finds is still what the window is told.
      core.start();
      // Until start()'s open has found the damage and moved the file aside.
      await vi.waitFor(() => expect(readdirSync(dirname(file)).some((n) => n.includes('damaged'))).toBe(true), { timeout: 10_000 });
      const first = await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: 0, limit: 10 } });
      expect(first, JSON.stringify(first)).toMatchObject({ ok: false, error: { code: 'CACHE_DAMAGED' } });
      // Every view learns the same until a sync offers the fresh cache.
      expect(await dispatchCall(handlers, 'countOrders', { query: {} })).toMatchObject({ ok: false, error: { code: 'CACHE_DAMAGED' } });
      const message = first.ok ? '' : first.error.message;
      expect(message).toMatch(/moved/);
      const aside = readdirSync(dirname(file)).filter((n) => n.includes('damaged'));
      expect(aside.length, `files next to the cache: ${readdirSync(dirname(file)).join(', ')}`).toBeGreaterThanOrEqual(1);
      expect(aside.some((n) => readFileSync(join(dirname(file), n)).equals(damagedBytes)), 'the damaged bytes are kept').toBe(true);

      // The fresh sync the UI offers.
      const started = await dispatchCall(handlers, 'clearCacheAndResync', {});
      expect(started, JSON.stringify(started)).toMatchObject({ ok: true });
      for (let i = 0; i < 300 && core.syncs.running; i++) await new Promise((ok) => setTimeout(ok, 100));
      const count = await dispatchCall(handlers, 'countContacts', { query: {} });
      expect(count, JSON.stringify(count)).toMatchObject({ ok: true, value: { count: 300 } });
      // Clearing the cache did not delete the damaged copy.
      expect(readdirSync(dirname(file)).filter((n) => n.includes('damaged')).length).toBeGreaterThanOrEqual(1);
    } finally {
      await core.close();
    }
  });

  it('a cache from a newer Letterdesk: every call and every sync attempt says CACHE_TOO_NEW (never BUSY), and the file is untouched', async () => {
    const dataDir = join(root, 'too-new');
    const options = {
      dataDir, version: 'test', logFile: null, emit: () => {}, keychain: 'session-only' as const, autoSyncAfterMinutes: 0,
      platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
      sample: { contacts: 50, orders: 5, seed: 5 },
    };
    let core = createCore(options);
    const made = await dispatchCall(createHandlers(core), 'createSampleProfile', {});
    const profileId = (made as { value: { id: string } }).value.id;
    await core.close();
    const file = cacheFilePath(dataDir, profileId);
    mkdirSync(dirname(file), { recursive: true });
    const newer = new Database(file);
    newer.pragma('user_version = 999');
    newer.close();
    const bytes = readFileSync(file);
    core = createCore(options);
    const handlers = createHandlers(core);
    try {
      for (let i = 0; i < 2; i++) {
        expect(await dispatchCall(handlers, 'startSync', { resources: ['contacts', 'orders'] })).toMatchObject({ ok: false, error: { code: 'CACHE_TOO_NEW' } });
        expect(await dispatchCall(handlers, 'queryContacts', { query: {}, window: { offset: 0, limit: 10 } })).toMatchObject({ ok: false, error: { code: 'CACHE_TOO_NEW' } });
      }
      expect(readFileSync(file).equals(bytes)).toBe(true);
    } finally {
      await core.close();
    }
  });

  it('a damaged profiles.json is moved aside byte for byte; the app starts with no profiles and can add one', async () => {
    const dataDir = join(root, 'profiles-case');
    mkdirSync(dataDir, { recursive: true });
    const garbage = Buffer.concat([Buffer.from('{"version":1,"profiles":[{"id":"x"'), randomBytes(300, mulberry32(SEED))]);
    writeFileSync(profilesFilePath(dataDir), garbage);
    const core = createCore({
      dataDir,
      version: 'test',
      logFile: null,
      platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
      emit: () => {},
      keychain: 'session-only',
      autoSyncAfterMinutes: 0,
    });
    try {
      const problem = core.profiles.loadProblem();
      expect(problem).toMatch(/damaged/);
      const aside = readdirSync(dataDir).filter((n) => n.startsWith('profiles.json.damaged'));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(dataDir, aside[0] as string)).equals(garbage)).toBe(true);
      expect(problem).toContain(aside[0] as string);
      const handlers = createHandlers(core);
      // The page learns what happened through the profile list.
      expect(await dispatchCall(handlers, 'listProfiles', {})).toEqual({ ok: true, value: { profiles: [], activeProfileId: null, loadProblem: problem } });
      const saved = await dispatchCall(handlers, 'saveProfile', { name: 'Fresh', environment: 'demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, pageSize: 100 });
      expect(saved).toMatchObject({ ok: true });
      // The damaged copy is still there after the new file was written.
      expect(readFileSync(join(dataDir, aside[0] as string)).equals(garbage)).toBe(true);
    } finally {
      await core.close();
    }
  });
});
