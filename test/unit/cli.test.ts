/**
 * The `letterdesk` CLI as a user runs it: real child processes (`node electron/main/cli/index.ts`),
 * a clean data directory, the sample API started through the CLI itself, real HTTP and SQLite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../shared/contract.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const ENTRY = join(ROOT, 'electron', 'main', 'cli', 'index.ts');

let dir: string;
let dataDir: string;
let api: ChildProcess;
let apiLines: string[] = [];
let baseUrl: string;
let accessToken: string;
let refreshToken: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with a clean environment (no tokens unless given, no keychain bus). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY, '--data-dir', dataDir, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, DBUS_SESSION_BUS_ADDRESS: 'disabled:', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const tokens = () => ({ LETTERDESK_ACCESS_TOKEN: accessToken, LETTERDESK_REFRESH_TOKEN: refreshToken });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-'));
  dataDir = join(dir, 'data');
  api = spawn(process.execPath, [ENTRY, 'sample-api', '--contacts', '1500', '--orders', '300', '--seed', '7'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    api.stdout?.on('data', (c: Buffer) => {
      buffer += c.toString();
      apiLines = buffer.split('\n');
      if (apiLines.length >= 5) resolve();
    });
    api.on('exit', (code) => reject(new Error(`sample-api exited with ${code}`)));
  });
  baseUrl = apiLines[0] as string;
  accessToken = (apiLines[2] as string).split(/\s+/).at(-1) as string;
  refreshToken = (apiLines[3] as string).split(/\s+/).at(-1) as string;
});

afterAll(async () => {
  if (api && api.exitCode === null) {
    const exited = new Promise((r) => api.on('exit', r));
    api.kill('SIGINT');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('letterdesk CLI from a clean data directory', () => {
  it('sample-api prints its base URL on the first line', () => {
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(accessToken.length).toBeGreaterThan(20);
  });

  it('adds a profile, syncs, reports status, searches and exports', async () => {
    const add = await cli(['profile', 'add', 'Sample Shop', '--base-url', baseUrl, '--page-size', '400']);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/Added profile "Sample Shop" \(id sample-shop-[a-z0-9]+\), now the active profile\./);

    const list = await cli(['profile', 'list', '--json']);
    expect(list.code).toBe(0);
    const profiles = JSON.parse(list.stdout) as { profiles: Profile[]; activeProfileId: string };
    expect(profiles.profiles).toHaveLength(1);
    expect(profiles.profiles[0]).toMatchObject({ name: 'Sample Shop', baseUrl, pageSize: 400, environment: 'custom', accountId: null });
    expect(profiles.activeProfileId).toBe(profiles.profiles[0]?.id);
    // No token anywhere in the data directory's profile file.
    expect(readFileSync(join(dataDir, 'profiles.json'), 'utf8')).not.toContain(accessToken);

    const sync = await cli(['sync'], tokens());
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toContain('contacts: 1,500 rows synced');
    expect(sync.stdout).toContain('orders: 300 rows synced');
    // Not a terminal: one plain line per step on stderr.
    expect(sync.stderr).toMatch(/^contacts: fetching/m);
    expect(sync.stderr).toMatch(/^orders: done \(300\/300 rows\)$/m);

    const status = await cli(['status', '--json']);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout) as { profile: Profile; resources: Record<string, { rows: number; lastSyncedAt: string | null; lastError: unknown }> };
    expect(s.profile.name).toBe('Sample Shop');
    expect(Object.keys(s.resources).sort()).toEqual(['contacts', 'orders']);
    expect(s.resources.contacts).toMatchObject({ rows: 1500, lastError: null });
    expect(s.resources.orders).toMatchObject({ rows: 300, lastError: null });
    expect(Date.parse(s.resources.contacts?.lastSyncedAt ?? '')).toBeGreaterThan(Date.now() - 120_000);

    // Pick a real last name from the data and search for it.
    const all = await cli(['contacts', '--limit', '5', '--json']);
    const first = (JSON.parse(all.stdout) as { lastName: string }[])[0] as { lastName: string };
    const found = await cli(['contacts', '--search', first.lastName, '--limit', '1000', '--json']);
    expect(found.code).toBe(0);
    const rows = JSON.parse(found.stdout) as { id: string; lastName: string; fullName: string; ContactLabels: unknown[]; createdAt: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(1500);
    for (const r of rows) {
      // The service's record shape (§2.2), and every row matches the search somewhere.
      expect(Object.keys(r)).toEqual(expect.arrayContaining(['id', 'firstName', 'lastName', 'fullName', 'companyName', 'ContactLabels', 'createdAt', 'isVerified']));
      expect(JSON.stringify(r).toLowerCase()).toContain(first.lastName.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').slice(0, 3));
    }
    const created = rows.map((r) => r.createdAt);
    expect([...created].sort().reverse()).toEqual(created);

    const out = join(dir, 'found.csv');
    const exp = await cli(['export', 'contacts', '--out', 'found.csv', '--search', first.lastName, '--columns', 'id,lastName,email', '--delimiter', 'semicolon', '--bom']);
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stdout.trim()).toBe(`Exported ${rows.length.toLocaleString('en-US')} contacts to ${out}`);
    const bytes = readFileSync(out);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const parsed = parse(bytes.toString('utf8'), { delimiter: ';', bom: true }) as string[][];
    expect(parsed[0]).toEqual(['Contact ID', 'Last name', 'Email']);
    expect(parsed.slice(1).map((r) => r[0])).toEqual(rows.map((r) => r.id));

    const recipients = await cli(['export', 'recipients', '--out', join(dir, 'recipients.csv'), '--status', '1', '--status', '2', '--json']);
    expect(recipients.code, recipients.stderr).toBe(0);
    const result = JSON.parse(recipients.stdout) as { path: string; rows: number };
    expect(result.path).toBe(join(dir, 'recipients.csv'));
    const recipientRows = parse(readFileSync(result.path, 'utf8')) as string[][];
    expect(recipientRows).toHaveLength(result.rows + 1);

    const orders = await cli(['orders', '--status', '1', '--limit', '1000', '--json']);
    const orderRecords = JSON.parse(orders.stdout) as { id: string; status: number; contacts: unknown[] }[];
    expect(orderRecords.every((o) => o.status === 1)).toBe(true);
  });

  it('exit status 2 for usage errors, with a one-line message', async () => {
    const cases = [['contacts', '--sort', 'shoe-size'], ['export', 'people', '--out', 'x.csv'], ['bogus'], ['contacts', '--limit', 'many'], ['export', 'contacts']];
    const results = await Promise.all(cases.map((args) => cli(args)));
    for (const [i, r] of results.entries()) {
      expect(r.code, cases[i]?.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
    const none = await cli(['--profile', 'Nobody', 'status']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^letterdesk: There is no profile "Nobody"\. Profiles: Sample Shop\.\n$/);
    expect(existsSync(join(dir, 'x.csv'))).toBe(false);
  });

  it('exit status 3 for auth errors, without echoing the token', async () => {
    const wrong = 'wrong-token-1234567890';
    const rejected = await cli(['sync', 'contacts'], { LETTERDESK_ACCESS_TOKEN: wrong });
    expect(rejected.code).toBe(3);
    expect(rejected.stderr).toMatch(/^letterdesk: .*rejected the .*tokens? \(HTTP 401\)/m);
    expect(rejected.stderr + rejected.stdout).not.toContain(wrong);

    const missing = await cli(['sync']);
    expect(missing.code).toBe(3);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('LETTERDESK_ACCESS_TOKEN');

    // The data from the earlier sync is untouched.
    const status = await cli(['status', '--json']);
    expect((JSON.parse(status.stdout) as { resources: { contacts: { rows: number } } }).resources.contacts.rows).toBe(1500);
  });

  it('--help works on every command', async () => {
    const cases = [['--help'], ['profile', '--help'], ['profile', 'add', '--help'], ['sync', '--help'], ['status', '--help'], ['contacts', '--help'], ['orders', '--help'], ['export', '--help'], ['sample-api', '--help']];
    const results = await Promise.all(cases.map((args) => cli(args)));
    for (const [i, r] of results.entries()) {
      expect(r.code, cases[i]?.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^Usage: letterdesk/);
    }
  });
});
