/**
 * The profile's previews setting: optional in the profiles file (a file written before it existed
 * loads unchanged and means "on"), kept across edits that do not name it.
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
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'letterdesk-previews-setting-'));
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

describe('profile previews setting', () => {
  it('loads a profiles file written before the setting existed, unchanged, with previews on', () => {
    fs.writeFileSync(
      profilesFilePath(dataDir),
      JSON.stringify({
        version: 1,
        activeProfileId: 'old-abc123',
        profiles: [{ id: 'old-abc123', name: 'Old', environment: 'demo', baseUrl: 'https://demo.example.com/api/v1', accountId: null, pageSize: 100, sampleData: false, createdAt: '2025-01-01T00:00:00.000Z' }],
      }),
    );
    const store = ProfileStore.open(dataDir);
    expect(store.loadProblem()).toBeNull();
    const profile = store.get('old-abc123');
    expect(profile?.previews).toBeUndefined();
    expect(profile?.previews !== false).toBe(true);
  });

  it('keeps a setting that was saved, through edits that do not name it', () => {
    const store = ProfileStore.open(dataDir);
    const created = store.save(input());
    expect(created.previews).toBeUndefined();
    const off = store.save(input({ id: created.id, previews: false }));
    expect(off.previews).toBe(false);
    const renamed = store.save(input({ id: created.id, name: 'Acme renamed' }));
    expect(renamed.previews).toBe(false);
    expect(ProfileStore.open(dataDir).get(created.id)?.previews).toBe(false);
    expect(stored().profiles[0]?.previews).toBe(false);
    expect(store.save(input({ id: created.id, previews: true })).previews).toBe(true);
    expect(store.save(input({ name: 'Beta', previews: false })).previews).toBe(false);
  });

  it('is a boolean in the contract: anything else is refused before any work', () => {
    expect(saveProfileInputSchema.safeParse(input({ previews: true })).success).toBe(true);
    expect(saveProfileInputSchema.safeParse(input()).success).toBe(true);
    expect(saveProfileInputSchema.safeParse({ ...input(), previews: 'yes' }).success).toBe(false);
    expect(() => ProfileStore.open(dataDir).save({ ...input(), previews: 'no' } as unknown as ProfileInput)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});
