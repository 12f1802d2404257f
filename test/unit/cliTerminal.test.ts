/**
 * Service data never drives the terminal: a contact whose fields hold escape sequences (window
 * title, clipboard write, cursor moves), a bell, C1 controls and a bidi override is synced by the
 * real CLI from a loopback service; its table output holds none of those characters, while
 * `--json` still prints every field exactly.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cliProcess.ts';

const HOSTILE_NAME = 'Eve\u001b]0;owned\u0007\u001b[2J\u001b]52;c;ZWNobyBwd25lZA==\u0007';
const HOSTILE_COMPANY = 'Acme\u202Eevil\u009b31m\u0085Corp\u200B';

const contact = {
  id: '9001', firstName: 'Eve', lastName: 'Mallory', fullName: HOSTILE_NAME, companyName: HOSTILE_COMPANY,
  address1: '1 Main St', address2: '', city: 'Columbus', state: 'Ohio', zip: '43004', phoneNo: '6145550100', extension: '',
  websiteUrl: '', orgId: '1', email: 'eve@example.com', isVerified: true, isLiveMode: false,
  ContactLabels: [{ id: '5', title: 'VIP\u001b[31m' }], createdAt: '2024-03-01T10:00:00.000Z',
};

let dir: string;
let server: http.Server;
let baseUrl: string;

const cli = (args: string[]) => runCliProcess(join(dir, 'data'), dir, args, { LETTERDESK_ACCESS_TOKEN: 'test-token-123456' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-term-'));
  server = http.createServer((req, res) => {
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 0);
    const rows = req.url?.startsWith('/api/v1/contacts') && page === 0 ? [contact] : [];
    const count = req.url?.startsWith('/api/v1/contacts') ? 1 : 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'Success', data: { count, rows } }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  expect((await cli(['profile', 'add', 'Hostile', '--base-url', baseUrl])).code).toBe(0);
  const sync = await cli(['sync']);
  expect(sync.code, sync.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

describe('terminal output of service data', () => {
  it('the contacts table shows no control or format character', async () => {
    const table = await cli(['contacts']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Eve');
    expect(table.stdout).not.toMatch(/[\p{Cc}\p{Cf}](?<!\n)/u);
    expect(table.stdout).toContain('\uFFFD');
  });

  it('--json keeps every field exactly as the service sent it', async () => {
    const json = await cli(['contacts', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const [record] = JSON.parse(json.stdout) as (typeof contact)[];
    expect(record?.fullName).toBe(HOSTILE_NAME);
    expect(record?.companyName).toBe(HOSTILE_COMPANY);
    expect(record?.ContactLabels[0]?.title).toBe('VIP\u001b[31m');
  });
});
