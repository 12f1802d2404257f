/**
 * Names of the order status codes (shared/statusNames.ts): a profile setting that is optional in
 * the profiles file (a file written before it loads unchanged), kept across edits that do not name
 * it, read leniently when a newer version wrote it; and the "Status name" columns of the orders and
 * recipients CSVs, written from a real cache and parsed back with csv-parse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { saveProfileInputSchema, type ProfileInput } from '../../shared/contract.ts';
import { STATUS_COLOURS, defaultStatusColour, statusName, withLearnedNames, type StatusNames } from '../../shared/statusNames.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { runExport } from '../../electron/main/export/run.ts';
import { profilesFilePath } from '../../electron/main/base/paths.ts';
import { ProfileStore } from '../../electron/main/profiles/store.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi } from '../../electron/main/sampleApi/server.ts';

const NAMES: StatusNames = { '1': { name: 'Received', colour: 'grey' }, '5': { name: 'Delivered', colour: 'green' }, '-1': { name: 'Cancelled "hard"', colour: 'red' } };

describe('statusName', () => {
  it('names a named code, reads "Status N" for the others and nothing for a missing code', () => {
    expect(statusName(5, NAMES)).toBe('Delivered');
    expect(statusName(-1, NAMES)).toBe('Cancelled "hard"');
    expect(statusName(3, NAMES)).toBe('Status 3');
    expect(statusName(3)).toBe('Status 3');
    expect(statusName(null, NAMES)).toBe('');
    // Only the profile's own entries, never an object's inherited keys.
    expect(statusName(0, { ...NAMES })).toBe('Status 0');
  });
});

describe('learned names', () => {
  it("fill the codes the profile leaves unnamed; the profile's own names win", () => {
    const merged = withLearnedNames(NAMES, { '1': 'On hold', '4': 'Mailed' });
    expect(statusName(1, merged)).toBe('Received');
    expect(statusName(4, merged)).toBe('Mailed');
    expect(merged['1']).toEqual(NAMES['1']);
    expect(statusName(2, merged)).toBe('Status 2');
    expect(withLearnedNames(undefined, null)).toEqual({});
  });

  it('a learned name gets the same colour every time, never the unnamed grey', () => {
    const names = ['On hold', 'Scheduled', 'Processing', 'Mailed', 'Canceled'];
    const colours = names.map(defaultStatusColour);
    expect(colours).toEqual(names.map(defaultStatusColour));
    expect(defaultStatusColour('MAILED')).toBe(defaultStatusColour('mailed'));
    for (const c of colours) expect(STATUS_COLOURS.filter((x) => x !== 'grey')).toContain(c);
    expect(new Set(colours).size).toBeGreaterThan(2);
  });
});

describe('the profile setting', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-status-names-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const input = (overrides: Partial<ProfileInput> = {}): ProfileInput => ({ name: 'Acme', environment: 'demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, pageSize: 100, ...overrides });
  const oldProfile = { id: 'old-abc123', name: 'Old', environment: 'demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, pageSize: 100, sampleData: false, createdAt: '2025-01-01T00:00:00.000Z' };

  it('loads a file written before the setting existed, unchanged, without names', () => {
    const text = JSON.stringify({ version: 1, activeProfileId: null, profiles: [oldProfile] });
    fs.writeFileSync(profilesFilePath(dataDir), text);
    const store = ProfileStore.open(dataDir);
    expect(store.loadProblem()).toBeNull();
    expect(store.get('old-abc123')?.statusNames).toBeUndefined();
    expect(fs.readFileSync(profilesFilePath(dataDir), 'utf8')).toBe(text);
  });

  it('is kept through edits that do not name it, replaced by ones that do, and copied out', () => {
    const store = ProfileStore.open(dataDir);
    const created = store.save(input({ statusNames: NAMES }));
    expect(created.statusNames).toEqual(NAMES);
    expect(store.save(input({ id: created.id, name: 'Acme 2', previews: false })).statusNames).toEqual(NAMES);
    expect(ProfileStore.open(dataDir).get(created.id)?.statusNames).toEqual(NAMES);
    const got = store.get(created.id)!;
    got.statusNames!['5']!.name = 'changed outside';
    expect(store.get(created.id)?.statusNames?.['5']?.name).toBe('Delivered');
    expect(store.save(input({ id: created.id, name: 'Acme 2', statusNames: { '2': { name: ' Printed ', colour: 'blue' } } })).statusNames).toEqual({ '2': { name: 'Printed', colour: 'blue' } });
    expect(store.save(input({ id: created.id, name: 'Acme 2', statusNames: {} })).statusNames).toEqual({});
  });

  it('refuses codes that are not whole numbers, empty names, unknown colours and too many entries', () => {
    const ok = (statusNames: unknown) => saveProfileInputSchema.safeParse({ ...input(), statusNames }).success;
    expect(ok(NAMES)).toBe(true);
    expect(ok({ x: { name: 'A', colour: 'blue' } })).toBe(false);
    expect(ok({ '01': { name: 'A', colour: 'blue' } })).toBe(false);
    expect(ok({ '1.5': { name: 'A', colour: 'blue' } })).toBe(false);
    expect(ok({ '1': { name: '  ', colour: 'blue' } })).toBe(false);
    expect(ok({ '1': { name: 'A', colour: '#ff0000' } })).toBe(false);
    expect(ok({ '1': { name: 'A', colour: 'blue', extra: 1 } })).toBe(false);
    expect(ok(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [String(i), { name: 'A', colour: 'blue' }])))).toBe(false);
  });

  it('reads what a newer version wrote leniently: an unknown colour as grey, a malformed entry dropped, the file not damaged', () => {
    const names = { '1': { name: 'Ok', colour: 'magenta' }, '2': { name: 'Fine', colour: 'teal' }, x: { name: 'Bad code', colour: 'red' }, '3': 'not a name' };
    fs.writeFileSync(profilesFilePath(dataDir), JSON.stringify({ version: 1, activeProfileId: null, profiles: [{ ...oldProfile, statusNames: names }] }));
    const store = ProfileStore.open(dataDir);
    expect(store.loadProblem()).toBeNull();
    expect(store.get('old-abc123')?.statusNames).toEqual({ '1': { name: 'Ok', colour: 'grey' }, '2': { name: 'Fine', colour: 'teal' } });
  });
});

describe('"Status name" columns of the CSV exports', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-status-csv-'));
  const file = path.join(dir, 'cache.sqlite');
  beforeAll(async () => {
    const api = await startSampleApi({ contacts: 500, orders: 300, seed: 9 });
    const db = openCache(file);
    try {
      const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } }), { resources: ['contacts', 'orders'], pageSize: 300 });
      expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
    } finally {
      db.close();
      await api.close();
    }
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('name each order\'s code as the request names it, else "Status N", beside the code', async () => {
    const db = openCache(file);
    try {
      const statuses = db.prepare('SELECT DISTINCT status FROM orders ORDER BY 1').pluck().all() as number[];
      expect(statuses.length).toBeGreaterThan(2);
      const names: StatusNames = { [String(statuses[0])]: { name: '=Received, "first"', colour: 'grey' }, [String(statuses[1])]: { name: 'Printed', colour: 'blue' } };
      const options = { delimiter: 'comma' as const, bom: false, neutralizeFormulas: false };
      const orders = path.join(dir, 'orders.csv');
      await runExport(db, { kind: 'orders', query: null, columns: null, options, statusNames: names }, orders);
      const rows = parse(fs.readFileSync(orders, 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(300);
      const header = Object.keys(rows[0]!);
      expect(header.indexOf('Status name')).toBe(header.indexOf('Status') + 1);
      for (const r of rows) expect(r['Status name'], r['Order ID']).toBe(statusName(Number(r.Status), names));
      expect(new Set(rows.map((r) => r['Status name']))).toEqual(new Set(statuses.map((s) => statusName(s, names))));

      const recipients = path.join(dir, 'recipients.csv');
      await runExport(db, { kind: 'recipients', query: { statuses: [statuses[1]!, statuses[2]!] }, columns: ['orderId', 'orderStatus', 'orderStatusName', 'contactId'], options, statusNames: names }, recipients);
      const rrows = parse(fs.readFileSync(recipients, 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rrows.length).toBeGreaterThan(0);
      for (const r of rrows) expect(r['Order status name']).toBe(statusName(Number(r['Order status']), names));
      expect(new Set(rrows.map((r) => r['Order status name']))).toEqual(new Set(['Printed', `Status ${statuses[2]}`]));

      // Without names every code reads "Status N".
      const plain = path.join(dir, 'plain.csv');
      await runExport(db, { kind: 'orders', query: null, columns: ['status', 'statusName'], options }, plain);
      for (const r of parse(fs.readFileSync(plain, 'utf8'), { columns: true }) as Record<string, string>[]) expect(r['Status name']).toBe(`Status ${r.Status}`);
    } finally {
      db.close();
    }
  });
});
