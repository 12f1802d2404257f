import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../shared/contract.ts';
import { cacheFilePath, profilesFilePath } from '../../electron/main/base/paths.ts';
import { normalizeBaseUrl } from '../../electron/main/profiles/baseUrl.ts';
import { newProfileId, ProfileStore } from '../../electron/main/profiles/store.ts';
import { removeProfileAndCredentials } from '../../electron/main/core/profiles.ts';
import { CredentialStore } from '../../electron/main/credentials/store.ts';
import { acquireSyncLock } from '../../electron/main/sync/lock.ts';

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-profiles-'));
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const input = (overrides: Partial<ProfileInput> = {}): ProfileInput => ({
  name: 'Acme Demo',
  environment: 'demo',
  baseUrl: 'https://demo.example.com/api/v1',
  accountId: null,
  pageSize: 100,
  ...overrides,
});

const validationMessage = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toMatchObject({ code: 'VALIDATION' });
    return (error as Error).message;
  }
  throw new Error('expected a VALIDATION error');
};

describe('base URL rules', () => {
  it('accepts https and loopback http, normalising the trailing slash and case', () => {
    expect(normalizeBaseUrl(' https://API.Example.com/api/v1/ ')).toBe('https://api.example.com/api/v1');
    expect(normalizeBaseUrl('https://example.com:8443/mail/api/v1')).toBe('https://example.com:8443/mail/api/v1');
    expect(normalizeBaseUrl('http://127.0.0.1:4123/api/v1')).toBe('http://127.0.0.1:4123/api/v1');
    expect(normalizeBaseUrl('http://127.8.9.10/api/v1//')).toBe('http://127.8.9.10/api/v1');
    expect(normalizeBaseUrl('http://localhost:3000/api/v1')).toBe('http://localhost:3000/api/v1');
    expect(normalizeBaseUrl('http://[::1]:3000/api/v1')).toBe('http://[::1]:3000/api/v1');
  });

  it('names the problem for each kind of bad URL', () => {
    expect(validationMessage(() => normalizeBaseUrl('http://example.com/api/v1'))).toMatch(/must use https.*unencrypted to example\.com/);
    expect(validationMessage(() => normalizeBaseUrl('http://128.0.0.1/api/v1'))).toMatch(/must use https/);
    expect(validationMessage(() => normalizeBaseUrl('http://localhost.example.com/api/v1'))).toMatch(/must use https/);
    expect(validationMessage(() => normalizeBaseUrl('ftp://example.com/api/v1'))).toMatch(/must start with https:\/\/ \(it starts with ftp:\/\/\)/);
    expect(validationMessage(() => normalizeBaseUrl('example.com/api/v1'))).toMatch(/not a valid web address/);
    expect(validationMessage(() => normalizeBaseUrl('https://example.com/api/v2'))).toMatch(/must end in \/api\/v1.*"\/api\/v2"/);
    expect(validationMessage(() => normalizeBaseUrl('https://example.com'))).toMatch(/must end in \/api\/v1.*"\/"/);
    expect(validationMessage(() => normalizeBaseUrl('https://user:secret@example.com/api/v1'))).toMatch(/user name or password/);
    expect(validationMessage(() => normalizeBaseUrl('https://user:secret@example.com/api/v1'))).not.toContain('secret');
    expect(validationMessage(() => normalizeBaseUrl('https://example.com/api/v1?token=abc'))).toMatch(/query/);
    expect(validationMessage(() => normalizeBaseUrl('   '))).toMatch(/empty/);
  });
});

describe('profile ids', () => {
  it('are a slug of the name plus a random suffix', () => {
    const id = newProfileId('Ünïcode Café — Production!');
    expect(id).toMatch(/^unicode-cafe-production-[a-z0-9]{4,6}$/);
    expect(newProfileId('日本')).toMatch(/^profile-[a-z0-9]{4,6}$/);
    expect(newProfileId('x'.repeat(200)).length).toBeLessThanOrEqual(64);
    expect(newProfileId('Acme')).not.toBe(newProfileId('Acme'));
  });
});

