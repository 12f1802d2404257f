/**
 * Credentials against the real OS keychain (the Secret Service under dbus-run-session in CI), and
 * in child processes without a usable one.
 *
 * Run with a Secret Service:
 *   dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null;
 *     npx vitest run --config test/vitest.config.ts test/unit/credentials.test.ts'
 * Without one, the keychain tests fail in CI (CI=true) and are skipped with the reason elsewhere.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokensFromEnv } from '../../electron/main/credentials/env.ts';
import { CredentialStore, KEYCHAIN_SERVICE } from '../../electron/main/credentials/store.ts';
import { sessionBusAnswers } from '../../electron/main/credentials/keychain.ts';
import { redact } from '../../electron/main/base/log.ts';
import { ProfileStore } from '../../electron/main/profiles/store.ts';
import { removeProfileAndCredentials } from '../../electron/main/core/profiles.ts';

const CHILD = path.join(import.meta.dirname, 'fixtures', 'credentialsChild.ts');
/** A service of our own so parallel runs and real profiles never see these entries. */
const TEST_SERVICE = `Letterdesk-test-${process.pid}-${randomBytes(3).toString('hex')}`;

const token = (label: string): string => `${label}-${randomBytes(12).toString('base64url')}`;

/** Null when a secret can be written and deleted in the keychain, else why not. */
async function keychainProblem(): Promise<string | null> {
  const probe = new CredentialStore({ service: TEST_SERVICE, timeoutMs: 3000 });
  try {
    await probe.set('probe', { accessToken: token('probe'), refreshToken: null }, { sessionOnly: false });
    await probe.clear('probe');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const unavailable = await keychainProblem();
const needKeychainMessage =
  `The keychain tests need a usable Secret Service, and none is reachable: ${unavailable}\n` +
  "Run them as: dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; " +
  "npx vitest run --config test/vitest.config.ts test/unit/credentials.test.ts'";
if (unavailable !== null && !process.env.CI) console.warn(`credentials.test.ts: skipping the keychain tests. ${needKeychainMessage}`);

describe('tokensFromEnv', () => {
  it('reads both tokens, treating blanks as unset, and wins over nothing else', () => {
    expect(tokensFromEnv({})).toBeNull();
    expect(tokensFromEnv({ LETTERDESK_ACCESS_TOKEN: '  ' })).toBeNull();
    expect(tokensFromEnv({ LETTERDESK_ACCESS_TOKEN: ' acc-1234 ' })).toEqual({ accessToken: 'acc-1234', refreshToken: null });
    expect(tokensFromEnv({ LETTERDESK_ACCESS_TOKEN: 'Bearer acc-1234', LETTERDESK_REFRESH_TOKEN: 'ref-5678' })).toEqual({
      accessToken: 'acc-1234',
      refreshToken: 'ref-5678',
    });
  });

  it('refuses a refresh token alone and malformed values, without echoing them', () => {
    expect(() => tokensFromEnv({ LETTERDESK_REFRESH_TOKEN: 'ref-only-9999' })).toThrow(/LETTERDESK_REFRESH_TOKEN is set but LETTERDESK_ACCESS_TOKEN is not/);
    try {
      tokensFromEnv({ LETTERDESK_ACCESS_TOKEN: 'two words-secret' });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'VALIDATION' });
      expect((error as Error).message).toMatch(/LETTERDESK_ACCESS_TOKEN is not usable/);
      expect((error as Error).message).not.toContain('words-secret');
    }
  });

  it('registers the tokens for log redaction', () => {
    const access = token('env-access');
    tokensFromEnv({ LETTERDESK_ACCESS_TOKEN: access });
    expect(redact(`sending ${access}`)).toBe('sending [redacted]');
  });
});

