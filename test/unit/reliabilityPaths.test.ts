/**
 * Requirement: "Base URLs, profile names, file paths for export: validated with clear errors (no writing
 * outside the chosen file, no path tricks in generated file names)."
 *
 *  - `normalizeBaseUrl` over generated and hand-picked hostile inputs: either a VALIDATION error
 *    whose message names the problem, or an address that is https (http only to loopback), has no
 *    credentials, query or fragment, and ends in /api/v1;
 *  - profile names of any text (path tricks, control characters, RTL overrides) are only labels:
 *    through the real `saveProfile` call the id and the cache path stay inside the data directory,
 *    and the default export file name is one plain file name;
 *  - `runExport` refuses relative paths, NUL bytes, missing folders and folders; it writes exactly
 *    the chosen file (resolving `..`), leaves every other file in the folder alone, and replaces a
 *    symlink at the chosen name instead of writing through it to another file.
 * Seeded: LETTERDESK_FUZZ_SEED replays.
 */
import fc from 'fast-check';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPORT_KINDS, type ExportRequest } from '../../shared/contract.ts';
import { isLetterdeskError } from '../../shared/errors.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { defaultExportFileName, runExport } from '../../electron/main/export/run.ts';
import { cacheFilePath } from '../../electron/main/base/paths.ts';
import { isLoopbackHost } from '../../shared/loopback.ts';
import { normalizeBaseUrl } from '../../electron/main/profiles/baseUrl.ts';
import { ProfileStore } from '../../electron/main/profiles/store.ts';
import { RUNS, SEED } from '../reliability/fuzz.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-rel-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function outcome(fn: () => unknown): { value?: unknown; code?: string; message?: string } {
  try {
    return { value: fn() };
  } catch (error) {
    if (!isLetterdeskError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

const hostileUrl = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withUserInfo: true, withPort: true, withIPv4: true, withIPv6: true } }),
  fc.webUrl().map((u) => `${u.replace(/\/+$/, '')}/api/v1`),
  fc.tuple(
    fc.constantFrom('http', 'https', 'HTTPS', 'javascript', 'file', 'data', 'ftp', 'ws', ' http', 'http:'),
    fc.constantFrom('127.0.0.1', 'localhost', '[::1]', '127.0.0.1.evil.com', 'localhost.evil.com', 'evil.com', '0x7f000001', '2130706433', '[::ffff:127.0.0.1]', 'user:pw@127.0.0.1', '127.0.0.1@evil.com', 'evil.com#@127.0.0.1', '%31%32%37.0.0.1', 'ⓛⓞⓒⓐⓛⓗⓞⓢⓣ'),
    fc.constantFrom('/api/v1', '/api/v1/', '/api/v2', '/api/v1/../v2', '/api/v1?x=1', '/api/v1#f', '//api/v1', '/x/api/v1', '/API/V1', '', '/api/v1%2F..'),
  ).map(([scheme, host, path]) => `${scheme}://${host}${path}`),
  fc.string({ maxLength: 100, unit: 'binary' }),
);

describe('base URLs', () => {
  it('every input is either refused with a VALIDATION message naming the problem, or normalised to a safe /api/v1 address', () => {
    fc.assert(
      fc.property(hostileUrl, (raw) => {
        const r = outcome(() => normalizeBaseUrl(raw));
        if (r.code !== undefined) {
          expect(r.code).toBe('VALIDATION');
          expect(r.message).toMatch(/^The base URL /);
          expect(r.message!.length).toBeLessThan(500);
          return;
        }
        const url = new URL(r.value as string);
        expect(['https:', 'http:']).toContain(url.protocol);
        if (url.protocol === 'http:') expect(isLoopbackHost(url.hostname), `${raw} → ${String(r.value)}`).toBe(true);
        expect(url.username + url.password + url.search + url.hash).toBe('');
        expect(url.pathname).toMatch(/\/api\/v1$/);
        expect(normalizeBaseUrl(r.value as string), 'normalising is idempotent').toBe(r.value);
      }),
      { seed: SEED, numRuns: RUNS * 10 },
    );
  });

  it('refuses the classic tricks with a message that says what to do', () => {
    for (const raw of [
      'http://127.0.0.1.evil.com/api/v1',
      'http://localhost.evil.com/api/v1',
      'http://127.0.0.1@evil.com/api/v1',
      'http://evil.com#@127.0.0.1/api/v1',
      'http://evil.com/api/v1',
      'https://user:secret@api.example.com/api/v1',
      'javascript:alert(1)//api/v1',
      'file:///etc/api/v1',
      'data:text/plain,/api/v1',
      'https://api.example.com/api/v1/../v2',
      'https://api.example.com/api/v1?token=x',
      'https://api.example.com/',
    ]) {
      const r = outcome(() => normalizeBaseUrl(raw));
      expect(r.code, raw).toBe('VALIDATION');
      expect(r.message, raw).toMatch(/https|api\/v1|user name|query|web address/);
    }
    expect(normalizeBaseUrl(' HTTPS://API.Example.com/api/v1/ ')).toBe('https://api.example.com/api/v1');
    expect(normalizeBaseUrl('http://[::1]:8080/api/v1')).toBe('http://[::1]:8080/api/v1');
  });
});