describe('ProfileStore', () => {
  it('starts empty without writing anything', () => {
    const store = ProfileStore.open(dataDir);
    expect(store.list()).toEqual({ profiles: [], activeProfileId: null });
    expect(store.active()).toBeNull();
    expect(store.loadProblem()).toBeNull();
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it('creates, reads back from disk, edits and selects profiles', () => {
    const store = ProfileStore.open(dataDir);
    const acme = store.save(input({ baseUrl: 'https://demo.example.com/api/v1/', accountId: '  ' }));
    expect(acme).toMatchObject({ name: 'Acme Demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, sampleData: false, pageSize: 100 });
    expect(acme.id).toMatch(/^acme-demo-[a-z0-9]+$/);
    expect(Date.parse(acme.createdAt)).not.toBeNaN();
    // The first profile becomes active.
    expect(store.active()?.id).toBe(acme.id);

    const prod = store.save(input({ name: 'Acme Production', environment: 'production', baseUrl: 'https://api.example.com/api/v1', accountId: ' 42 ' }));
    expect(prod.accountId).toBe('42');
    expect(store.active()?.id).toBe(acme.id);

    const reopened = ProfileStore.open(dataDir);
    expect(reopened.list()).toEqual({ profiles: [acme, prod], activeProfileId: acme.id });
    expect(reopened.getByName('  acme PRODUCTION ')?.id).toBe(prod.id);
    expect(reopened.get('nope')).toBeNull();

    const edited = reopened.save({ ...input({ name: 'Acme Demo EU', pageSize: 500 }), id: acme.id });
    expect(edited).toEqual({ ...acme, name: 'Acme Demo EU', pageSize: 500 });
    expect(store.get(acme.id)).toEqual(edited); // the other instance reads the file again

    expect(store.use(prod.id).activeProfileId).toBe(prod.id);
    expect(ProfileStore.open(dataDir).active()?.id).toBe(prod.id);

    const raw = JSON.parse(fs.readFileSync(profilesFilePath(dataDir), 'utf8'));
    expect(raw.version).toBe(1);
    // Only profiles.json is left: the temporary file was renamed into place.
    expect(fs.readdirSync(dataDir)).toEqual(['profiles.json']);
  });

  it('keeps sampleData on create and on edit', () => {
    const store = ProfileStore.open(dataDir);
    const sample = store.save(input({ name: 'Sample data', environment: 'custom', baseUrl: 'http://127.0.0.1:45678/api/v1' }), { sampleData: true });
    expect(sample.sampleData).toBe(true);
    expect(store.save({ ...input({ name: 'Sample', environment: 'custom', baseUrl: 'http://127.0.0.1:45679/api/v1' }), id: sample.id }).sampleData).toBe(true);
  });

  it('refuses a duplicate name (ignoring case), a bad URL and an unknown id, leaving the file unchanged', () => {
    const store = ProfileStore.open(dataDir);
    const acme = store.save(input());
    const before = fs.readFileSync(profilesFilePath(dataDir), 'utf8');
    expect(validationMessage(() => store.save(input({ name: 'ACME demo' })))).toMatch(/A profile named "Acme Demo" already exists/);
    // Names that read the same in the list: invisible characters, fullwidth forms.
    for (const lookalike of ['Acme Demo\u200b', '\u200bAcme Demo', 'Acme\u2060 Demo', 'Ac\u00adme Demo', 'Ａｃｍｅ Ｄｅｍｏ']) {
      expect(validationMessage(() => store.save(input({ name: lookalike }))), JSON.stringify(lookalike)).toMatch(/A profile named "Acme Demo" already exists/);
    }
    expect(validationMessage(() => store.save(input({ name: 'Other', baseUrl: 'http://example.com/api/v1' })))).toMatch(/must use https/);
    expect(validationMessage(() => store.save(input({ name: '   ' })))).toMatch(/name/);
    expect(validationMessage(() => store.save(input({ name: 'Other', pageSize: 0 })))).toMatch(/pageSize/);
    expect(() => store.save({ ...input(), id: 'missing-id' })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => store.use('missing-id')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => store.remove('missing-id')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(fs.readFileSync(profilesFilePath(dataDir), 'utf8')).toBe(before);
    // Renaming a profile to its own name in another case is fine.
    expect(store.save({ ...input({ name: 'ACME DEMO' }), id: acme.id }).name).toBe('ACME DEMO');
  });

  it('removes a profile, moving the active mark, and purges its cache and history files only when asked', () => {
    const store = ProfileStore.open(dataDir);
    const a = store.save(input({ name: 'A' }));
    const b = store.save(input({ name: 'B' }));
    const c = store.save(input({ name: 'C' }));
    fs.mkdirSync(path.join(dataDir, 'cache'));
    // The cache's files and its observed history's.
    const cacheOf = (id: string) => ['.sqlite', '.sqlite-wal', '.sqlite-shm', '.history.sqlite', '.history.sqlite-wal'].map((suffix) => cacheFilePath(dataDir, id).replace(/\.sqlite$/, suffix));
    for (const file of [...cacheOf(a.id), ...cacheOf(b.id)]) fs.writeFileSync(file, 'x');

    const afterA = store.remove(a.id, { purgeCache: true });
    expect(afterA).toEqual({ profiles: [b, c], activeProfileId: b.id });
    for (const file of cacheOf(a.id)) expect(fs.existsSync(file)).toBe(false);

    store.use(c.id);
    const afterB = store.remove(b.id);
    expect(afterB.activeProfileId).toBe(c.id);
    for (const file of cacheOf(b.id)) expect(fs.existsSync(file)).toBe(true);

    expect(store.remove(c.id)).toEqual({ profiles: [], activeProfileId: null });
  });

  it('moves a damaged file aside, reports it and never overwrites it', () => {
    const file = profilesFilePath(dataDir);
    fs.writeFileSync(file, '{"version": 1, "profiles": [');
    const store = ProfileStore.open(dataDir);
    expect(store.list().profiles).toEqual([]);
    const problem = store.loadProblem();
    expect(problem).toMatch(/profiles file was damaged \(not valid JSON/);
    const aside = fs.readdirSync(dataDir).filter((name) => name.startsWith('profiles.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(problem).toContain(aside[0]);
    expect(fs.readFileSync(path.join(dataDir, aside[0]!), 'utf8')).toBe('{"version": 1, "profiles": [');
    expect(fs.existsSync(file)).toBe(false);

    // New work goes to a fresh file; the damaged copy stays.
    store.save(input());
    expect(fs.readFileSync(path.join(dataDir, aside[0]!), 'utf8')).toBe('{"version": 1, "profiles": [');
  });

  it('treats a file that fails validation as damaged, including a tampered http base URL', () => {
    const file = profilesFilePath(dataDir);
    const store = ProfileStore.open(dataDir);
    const acme = store.save(input());
    const good = JSON.parse(fs.readFileSync(file, 'utf8'));

    good.profiles[0].baseUrl = 'http://attacker.example.com/api/v1';
    fs.writeFileSync(file, JSON.stringify(good));
    const reopened = ProfileStore.open(dataDir);
    expect(reopened.get(acme.id)).toBeNull();
    expect(reopened.loadProblem()).toMatch(/damaged \(profiles\.0\.baseUrl: not an allowed base URL/);

    fs.writeFileSync(file, JSON.stringify({ version: 1, activeProfileId: null, profiles: [{ ...acme }, { ...acme, name: 'Other' }] }));
    expect(ProfileStore.open(dataDir).loadProblem()).toMatch(/duplicate profile id/);

    fs.writeFileSync(file, JSON.stringify({ version: 1, activeProfileId: null, profiles: [{ ...acme, pageSize: 'ten' }] }));
    expect(ProfileStore.open(dataDir).loadProblem()).toMatch(/pageSize/);

    // Names that only read the same as 'Acme Demo' (fullwidth or invisible characters) are not damage.
    const fullwidth = { ...acme, id: 'acme-fw-0001', name: 'Ａｃｍｅ Ｄｅｍｏ' };
    const invisible = { ...acme, id: 'acme-zw-0002', name: 'Acme\u200b Demo' };
    fs.writeFileSync(file, JSON.stringify({ version: 1, activeProfileId: fullwidth.id, profiles: [acme, fullwidth, invisible] }));
    const legacy = ProfileStore.open(dataDir);
    expect(legacy.loadProblem()).toBeNull();
    expect(legacy.list()).toEqual({ profiles: [acme, fullwidth, invisible], activeProfileId: fullwidth.id });
    expect(legacy.getByName('Ａｃｍｅ Ｄｅｍｏ')?.id).toBe(fullwidth.id);
    expect(legacy.getByName('ACME DEMO')?.id).toBe(acme.id);

    expect(fs.readdirSync(dataDir).filter((name) => name.includes('.damaged-'))).toHaveLength(3);
  });

  it('forgets an active id that names no profile instead of failing', () => {
    const store = ProfileStore.open(dataDir);
    const acme = store.save(input());
    const file = profilesFilePath(dataDir);
    const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, JSON.stringify({ ...raw, activeProfileId: 'gone-123' }));
    const reopened = ProfileStore.open(dataDir);
    expect(reopened.loadProblem()).toBeNull();
    expect(reopened.list()).toEqual({ profiles: [acme], activeProfileId: null });
  });

  it('removes a profile with its session tokens in one call', async () => {
    const store = ProfileStore.open(dataDir);
    const acme = store.save(input());
    const credentials = new CredentialStore({ sessionOnly: true });
    await credentials.set(acme.id, { accessToken: 'session-access-abc', refreshToken: null }, { sessionOnly: true });
    const removed = await removeProfileAndCredentials(store, credentials, acme.id, { purgeCache: false });
    expect(removed).toEqual({ list: { profiles: [], activeProfileId: null }, credentialsProblem: null });
    expect(await credentials.get(acme.id)).toBeNull();
    await expect(removeProfileAndCredentials(store, credentials, acme.id, { purgeCache: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('does not remove a profile while its cache is being synced; afterwards removes it with its cache and lock', async () => {
    const store = ProfileStore.open(dataDir);
    const acme = store.save(input());
    const credentials = new CredentialStore({ sessionOnly: true });
    await credentials.set(acme.id, { accessToken: 'session-access-abc', refreshToken: null }, { sessionOnly: true });
    const cache = cacheFilePath(dataDir, acme.id);
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    fs.writeFileSync(cache, 'cache');
    const release = acquireSyncLock(cache); // a sync of this profile (here or in another process)
    await expect(removeProfileAndCredentials(store, credentials, acme.id, { purgeCache: true })).rejects.toMatchObject({ code: 'BUSY' });
    expect(store.get(acme.id)).toEqual(acme);
    expect(await credentials.get(acme.id)).not.toBeNull();
    expect(fs.readFileSync(cache, 'utf8')).toBe('cache');
    release();
    await removeProfileAndCredentials(store, credentials, acme.id, { purgeCache: true });
    expect(store.get(acme.id)).toBeNull();
    expect(fs.readdirSync(path.dirname(cache))).toEqual([]);
  });
});

describe('two processes changing profiles at once (the app and the CLI)', () => {
  it('lose neither one’s changes: each read-change-write holds the profiles lock', async () => {
    const store = path.join(import.meta.dirname, '..', '..', 'electron', 'main', 'profiles', 'store.ts');
    const writer = (tag: string) =>
      new Promise<number | null>((resolve, reject) => {
        const script = `
          import { ProfileStore } from ${JSON.stringify(pathToFileURL(store).href)};
          const profiles = ProfileStore.open(${JSON.stringify(dataDir)});
          for (let i = 0; i < 60; i++) profiles.save({ name: '${tag} ' + i, environment: 'production', baseUrl: 'https://api.example.com/api/v1', accountId: null, pageSize: 500 });
        `;
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('error', reject);
        child.on('exit', resolve);
      });
    expect(await Promise.all([writer('App'), writer('Cli')])).toEqual([0, 0]);
    const names = ProfileStore.open(dataDir).list().profiles.map((p) => p.name);
    expect(names).toHaveLength(120);
    expect(fs.existsSync(`${profilesFilePath(dataDir)}.lock`)).toBe(false);
  });

  it('takes over a lock left by a process that has ended', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(`${profilesFilePath(dataDir)}.lock`, JSON.stringify({ pid: Number(gone.stdout), host: os.hostname(), startedAt: new Date().toISOString() }));
    const saved = ProfileStore.open(dataDir).save(input());
    expect(ProfileStore.open(dataDir).get(saved.id)).not.toBeNull();
    expect(fs.existsSync(`${profilesFilePath(dataDir)}.lock`)).toBe(false);
  });
});
