/**
 * The profile's query-encoding setting: optional in the profiles file (a file written before it
 * existed loads unchanged and means the default), kept across edits that do not name it, and a
 * value a newer version wrote reads as absent instead of damaging the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { saveProfileInputSchema, type ProfileInput } from '../../shared/contract.ts';
import { profilesFilePath } from '../../electron/main/base/paths.ts';
import { ProfileStore } from '../../electron/main/profiles/store.ts';

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-encoding-setting-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const input = (overrides: Partial<ProfileInput> = {}): ProfileInput => ({
  name: 'Acme',
  environment: 'demo',
  baseUrl: 'https://demo.example.com/api/v1',
  accountId: null,
  pageSize: 100,
  ...overrides,
});
const stored = () => JSON.parse(fs.readFileSync(profilesFilePath(dataDir), 'utf8')) as { profiles: Record<string, unknown>[] };
const oldProfile = { id: 'old-abc123', name: 'Old', environment: 'demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, pageSize: 100, sampleData: false, createdAt: '2025-01-01T00:00:00.000Z' };

describe('profile query encoding setting', () => {
  it('loads a profiles file written before the setting existed, unchanged, without one', () => {
    const text = JSON.stringify({ version: 1, activeProfileId: 'old-abc123', profiles: [oldProfile] });
    fs.writeFileSync(profilesFilePath(dataDir), text);
    const store = ProfileStore.open(dataDir);
    expect(store.loadProblem()).toBeNull();
    expect(store.get('old-abc123')?.queryEncoding).toBeUndefined();
    expect(fs.readFileSync(profilesFilePath(dataDir), 'utf8')).toBe(text);
  });

  it('keeps a setting that was saved, through edits that do not name it', () => {
    const store = ProfileStore.open(dataDir);
    const created = store.save(input());
    expect(created.queryEncoding).toBeUndefined();
    expect('queryEncoding' in stored().profiles[0]!).toBe(false);
    const plain = store.save(input({ id: created.id, queryEncoding: { form: 'plain', dateStyle: 'dmy' } }));
    expect(plain.queryEncoding).toEqual({ form: 'plain', dateStyle: 'dmy' });
    const renamed = store.save(input({ id: created.id, name: 'Acme renamed', previews: false }));
    expect(renamed.queryEncoding).toEqual({ form: 'plain', dateStyle: 'dmy' });
    expect(ProfileStore.open(dataDir).get(created.id)?.queryEncoding).toEqual({ form: 'plain', dateStyle: 'dmy' });
    expect(stored().profiles[0]?.queryEncoding).toEqual({ form: 'plain', dateStyle: 'dmy' });
    expect(store.save(input({ id: created.id, queryEncoding: { form: 'encoded', dateStyle: 'ymd' } })).queryEncoding).toEqual({ form: 'encoded', dateStyle: 'ymd' });
    expect(store.save(input({ name: 'Beta', queryEncoding: { form: 'encoded', dateStyle: 'dmy' } })).queryEncoding).toEqual({ form: 'encoded', dateStyle: 'dmy' });
    // a copy: changing what was returned changes nothing stored
    const got = store.get(created.id)!;
    got.queryEncoding!.form = 'plain';
    expect(store.get(created.id)?.queryEncoding?.form).toBe('encoded');
  });

  it('a value written by a newer version reads as absent; the file is not treated as damaged', () => {
    fs.writeFileSync(profilesFilePath(dataDir), JSON.stringify({ version: 1, activeProfileId: null, profiles: [{ ...oldProfile, queryEncoding: { form: 'bracketed', dateStyle: 'ymd' } }, { ...oldProfile, id: 'new-abc123', name: 'New', queryEncoding: { form: 'plain', dateStyle: 'dmy', spaces: '+' } }] }));
    const store = ProfileStore.open(dataDir);
    expect(store.loadProblem()).toBeNull();
    expect(store.get('old-abc123')?.queryEncoding).toBeUndefined();
    expect(store.get('new-abc123')?.queryEncoding).toEqual({ form: 'plain', dateStyle: 'dmy' });
  });

  it('is checked in the contract: anything else is refused before any work', () => {
    expect(saveProfileInputSchema.safeParse(input({ queryEncoding: { form: 'plain', dateStyle: 'ymd' } })).success).toBe(true);
    expect(saveProfileInputSchema.safeParse({ ...input(), queryEncoding: { form: 'plain' } }).success).toBe(false);
    expect(saveProfileInputSchema.safeParse({ ...input(), queryEncoding: { form: 'url', dateStyle: 'ymd' } }).success).toBe(false);
    expect(() => ProfileStore.open(dataDir).save({ ...input(), queryEncoding: 'plain' } as unknown as ProfileInput)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});