describe('profile names and generated file names', () => {
  const hostileName = fc.oneof(
    fc.constantFrom('../../etc/passwd', '..', '.', '/', '\\\\server\\share', 'C:\\Windows\\system32', 'CON', 'nul', 'a/b', 'x\u0000y', '\u202Egnp.exe', '<script>alert(1)</script>', '  padded  ', '😀 emoji', 'Ωmega Ünïcode', '-rf --no-preserve-root'),
    fc.string({ minLength: 1, maxLength: 80, unit: 'binary' }),
  );

  it('the default export file name is one plain file name for any profile name and kind', () => {
    fc.assert(
      fc.property(hostileName, fc.constantFrom(...EXPORT_KINDS), fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), (name, kind, date) => {
        const file = defaultExportFileName(name, kind, date);
        expect(file).toMatch(new RegExp(`^letterdesk-[\\p{L}\\p{N}-]+-${kind}-\\d{4}-\\d{2}-\\d{2}\\.csv$`, 'u'));
        expect(basename(file)).toBe(file);
        expect(file).not.toMatch(/\.\.|[\\/:*?"<>|\u202a-\u202e]/);
        expect([...file].every((ch) => ch.charCodeAt(0) >= 0x20), 'no control characters').toBe(true);
        expect(file.length).toBeLessThanOrEqual(100);
      }),
      { seed: SEED, numRuns: RUNS * 5 },
    );
  });

  it('any profile name is only a label: ids and cache files stay inside the data directory', () => {
    const dataDir = join(root, 'profiles');
    const store = ProfileStore.open(dataDir);
    fc.assert(
      fc.property(hostileName, (name) => {
        const r = outcome(() => store.save({ name, environment: 'custom', baseUrl: 'https://api.example.com/api/v1', accountId: null, pageSize: 100 }));
        if (r.code !== undefined) {
          expect(['VALIDATION'], `${JSON.stringify(name)}: ${r.message}`).toContain(r.code);
          return;
        }
        const profile = r.value as { id: string; name: string };
        expect(profile.id).toMatch(/^[a-z0-9-]{1,64}$/);
        const file = cacheFilePath(dataDir, profile.id);
        const rel = relative(dataDir, file);
        expect(rel.startsWith('..') || rel.includes(`..${sep}`), `${file} escapes ${dataDir}`).toBe(false);
        store.remove(profile.id, { purgeCache: false });
      }),
      { seed: SEED, numRuns: RUNS * 2 },
    );
    expect(readdirSync(dataDir).filter((n) => !n.startsWith('profiles.json'))).toEqual([]);
  });
});

describe('export file paths', () => {
  const request: ExportRequest = { kind: 'contacts', query: null, columns: null, options: { delimiter: 'comma', bom: false, neutralizeFormulas: true } };
  const cacheFile = join(root, 'cache.sqlite');
  const db = openCache(cacheFile);
  afterAll(() => db.close());

  it('refuses relative paths, NUL bytes, missing folders and folders with VALIDATION, writing nothing', async () => {
    const folder = mkdtempSync(join(root, 'refuse-'));
    mkdirSync(join(folder, 'a-folder'));
    for (const path of ['relative.csv', './x.csv', '../x.csv', `${folder}/x\u0000.csv`, join(folder, 'missing', 'x.csv'), join(folder, 'a-folder'), '']) {
      await expect(runExport(db, request, path, {}), JSON.stringify(path)).rejects.toMatchObject({ code: 'VALIDATION' });
    }
    expect(readdirSync(folder)).toEqual(['a-folder']);
    expect(readdirSync(join(folder, 'a-folder'))).toEqual([]);
  });

  it('writes exactly the chosen file (.. resolved), and nothing else in the folder changes', async () => {
    const folder = mkdtempSync(join(root, 'write-'));
    mkdirSync(join(folder, 'sub'));
    writeFileSync(join(folder, 'neighbour.csv'), 'keep me');
    const result = await runExport(db, request, `${folder}/sub/../chosen.csv`, {});
    expect(result.rows).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['chosen.csv', 'neighbour.csv', 'sub']);
    expect(readdirSync(join(folder, 'sub'))).toEqual([]);
    expect(readFileSync(join(folder, 'neighbour.csv'), 'utf8')).toBe('keep me');
    expect(readFileSync(join(folder, 'chosen.csv'), 'utf8')).toMatch(/\r\n$/);
  });

  it('a symlink at the chosen name is replaced, never written through to the file it points at', async () => {
    const folder = mkdtempSync(join(root, 'link-'));
    const outside = mkdtempSync(join(root, 'outside-'));
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'do not overwrite');
    symlinkSync(secret, join(folder, 'chosen.csv'));
    await runExport(db, request, join(folder, 'chosen.csv'), {});
    expect(readFileSync(secret, 'utf8')).toBe('do not overwrite');
    expect(lstatSync(join(folder, 'chosen.csv')).isSymbolicLink()).toBe(false);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(existsSync(resolve(folder, 'chosen.csv'))).toBe(true);
  });
});