describe('sessionBusAnswers (the pre-check that keeps keytar off a silent bus)', () => {
  it('tells a silent bus from one that answers the auth handshake, and leaves other cases to keytar', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-bus-'));
    const received: string[] = [];
    const talking = net.createServer((socket) => {
      socket.on('data', (chunk) => {
        received.push(chunk.toString('latin1'));
        socket.write('OK 1234deadbeef\r\n');
      });
    });
    const silent = net.createServer(() => {});
    try {
      await new Promise<void>((resolve) => talking.listen(path.join(dir, 'talking'), resolve));
      await new Promise<void>((resolve) => silent.listen(path.join(dir, 'silent'), resolve));
      expect(await sessionBusAnswers(`unix:path=${path.join(dir, 'talking')},guid=abc`, 1000)).toBe(true);
      expect(received.join('')).toMatch(/^\0AUTH EXTERNAL [0-9a-f]+\r\n$/);
      const started = Date.now();
      expect(await sessionBusAnswers(`unix:path=${path.join(dir, 'silent')}`, 300)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(await sessionBusAnswers(`tcp:host=127.0.0.1,port=1;unix:path=${path.join(dir, 'silent')}`, 300)).toBe(false);
      expect(await sessionBusAnswers(`unix:path=${path.join(dir, 'none')}`, 300)).toBe(true);
      expect(await sessionBusAnswers('tcp:host=127.0.0.1,port=1', 300)).toBe(true);
      expect(await sessionBusAnswers(undefined, 300)).toBe(true);
    } finally {
      talking.close();
      silent.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CredentialStore in session-only mode (never touches the keychain)', () => {
  it('keeps, replaces, marks and clears tokens in memory', async () => {
    const store = new CredentialStore({ sessionOnly: true, service: TEST_SERVICE });
    expect(await store.status('acme-1')).toEqual({ profileId: 'acme-1', stored: false, storage: null, savedAt: null, rejected: false, boundTo: null, keychainProblem: null });
    // sessionOnly: false is honoured as memory-only too, because the store was opened that way.
    const first = await store.set('acme-1', { accessToken: token('a'), refreshToken: null }, { sessionOnly: false });
    expect(first).toMatchObject({ stored: true, storage: 'session', rejected: false, keychainProblem: null });
    const second = { accessToken: token('a2'), refreshToken: token('r2') };
    await store.set('acme-1', second, { sessionOnly: true });
    expect(await store.get('acme-1')).toEqual(second);
    // A rejection of tokens replaced since leaves the new ones alone.
    await store.markRejected('acme-1', token('a'));
    expect((await store.status('acme-1')).rejected).toBe(false);
    await store.markRejected('acme-1', second.accessToken);
    expect((await store.status('acme-1')).rejected).toBe(true);
    await store.set('acme-1', second, { sessionOnly: true });
    expect((await store.status('acme-1')).rejected).toBe(false);
    expect(await store.listProfilesWithTokens()).toEqual(['acme-1']);
    await store.clear('acme-1');
    expect(await store.get('acme-1')).toBeNull();
    expect(await store.listProfilesWithTokens()).toEqual([]);
  });

  it('refuses malformed tokens and profile ids with VALIDATION, never echoing the token', async () => {
    const store = new CredentialStore({ sessionOnly: true });
    await expect(store.set('acme-1', { accessToken: '   ', refreshToken: null }, { sessionOnly: true })).rejects.toMatchObject({ code: 'VALIDATION' });
    const bad = store.set('acme-1', { accessToken: 'abc\ndef-leak', refreshToken: null }, { sessionOnly: true });
    await expect(bad).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/line breaks/) });
    await expect(bad).rejects.toSatisfy((error: Error) => !error.message.includes('def-leak'));
    await expect(store.set('acme-1', { accessToken: 'ok-1234', refreshToken: 'has space' }, { sessionOnly: true })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/refresh token/),
    });
    await expect(store.status('../etc')).rejects.toMatchObject({ code: 'VALIDATION' });
    // A pasted "Bearer " prefix is dropped.
    await store.set('acme-1', { accessToken: 'Bearer tok-5678', refreshToken: '' }, { sessionOnly: true });
    expect(await store.get('acme-1')).toEqual({ accessToken: 'tok-5678', refreshToken: null });
  });
});

