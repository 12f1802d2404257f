/**
 * The `letterdesk` CLI as a user runs it: real child processes (`node electron/main/cli/index.ts`),
 * a clean data directory, the sample API started through the CLI itself, real HTTP and SQLite.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../shared/contract.ts';
import { addDays } from '../../shared/serviceParams.ts';
import { createApiClient } from '../../electron/main/api/client.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import { CLI_ENTRY, runCliProcess } from '../helpers/cliProcess.ts';

const ENTRY = CLI_ENTRY;

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
const cli = (args: string[], env: Record<string, string> = {}): Promise<Result> => runCliProcess(dataDir, dir, args, env);

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
    expect(s.resources.contacts).toMatchObject({ source: { origin: new URL(baseUrl).origin, accountId: null } });
    // A profile pointed at another address (as the app's Profiles page does) is told where its copy is from.
    const file = join(dataDir, 'profiles.json');
    const saved = readFileSync(file, 'utf8');
    writeFileSync(file, saved.replaceAll(baseUrl, baseUrl.replace('127.0.0.1', 'localhost')));
    const moved = await cli(['status']);
    writeFileSync(file, saved);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`read from ${new URL(baseUrl).origin}, not the profile's address or account; the next sync replaces it`);
    expect((await cli(['status'])).stdout).not.toContain('read from');

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

    // The same rows as an Excel workbook: by the extension, and by --format; read back by openpyxl.
    for (const [file, extra] of [['found.xlsx', []], ['found-workbook.bin', ['--format', 'xlsx']]] as const) {
      const run = await cli(['export', 'contacts', '--out', file, '--search', first.lastName, '--columns', 'id,lastName,email', '--json', ...extra]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ path: join(dir, file), rows: rows.length, sheets: ['Contacts'] });
      // openpyxl opens only files named .xlsx.
      copyFileSync(join(dir, file), join(dir, 'read-back.xlsx'));
      const book = JSON.parse(execFileSync('/usr/bin/python3', [join(import.meta.dirname, '..', 'helpers', 'readXlsx.py'), join(dir, 'read-back.xlsx'), '--values-only'], { encoding: 'utf8' })) as { sheets: { title: string; rows: unknown[][] }[] };
      expect(book.sheets.map((x) => x.title)).toEqual(['Contacts']);
      expect(book.sheets[0]!.rows).toEqual([['Contact ID', 'Last name', 'Email'], ...parsed.slice(1).map((r) => r.map((v) => (v === '' ? null : v)))]);
    }

    const recipients = await cli(['export', 'recipients', '--out', join(dir, 'recipients.csv'), '--status', '1', '--status', '2', '--json']);
    expect(recipients.code, recipients.stderr).toBe(0);
    const result = JSON.parse(recipients.stdout) as { path: string; rows: number };
    expect(result.path).toBe(join(dir, 'recipients.csv'));
    const recipientRows = parse(readFileSync(result.path, 'utf8')) as string[][];
    expect(recipientRows).toHaveLength(result.rows + 1);

    const orders = await cli(['orders', '--status', '1', '--limit', '1000', '--json']);
    const orderRecords = JSON.parse(orders.stdout) as { id: string; status: number; contacts: unknown[] }[];
    expect(orderRecords.every((o) => o.status === 1)).toBe(true);

    // The templates and campaigns of the cached orders: one row per distinct id the orders carry.
    const everyOrder = JSON.parse((await cli(['orders', '--limit', '1000', '--json'])).stdout) as { template: { id: string }; campaign: { id: string } }[];
    for (const [kind, header, ids] of [
      ['templates', 'Template ID', new Set(everyOrder.map((o) => String(o.template.id)))],
      ['campaigns', 'Campaign ID', new Set(everyOrder.map((o) => String(o.campaign.id)))],
    ] as const) {
      const file = join(dir, `${kind}.csv`);
      const run = await cli(['export', kind, '--out', file, '--json']);
      expect(run.code, run.stderr).toBe(0);
      const table = parse(readFileSync(file, 'utf8')) as string[][];
      const at = table[0]?.indexOf(header) ?? -1;
      expect(at, `${kind}: ${table[0]?.join(',')}`).toBeGreaterThanOrEqual(0);
      expect(new Set(table.slice(1).map((r) => r[at]))).toEqual(ids);
      expect(JSON.parse(run.stdout)).toEqual({ path: file, rows: ids.size });
    }
    const refused = await cli(['export', 'templates', '--out', join(dir, 'x.csv'), '--status', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('The templates export takes --search only');
  });

  it('exit status 2 for usage errors, with a one-line message', async () => {
    const cases = [['contacts', '--sort', 'shoe-size'], ['export', 'people', '--out', 'x.csv'], ['bogus'], ['contacts', '--limit', 'many'], ['export', 'contacts']];
    const results = await Promise.all(cases.map((args) => cli(args)));
    for (const [i, r] of results.entries()) {
      expect(r.code, cases[i]?.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
    // A data folder that is a file: a usage error naming it, before anything is logged or read.
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, '');
    const notFolder = await cli(['--data-dir', file, 'profile', 'list']);
    expect(notFolder.code).toBe(2);
    expect(notFolder.stderr).toBe(`letterdesk: The data folder ${file} is a file, not a folder. Pass --data-dir (or LETTERDESK_DATA_DIR) a folder; it is created if missing.\n`);
    const none = await cli(['--profile', 'Nobody', 'status']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^letterdesk: There is no profile "Nobody"\. Profiles: Sample Shop\.\n$/);
    expect(existsSync(join(dir, 'x.csv'))).toBe(false);
  });

  it('exit status 3 for auth errors, without echoing the token', async () => {
    const wrong = 'wrong-token-1234567890';
    const wrongRefresh = 'wrong-refresh-1234567890';
    // Both tokens given, so the answer is about the tokens being wrong, not about one missing.
    const rejected = await cli(['sync', 'contacts'], { LETTERDESK_ACCESS_TOKEN: wrong, LETTERDESK_REFRESH_TOKEN: wrongRefresh });
    expect(rejected.code).toBe(3);
    expect(rejected.stderr).toMatch(/^letterdesk: .*rejected the .*tokens? \(HTTP 401\)/m);
    expect(rejected.stderr + rejected.stdout).not.toContain(wrong);
    expect(rejected.stderr + rejected.stdout).not.toContain(wrongRefresh);

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

/** Starts the CLI without waiting for it: its output so far, and its exit. */
function startCli(args: string[], env: Record<string, string>, options: { detached?: boolean } = {}) {
  const child = spawn(process.execPath, [ENTRY, '--data-dir', dataDir, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, DBUS_SESSION_BUS_ADDRESS: 'disabled:', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached === true,
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<Result>((resolve) => child.on('exit', (code) => resolve({ code, ...out })));
  const until = async (pattern: RegExp): Promise<void> => {
    for (let i = 0; i < 600 && !pattern.test(out.stderr); i++) await new Promise((r) => setTimeout(r, 50));
    expect(out.stderr).toMatch(pattern);
  };
  return { child, exited, until };
}

describe('letterdesk CLI against a slow service', () => {
  let slow: ChildProcess;
  let slowUrl: string;
  beforeAll(async () => {
    slow = spawn(process.execPath, [ENTRY, 'sample-api', '--contacts', '1200', '--orders', '100', '--seed', '3', '--latency-ms', '400'], { stdio: ['ignore', 'pipe', 'inherit'] });
    slowUrl = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      slow.stdout?.on('data', (c: Buffer) => {
        buffer += c.toString();
        if (buffer.includes('\n')) resolve(buffer.split('\n')[0] as string);
      });
      slow.on('exit', (code) => reject(new Error(`sample-api exited with ${code}`)));
    });
    const add = await cli(['profile', 'add', 'Slow Shop', '--base-url', slowUrl, '--page-size', '100']);
    expect(add.code, add.stderr).toBe(0);
  });
  afterAll(async () => {
    if (slow && slow.exitCode === null) {
      const exited = new Promise((r) => slow.on('exit', r));
      slow.kill('SIGINT');
      await exited;
    }
  });

  it('a resource never synced is a data error (exit 6), also after a first sync that failed, not an empty list', async () => {
    const add = await cli(['profile', 'add', 'Nowhere', '--base-url', 'http://127.0.0.1:1/api/v1']);
    expect(add.code, add.stderr).toBe(0);
    const failed = await cli(['--profile', 'Nowhere', 'sync'], tokens());
    expect(failed.code).toBe(4);
    const list = await cli(['--profile', 'Nowhere', 'contacts']);
    expect(list.code).toBe(6);
    expect(list.stdout).toBe('');
    expect(list.stderr).toMatch(/^letterdesk: Profile "Nowhere" has no cached contacts yet \(the last sync could not read them: .+\)\. Run `letterdesk sync` first\.\n$/);
    const exported = await cli(['--profile', 'Nowhere', 'export', 'contacts', '--out', 'nowhere.csv']);
    expect(exported.code).toBe(6);
    expect(existsSync(join(dir, 'nowhere.csv'))).toBe(false);

    // Contacts synced, orders not: the orders are not "0 orders".
    const contactsOnly = await cli(['--profile', 'Slow Shop', 'sync', 'contacts'], tokens());
    expect(contactsOnly.code, contactsOnly.stderr).toBe(0);
    expect((await cli(['--profile', 'Slow Shop', 'contacts', '--limit', '1'])).code).toBe(0);
    const orders = await cli(['--profile', 'Slow Shop', 'export', 'recipients', '--out', 'r.csv']);
    expect(orders.code).toBe(6);
    expect(orders.stderr).toMatch(/has no cached orders yet\. Run/);
    // The sync process's own lines are in this data directory's cli.log, with the CLI's.
    const log = readFileSync(join(dataDir, 'logs', 'cli.log'), 'utf8');
    expect(log).toMatch(/sync contacts: 1200 rows published in \d+ ms/);
  });

  it('a second sync of the same profile is refused (BUSY, exit 1) while the first goes on', async () => {
    const first = startCli(['--profile', 'Slow Shop', 'sync', 'contacts'], tokens());
    await first.until(/^contacts: fetching/m);
    const second = await cli(['--profile', 'Slow Shop', 'sync'], tokens());
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`^letterdesk: Another Letterdesk \\(process ${first.child.pid}, the app or the command line\\) has been syncing this profile since .+\\. Wait for it to finish, or cancel it there\\. If no Letterdesk is running there, delete .+\\.sqlite\\.sync-lock and try again\\.\\n$`));
    const done = await first.exited;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('contacts: 1,200 rows synced');
    // The log has no sign of the two interfering (a discarded staging, a false drift).
    expect(readFileSync(join(dataDir, 'logs', 'cli.log'), 'utf8')).not.toMatch(/discarded|drift in pass/);
  });

  it('Ctrl+C in a terminal (SIGINT to the whole process group) cancels the sync: exit 130', async () => {
    const run = startCli(['--profile', 'Slow Shop', 'sync', 'contacts'], tokens(), { detached: true });
    await run.until(/^contacts: fetching/m);
    process.kill(-(run.child.pid as number), 'SIGINT');
    const done = await run.exited;
    expect(done.code, done.stderr).toBe(130);
    expect(done.stderr).toMatch(/^letterdesk: The sync was cancelled\. The contacts cached before are still shown, unchanged\./m);
    expect(done.stderr).not.toMatch(/unexpectedly/);
    const status = JSON.parse((await cli(['--profile', 'Slow Shop', 'status', '--json'])).stdout) as { resources: { contacts: { rows: number } } };
    expect(status.resources.contacts.rows).toBe(1200);
    // The next sync is not blocked by the cancelled one.
    expect((await cli(['--profile', 'Slow Shop', 'sync', 'contacts'], tokens())).code).toBe(0);
  });

  it('sample-api refuses an unknown --fault-endpoint (exit 2) instead of running without faults', async () => {
    const bad = await cli(['sample-api', '--server-error-rate', '1', '--fault-endpoint', 'Contacts']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fault-endpoint must be one of contacts, orders/);
  });
});

