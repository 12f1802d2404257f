/**
 * `--json` output never drives the terminal either: a loopback service serves a contact and an
 * order whose fields hold escape sequences, C1 controls, DEL, bidi overrides, line and paragraph
 * separators and astral format characters; the real CLI syncs them and prints them with `--json`
 * (from the cache, live from the service, and a profile and status document). The raw bytes of
 * stdout hold no control or format character but the line break, and `JSON.parse` gives back
 * the service's exact strings.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalSafeJson } from '../../electron/main/cli/output.ts';
import { runCliProcess } from '../helpers/cliProcess.ts';

const HOSTILE_NAME = 'Eve\u001b]0;owned\u0007\u001b[2J\u001b]52;c;ZWNobyBwd25lZA==\u0007\u007f';
const HOSTILE_COMPANY = 'Acme\u202Eevil\u202C\u009b31m\u0085Corp\u200B\u2066x\u2069';
const HOSTILE_CITY = 'Line\u2028Para\u2029Tag\u{E0001}\u{E0041}Music\u{1D173}\uFEFFEnd\u0090\u009d';
const HOSTILE_LABEL = 'VIP\u001b[31m\u0080\u009f';
const HOSTILE_CAMPAIGN = 'Spring\u001b[1A\u001b[2K\u202Dsale\u00ad';
/** A profile name (the user's own text) with a bidi override: it goes through the same output. */
const PROFILE_NAME = 'Hostile\u202Eeliforp';

const contact = {
  id: '9001', firstName: 'Eve', lastName: 'Mallory', fullName: HOSTILE_NAME, companyName: HOSTILE_COMPANY,
  address1: '1 Main St', address2: '', city: HOSTILE_CITY, state: 'Ohio', zip: '43004', phoneNo: '6145550100', extension: '',
  websiteUrl: '', orgId: '1', email: 'eve@example.com', isVerified: true, isLiveMode: false,
  ContactLabels: [{ id: '5', title: HOSTILE_LABEL }], createdAt: '2024-03-01T10:00:00.000Z',
};

/** Every character that must not reach the terminal raw: Cc but the line break, Cf, U+2028, U+2029. */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029](?<!\n)/u;

let dir: string;
let server: http.Server;
let baseUrl: string;
let orders: Record<string, unknown>[] = [];

const cli = (args: string[]) => runCliProcess(join(dir, 'data'), dir, args, { LETTERDESK_ACCESS_TOKEN: 'test-token-123456' });

/** Runs the CLI, checks it succeeded and that stdout is terminal-safe, and returns the parsed JSON. */
async function json(args: string[]): Promise<unknown> {
  const run = await cli(args);
  expect(run.code, run.stderr).toBe(0);
  const bytes = Buffer.from(run.stdout, 'utf8');
  const unsafe = [...run.stdout].filter((c) => UNSAFE.test(c)).map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  expect(unsafe, `raw characters in the stdout of ${args.join(' ')}`).toEqual([]);
  // The C1 controls as UTF-8 (C2 80 … C2 9F) and ESC as a byte, checked on the bytes as well.
  expect(bytes.includes(0x1b)).toBe(false);
  for (let b = 0x80; b <= 0x9f; b++) expect(bytes.includes(Buffer.from([0xc2, b])), `C2 ${b.toString(16)}`).toBe(false);
  return JSON.parse(run.stdout) as unknown;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-cli-json-'));
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page = Number(url.searchParams.get('page') ?? 0);
    const path = url.pathname.replace(/\/$/, '');
    const resource = path.endsWith('/contacts') ? [contact] : path.endsWith('/orders') ? orders : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'Success', data: { count: resource.length, rows: page === 0 ? resource : [] } }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  orders = [
    {
      id: '7001', status: 3, useType: 'single', campaign: { name: HOSTILE_CAMPAIGN, description: HOSTILE_NAME }, createdAt: '2024-03-02T10:00:00.000Z',
      contacts: [{ contactId: '9001', fullName: HOSTILE_NAME, companyName: HOSTILE_COMPANY, isDelivered: true }],
    },
  ];
  expect((await cli(['profile', 'add', PROFILE_NAME, '--base-url', baseUrl])).code).toBe(0);
  const sync = await cli(['sync']);
  expect(sync.code, sync.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

describe('--json output of service data', () => {
  it('cached contacts: escaped on the wire, exact when parsed', async () => {
    const [record] = (await json(['contacts', '--json'])) as (typeof contact)[];
    expect(record?.fullName).toBe(HOSTILE_NAME);
    expect(record?.companyName).toBe(HOSTILE_COMPANY);
    expect(record?.city).toBe(HOSTILE_CITY);
    expect(record?.ContactLabels[0]?.title).toBe(HOSTILE_LABEL);
  });

  it('astral format characters are written as their surrogate pairs', async () => {
    const run = await cli(['contacts', '--json']);
    expect(run.stdout).toContain('Music\\uD834\\uDD73');
    expect(run.stdout).toContain('Tag\\uDB40\\uDC01\\uDB40\\uDC41');
    expect(run.stdout).toContain('Eve\\u001b]0;owned\\u0007');
    expect(run.stdout).toContain('Acme\\u202Eevil\\u202C\\u009B31m\\u0085Corp');
  });

  it('cached orders and a live query: exact when parsed', async () => {
    const [order] = (await json(['orders', '--json'])) as { campaign: { name: string; description: string } }[];
    expect(order?.campaign).toEqual({ name: HOSTILE_CAMPAIGN, description: HOSTILE_NAME });
    const live = (await json(['query', 'contacts', '--json'])) as (typeof contact)[];
    expect(live).toEqual([contact]);
  });

  it('profile and status documents: exact when parsed', async () => {
    const { profiles } = (await json(['profile', 'list', '--json'])) as { profiles: { name: string }[] };
    expect(profiles.map((p) => p.name)).toEqual([PROFILE_NAME]);
    const status = (await json(['status', '--json'])) as { profile: { name: string } };
    expect(status.profile.name).toBe(PROFILE_NAME);
  });
});

describe('terminalSafeJson', () => {
  it('leaves no unsafe character in JSON of every code point, and keeps its value', () => {
    let every = '';
    for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) every += String.fromCodePoint(cp);
    const value = { every, nested: [every.slice(0, 300)] };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2), '{\t"a" :\r\n"\u0085"}']) {
      const safe = terminalSafeJson(text);
      expect(UNSAFE.test(safe)).toBe(false);
      expect(JSON.parse(safe)).toEqual(JSON.parse(text));
    }
  });
});