describe.skipIf(unavailable !== null && !process.env.CI)('CredentialStore with the real keychain', () => {
  if (unavailable !== null) {
    it('needs a reachable Secret Service', () => {
      throw new Error(needKeychainMessage);
    });
    return;
  }

  const store = new CredentialStore({ service: TEST_SERVICE });

  afterAll(async () => {
    for (const { account } of await keytar.findCredentials(TEST_SERVICE)) await keytar.deletePassword(TEST_SERVICE, account);
  });

  it('stores, reads, replaces and removes tokens per profile, as one secret per account', async () => {
    const a1 = { accessToken: token('a-access'), refreshToken: token('a-refresh') };
    const b1 = { accessToken: token('b-access'), refreshToken: null };

    const status = await store.set('acme-a', a1, { sessionOnly: false });
    expect(status).toMatchObject({ profileId: 'acme-a', stored: true, storage: 'keychain', rejected: false, keychainProblem: null });
    expect(Date.now() - Date.parse(status.savedAt!)).toBeLessThan(60_000);
    await store.set('acme-b', b1, { sessionOnly: false });

    // What is really in the keychain: one JSON secret under service/account = profile id.
    const raw = JSON.parse((await keytar.getPassword(TEST_SERVICE, 'acme-a'))!);
    expect(raw).toMatchObject({ accessToken: a1.accessToken, refreshToken: a1.refreshToken, savedAt: status.savedAt, rejected: false });

    // A second store (another process: the CLI) reads the same tokens.
    const other = new CredentialStore({ service: TEST_SERVICE });
    expect(await other.get('acme-a')).toEqual(a1);
    expect(await other.get('acme-b')).toEqual(b1);
    expect(await other.get('acme-none')).toBeNull();
    expect(await other.listProfilesWithTokens()).toEqual(['acme-a', 'acme-b']);

    const a2 = { accessToken: token('a-access2'), refreshToken: null };
    await other.set('acme-a', a2, { sessionOnly: false });
    expect(await store.get('acme-a')).toEqual(a2);
    expect(await store.get('acme-b')).toEqual(b1);

    await store.clear('acme-a');
    expect(await other.get('acme-a')).toBeNull();
    expect(await keytar.getPassword(TEST_SERVICE, 'acme-a')).toBeNull();
    expect(await store.status('acme-a')).toEqual({ profileId: 'acme-a', stored: false, storage: null, savedAt: null, rejected: false, boundTo: null, keychainProblem: null });
    expect(await store.listProfilesWithTokens()).toEqual(['acme-b']);
    await store.clear('acme-a'); // clearing twice is fine
    await store.clear('acme-b');
    expect(await store.listProfilesWithTokens()).toEqual([]);
  });

  it('keeps the "rejected" mark with the tokens until new ones are set', async () => {
    const tokens = { accessToken: token('r-access'), refreshToken: token('r-refresh') };
    await store.set('acme-r', tokens, { sessionOnly: false });
    await store.markRejected('acme-r', token('r-older')); // not the stored tokens: nothing marked
    expect(await store.status('acme-r')).toMatchObject({ rejected: false });
    await store.markRejected('acme-r', tokens.accessToken);
    const fresh = new CredentialStore({ service: TEST_SERVICE });
    expect(await fresh.status('acme-r')).toMatchObject({ stored: true, storage: 'keychain', rejected: true });
    expect(await fresh.get('acme-r')).toEqual(tokens); // still readable, e.g. to show "saved on …"
    await fresh.set('acme-r', { accessToken: token('r-new'), refreshToken: null }, { sessionOnly: false });
    expect(await store.status('acme-r')).toMatchObject({ rejected: false });
    await store.markRejected('acme-none', token('none')); // no tokens: nothing to mark, no error
    expect((await store.status('acme-none')).stored).toBe(false);
    await store.clear('acme-r');
  });

  it('switching to session-only takes the tokens out of the keychain; saving again puts them back', async () => {
    await store.set('acme-s', { accessToken: token('s-old'), refreshToken: null }, { sessionOnly: false });
    const session = { accessToken: token('s-session'), refreshToken: token('s-refresh') };
    const status = await store.set('acme-s', session, { sessionOnly: true });
    expect(status).toMatchObject({ stored: true, storage: 'session', keychainProblem: null });
    expect(await keytar.getPassword(TEST_SERVICE, 'acme-s')).toBeNull();
    expect(await store.get('acme-s')).toEqual(session);
    expect(await new CredentialStore({ service: TEST_SERVICE }).get('acme-s')).toBeNull(); // not visible to another process
    await store.set('acme-s', session, { sessionOnly: false });
    expect(await new CredentialStore({ service: TEST_SERVICE }).get('acme-s')).toEqual(session);
    await store.clear('acme-s');
  });

  it('registers tokens read from the keychain for log redaction', async () => {
    const tokens = { accessToken: token('log-access'), refreshToken: token('log-refresh') };
    await keytar.setPassword(TEST_SERVICE, 'acme-l', JSON.stringify({ v: 1, ...tokens, savedAt: null, rejected: false }));
    expect(redact(tokens.accessToken)).toBe(tokens.accessToken); // not known yet
    await new CredentialStore({ service: TEST_SERVICE }).get('acme-l');
    expect(redact(`a ${tokens.accessToken} b ${tokens.refreshToken}`)).toBe('a [redacted] b [redacted]');
    await store.clear('acme-l');
  });

  it('splits secrets too long for one entry (Windows Credential Manager) and reassembles them', async () => {
    const small = new CredentialStore({ service: TEST_SERVICE, maxSecretBytes: 200 });
    const long = { accessToken: `é${token('long-access')}${'x'.repeat(300)}`, refreshToken: token('long-refresh') };
    await small.set('acme-c', long, { sessionOnly: false });
    const accounts = (await keytar.findCredentials(TEST_SERVICE)).map((c) => c.account).sort();
    const parts = accounts.filter((a) => a.startsWith('acme-c#'));
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const { password } of await keytar.findCredentials(TEST_SERVICE)) expect(Buffer.byteLength(password)).toBeLessThanOrEqual(200);
    expect(await new CredentialStore({ service: TEST_SERVICE }).get('acme-c')).toEqual(long);
    expect(await small.listProfilesWithTokens()).toEqual(['acme-c']);

    const short = { accessToken: token('short'), refreshToken: null };
    await small.set('acme-c', short, { sessionOnly: false });
    expect((await keytar.findCredentials(TEST_SERVICE)).map((c) => c.account)).toEqual(['acme-c']);
    expect(await small.get('acme-c')).toEqual(short);

    await small.set('acme-c', long, { sessionOnly: false });
    await small.clear('acme-c');
    expect(await keytar.findCredentials(TEST_SERVICE)).toEqual([]);
  });

  it('uses service "Letterdesk" by default and removes a profile together with its tokens', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-cred-'));
    try {
      const profiles = ProfileStore.open(dataDir);
      const profile = profiles.save({ name: `Keychain test ${randomBytes(3).toString('hex')}`, environment: 'demo', baseUrl: 'https://d.example.com/api/v1', accountId: null, pageSize: 10 });
      const credentials = new CredentialStore();
      expect(credentials.service).toBe(KEYCHAIN_SERVICE);
      const tokens = { accessToken: token('default-access'), refreshToken: null };
      await credentials.set(profile.id, tokens, { sessionOnly: false });
      expect(await keytar.getPassword('Letterdesk', profile.id)).toContain(tokens.accessToken);
      const removed = await removeProfileAndCredentials(profiles, credentials, profile.id, { purgeCache: true });
      expect(removed).toEqual({ list: { profiles: [], activeProfileId: null }, credentialsProblem: null });
      expect(await keytar.getPassword('Letterdesk', profile.id)).toBeNull();
      expect(fs.readFileSync(path.join(dataDir, 'profiles.json'), 'utf8')).not.toContain(tokens.accessToken);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Without a usable keychain: child processes, so the D-Bus environment is really different.
// ---------------------------------------------------------------------------------------------

interface Timed<T> {
  ms: number;
  value?: T;
  error?: { code: string; message: string };
}
interface ChildResult {
  profileId: string;
  problem: Timed<string | null>;
  saveToKeychain: Timed<unknown>;
  statusAfterFailure: Timed<{ stored: boolean; storage: string | null; keychainProblem: string | null }>;
  saveForSession: Timed<{ stored: boolean; storage: string | null; keychainProblem: string | null }>;
  readMatches: boolean;
  list: Timed<string[]>;
  clear: Timed<unknown>;
  afterClear: Timed<unknown>;
}

/** Where and how a child runs. */
interface ChildSetup {
  dataDir: string;
  /** HOME and XDG folders of the child. @default dataDir: anything written "to the home folder" lands in the data dir and is checked */
  home?: string;
  /** DBUS_SESSION_BUS_ADDRESS of the child (omit when `wrap` starts a bus). */
  dbusAddress?: string;
  /** A command that runs the child, e.g. ['dbus-run-session', '--']. */
  wrap?: string[];
  timeoutMs: number;
}

/** Runs the child to its end; resolves with its JSON line, stderr and exit code. */
function runChild(setup: ChildSetup, tokens: { access: string; refresh: string }): Promise<{ result: ChildResult; stderr: string; code: number | null }> {
  const home = setup.home ?? setup.dataDir;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'xdg-config'),
    XDG_DATA_HOME: path.join(home, 'xdg-data'),
    XDG_CACHE_HOME: path.join(home, 'xdg-cache'),
    XDG_RUNTIME_DIR: path.join(home, 'xdg-runtime'),
    TMPDIR: path.join(home, 'tmp'),
    LETTERDESK_DATA_DIR: setup.dataDir,
    LETTERDESK_ACCESS_TOKEN: tokens.access,
    LETTERDESK_REFRESH_TOKEN: tokens.refresh,
    CHILD_TIMEOUT_MS: String(setup.timeoutMs),
  };
  if (setup.dbusAddress !== undefined) env.DBUS_SESSION_BUS_ADDRESS = setup.dbusAddress;
  fs.mkdirSync(env.TMPDIR!, { recursive: true });
  fs.mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  const [command, ...args] = [...(setup.wrap ?? []), process.execPath, CHILD];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // A keytar call stuck on a broken bus would keep the child from exiting: that is a failure.
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child did not finish in 20 s; stdout: ${stdout.slice(0, 300)}; stderr: ${stderr.slice(0, 2000)}`));
    }, 20_000);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', (code) => {
      clearTimeout(killer);
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) reject(new Error(`the child exited with ${code} without a result; stderr: ${stderr.slice(0, 2000)}`));
      else resolve({ result: JSON.parse(line) as ChildResult, stderr, code });
    });
  });
}

/** Every regular file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

function expectNoTokensOnDisk(dataDir: string, tokens: string[]): void {
  const files = allFiles(dataDir);
  expect(files.map((f) => path.relative(dataDir, f)).filter((f) => !f.startsWith('logs'))).toEqual(['profiles.json']);
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const t of tokens) expect(bytes.includes(Buffer.from(t)), `${path.relative(dataDir, file)} holds a token`).toBe(false);
  }
}

describe('without a usable keychain', () => {
  let dataDir: string;
  let home: string;
  const tokens = { access: token('nokc-access'), refresh: token('nokc-refresh') };
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-nokeychain-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-home-'));
  });
  afterEach(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('with no D-Bus: a clear error naming cause and fix, the in-memory path, and nothing on disk', async () => {
    const { result, stderr, code } = await runChild({ dataDir, dbusAddress: `unix:path=${path.join(dataDir, 'no-such-bus')}`, timeoutMs: 5000 }, tokens);
    expect(code).toBe(0);

    expect(result.problem.value).toMatch(/No D-Bus session bus is reachable.*gnome-keyring.*session only/s);
    expect(result.saveToKeychain.error).toEqual({ code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringMatching(/^The tokens were not saved\. No D-Bus session bus/) });
    expect(result.statusAfterFailure.value).toMatchObject({ stored: false, storage: null, keychainProblem: expect.stringMatching(/D-Bus/) });
    expect(result.saveForSession.error).toBeUndefined();
    expect(result.saveForSession.value).toMatchObject({ stored: true, storage: 'session', keychainProblem: expect.stringMatching(/D-Bus/) });
    expect(result.readMatches).toBe(true);
    expect(result.list.error?.code).toBe('KEYCHAIN_UNAVAILABLE');
    expect(result.clear.error).toEqual({ code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringMatching(/tokens kept for this session were removed/) });
    expect(result.afterClear.error?.code).toBe('KEYCHAIN_UNAVAILABLE'); // no session tokens left, keychain unreachable

    const everything = JSON.stringify(result) + stderr;
    expect(everything).not.toContain(tokens.access);
    expect(everything).not.toContain(tokens.refresh);
    expectNoTokensOnDisk(dataDir, [tokens.access, tokens.refresh]);
    // The log line that named the tokens was written, redacted.
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'cli.log'), 'utf8');
    expect(log).toMatch(/child: using access token \[redacted\] and refresh \[redacted\]/);
  });

  it('with a D-Bus that never answers: caught before keytar is called, then immediate failures, the in-memory path, a normal exit', async () => {
    const socketPath = path.join(dataDir, 'silent-bus');
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    try {
      const { result, stderr, code } = await runChild({ dataDir, dbusAddress: `unix:path=${socketPath}`, timeoutMs: 700 }, tokens);
      // keytar was never called on the silent bus, so nothing is stuck and the child exits normally.
      expect(code).toBe(0);
      expect(result.problem.value).toMatch(/session bus accepts connections but did not answer within 1 s.*DBUS_SESSION_BUS_ADDRESS.*session only/s);
      expect(result.problem.ms).toBeGreaterThanOrEqual(650);
      expect(result.problem.ms).toBeLessThan(5000);
      // While the stuck call has not returned, later calls fail at once instead of piling up.
      expect(result.saveToKeychain.error?.code).toBe('KEYCHAIN_UNAVAILABLE');
      expect(result.saveToKeychain.ms).toBeLessThan(200);
      expect(result.saveForSession.value).toMatchObject({ stored: true, storage: 'session' });
      expect(result.readMatches).toBe(true);
      const everything = JSON.stringify(result) + stderr;
      expect(everything).not.toContain(tokens.access);
      fs.rmSync(socketPath, { force: true });
      expectNoTokensOnDisk(dataDir, [tokens.access, tokens.refresh]);
    } finally {
      silent.close();
    }
  });

  const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter(
    (bin) => !(process.env.PATH ?? '').split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, bin))),
  );
  const missingMessage = `The locked-keyring tests need ${missing.join(' and ')} (Debian: apt-get install dbus gnome-keyring).`;
  if (missing.length > 0 && !process.env.CI) console.warn(`credentials.test.ts: skipping the locked-keyring tests. ${missingMessage}`);

  it.skipIf(missing.length > 0 && !process.env.CI)('with a Secret Service but no login keyring, or a locked one: the cause and the fix', async () => {
    if (missing.length > 0) throw new Error(missingMessage);
    // 1. A fresh home: gnome-keyring starts on demand and has no login keyring (no prompt can be shown).
    const noKeyring = await runChild({ dataDir, home, wrap: ['dbus-run-session', '--'], timeoutMs: 5000 }, tokens);
    expect(noKeyring.result.saveToKeychain.error).toEqual({ code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringMatching(/no login keyring.*Seahorse.*gnome-keyring-daemon --unlock/s) });
    expect(noKeyring.result.saveForSession.value).toMatchObject({ stored: true, storage: 'session' });
    expect(noKeyring.result.readMatches).toBe(true);
    expectNoTokensOnDisk(dataDir, [tokens.access, tokens.refresh]);

    // 2. Create the login keyring (unlocked once, with a password), then start a new session: it is locked.
    await new Promise<void>((resolve, reject) => {
      // Foreground, then stopped: a daemon left running would answer the next session's activation from a dead bus.
      const script =
        'echo -n pw | gnome-keyring-daemon --unlock --foreground --components=secrets >/dev/null 2>&1 & p=$!; ' +
        'for i in $(seq 1 50); do [ -f "$XDG_DATA_HOME/keyrings/login.keyring" ] && break; sleep 0.1; done; kill $p; wait $p; ' +
        '[ -f "$XDG_DATA_HOME/keyrings/login.keyring" ]';
      const setup = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
        env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, 'xdg-data'), XDG_RUNTIME_DIR: path.join(home, 'xdg-runtime') },
        stdio: 'ignore',
      });
      setup.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`creating the keyring failed (${code})`))));
    });
    fs.rmSync(path.join(dataDir, 'profiles.json'));
    const locked = await runChild({ dataDir, home, wrap: ['dbus-run-session', '--'], timeoutMs: 5000 }, tokens);
    expect(locked.result.saveToKeychain.error).toEqual({ code: 'KEYCHAIN_UNAVAILABLE', message: expect.stringMatching(/keyring is locked.*unlock the Login keyring/s) });
    expect(locked.result.saveForSession.value).toMatchObject({ stored: true, storage: 'session' });
    expect(JSON.stringify(locked.result) + locked.stderr + noKeyring.stderr).not.toContain(tokens.access);
    expectNoTokensOnDisk(dataDir, [tokens.access, tokens.refresh]);
    // The keyring file holds no token either (the write was refused).
    for (const file of allFiles(home)) expect(fs.readFileSync(file).includes(Buffer.from(tokens.access)), file).toBe(false);
  });
});
