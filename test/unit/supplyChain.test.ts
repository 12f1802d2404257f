// The install-script policy in package.json (npm's `allowScripts`): every dependency npm would run
// an install script for is decided explicitly, approvals are pinned to the exact version that was
// reviewed (a later release's script needs a new review), and the lockfile keeps the registry
// address npm checks a pin against.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; resolved?: string; hasInstallScript?: boolean; link?: boolean; inBundle?: boolean; name?: string }>;
};

const EXACT_PIN = /^((?:@[a-z0-9._-]+\/)?[a-z0-9._-]+)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;
const BARE_NAME = /^(?:@[a-z0-9._-]+\/)?[a-z0-9._-]+$/;

/** Every package of the lockfile: its path, name and entry. */
const packages = Object.entries(lock.packages)
  .filter(([path]) => path !== '')
  .map(([path, entry]) => ({ path, name: entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), entry }));

/**
 * Packages npm runs an install script for: the lockfile says so, or the package ships a
 * binding.gyp (npm then runs an implicit `node-gyp rebuild`, even for better-sqlite3, whose
 * `gypfile: false` the lockfile honours but the installer does not).
 */
const withInstallScripts = packages.filter(({ path, entry }) => entry.hasInstallScript === true || existsSync(join(root, path, 'binding.gyp')));

describe('install scripts (package.json allowScripts)', () => {
  const policy = Object.entries(pkg.allowScripts ?? {});

  it('approvals are pinned to one exact version; denials name the package (any version)', () => {
    expect(policy.length).toBeGreaterThan(0);
    for (const [key, allowed] of policy) {
      if (allowed) expect(key, `${key}: approve one exact version, e.g. ${key.split('@')[0]}@1.2.3`).toMatch(EXACT_PIN);
      else expect(key, `${key}: a denial names the package without a version`).toMatch(BARE_NAME);
    }
  });

  it('every package with an install script is decided, and no entry is stale', () => {
    expect(withInstallScripts.map((p) => p.name).sort()).toEqual(expect.arrayContaining(['better-sqlite3', 'es5-ext', 'keytar']));
    const covers = (key: string, allowed: boolean, p: (typeof packages)[number]) => {
      if (!allowed) return key === p.name;
      const pin = EXACT_PIN.exec(key);
      return pin !== null && pin[1] === p.name && pin[2] === p.entry.version;
    };
    const undecided = withInstallScripts.filter((p) => !policy.some(([key, allowed]) => covers(key, allowed, p)));
    expect(undecided.map((p) => `${p.name}@${p.entry.version ?? '?'}`), 'add an exact approval (after reviewing the script) or a denial').toEqual([]);
    const stale = policy.filter(([key, allowed]) => !withInstallScripts.some((p) => covers(key, allowed, p)));
    expect(stale.map(([key]) => key), 'entries that match no installed package with an install script').toEqual([]);
  });

  it('the lockfile keeps each package’s registry address, which npm checks a pinned approval against', () => {
    const missing = packages.filter(({ entry }) => !entry.link && !entry.inBundle && !entry.resolved).map((p) => p.path);
    expect(missing, 'regenerate the lockfile with omit-lockfile-registry-resolved=false (.npmrc)').toEqual([]);
    for (const [key, allowed] of policy) {
      if (!allowed) continue;
      const [, name, version] = EXACT_PIN.exec(key)!;
      const base = name!.split('/').pop();
      const entry = packages.find((p) => p.name === name && p.entry.version === version)?.entry;
      expect(entry?.resolved, key).toBe(`https://registry.npmjs.org/${name}/-/${base}-${version}.tgz`);
    }
    expect(readFileSync(join(root, '.npmrc'), 'utf8')).toMatch(/^omit-lockfile-registry-resolved=false$/m);
  });
});