describe('letterdesk sample-api --clock', () => {
  /** Starts `sample-api` with `args`; resolves with its base URL and a stop function. */
  async function startApi(args: string[]): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
    const child = spawn(process.execPath, [ENTRY, 'sample-api', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout?.on('data', (c: Buffer) => {
        buffer += c.toString();
        if (buffer.includes('\n')) resolve(buffer.split('\n')[0] as string);
      });
      child.on('exit', (code) => reject(new Error(`sample-api exited with ${code}`)));
    });
    return {
      baseUrl,
      stop: async () => {
        if (child.exitCode !== null) return;
        const exited = new Promise((r) => child.on('exit', r));
        child.kill('SIGINT');
        await exited;
      },
    };
  }

  it('dates the data to end at the start of the day given, so its last 30 days find rows', async () => {
    const { baseUrl, stop } = await startApi(['--contacts', '400', '--orders', '50', '--seed', '5', '--clock', '2026-03-15']);
    try {
      const client = createApiClient({ baseUrl, getTokens: async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }) });
      const page = await client.listContacts({ page: 0, pageSize: 400 });
      const created = page.records.map((r) => Date.parse((r.raw as { createdAt: string }).createdAt));
      expect(created).toHaveLength(400);
      expect(Math.max(...created)).toBeLessThan(Date.parse('2026-03-15T00:00:00Z'));
      const lastMailed = async (startDate: string, endDate: string) => (await client.listContacts({ page: 0, pageSize: 1, lastMailedDate: { startDate, endDate } })).count;
      expect(await lastMailed(addDays('2026-03-15', -30), '2026-03-15')).toBeGreaterThan(0);
      // Nothing is dated after its clock: the 30 days before today (later than 15 March) find none.
      expect(await lastMailed('2026-03-16', '2026-12-31')).toBe(0);
    } finally {
      await stop();
    }
  });

  it('refuses a clock that is not a day, saying what it takes', async () => {
    const bad = await cli(['sample-api', '--clock', 'next tuesday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--clock.*give a day as YYYY-MM-DD/);
  });
});
