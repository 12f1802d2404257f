/**
 * The install-script policy as npm enforces it with this repository's `.npmrc`: a real
 * `npm install` of a temp project (its `.npmrc` a copy of ours) from a loopback registry, whose
 * packages each write a marker file from their `postinstall` script. An approved pin runs, a
 * denied package is skipped without failing the install, and a package the policy does not name
 * (or an approved package at another version) fails the install before any script runs.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** The packages the loopback registry serves: name → versions. */
const PUBLISHED: Record<string, string[]> = { approved: ['1.0.0', '1.0.1'], denied: ['1.0.0'], unlisted: ['1.0.0'] };
/** The policy of the temp project, shaped like ours: exact approvals, bare-name denials. */
const POLICY = { 'approved@1.0.0': true, denied: false };

let dir: string;
let server: http.Server;
let registry: string;
/** Tarball bytes by `<name>-<version>.tgz`. */
const tarballs = new Map<string, Buffer>();

/** Runs a command to its end without blocking the loopback registry in this process. */
const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  new Promise<{ code: number | null; out: string }>((ok, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', fail);
    child.on('close', (code) => ok({ code, out }));
  });

/** A package.json whose postinstall script writes `$MARKERS/<name>@<version>`. */
const manifest = (name: string, version: string) => ({
  name,
  version,
  scripts: { postinstall: `node -e "require('fs').writeFileSync(require('path').join(process.env.MARKERS, '${name}@${version}'), 'ran')"` },
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-install-scripts-'));
  for (const [name, versions] of Object.entries(PUBLISHED)) {
    for (const version of versions) {
      const src = join(dir, 'src', `${name}-${version}`);
      mkdirSync(src, { recursive: true });
      writeFileSync(join(src, 'package.json'), JSON.stringify(manifest(name, version)));
      const packed = await run('npm', ['pack', '--silent', '--pack-destination', join(dir, 'src')], src);
      expect(packed.code, packed.out).toBe(0);
      tarballs.set(`${name}-${version}.tgz`, readFileSync(join(dir, 'src', `${name}-${version}.tgz`)));
    }
  }
  server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const tgz = /^\/([^/]+)\/-\/([^/]+\.tgz)$/.exec(path);
    if (tgz && tarballs.has(tgz[2]!)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarballs.get(tgz[2]!));
      return;
    }
    const name = path.slice(1);
    const versions = PUBLISHED[name];
    if (!versions) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const entries = versions.map((version) => {
      const bytes = tarballs.get(`${name}-${version}.tgz`)!;
      const dist = {
        tarball: `${registry}${name}/-/${name}-${version}.tgz`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      };
      return [version, { ...manifest(name, version), dist }] as const;
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name, 'dist-tags': { latest: versions.at(-1) }, versions: Object.fromEntries(entries) }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Installs `deps` (name → exact version) into a fresh temp project with this repository's
 * `.npmrc` and {@link POLICY}; returns npm's exit code and output and the markers written.
 */
async function install(label: string, deps: Record<string, string>) {
  const project = join(dir, label);
  const markers = join(project, 'markers');
  mkdirSync(markers, { recursive: true });
  copyFileSync(join(root, '.npmrc'), join(project, '.npmrc'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: label, version: '1.0.0', private: true, dependencies: deps, allowScripts: POLICY }));
  // The user's own npm settings (userconfig) must not decide the outcome: only the project's .npmrc and the registry.
  const env = { ...process.env, MARKERS: markers, npm_config_registry: registry, npm_config_cache: join(dir, 'cache'), npm_config_userconfig: join(dir, 'no-user-npmrc') };
  const result = await run('npm', ['install', '--no-audit', '--no-fund'], project, env);
  return { ...result, ran: readdirSync(markers).sort(), installed: (name: string) => existsSync(join(project, 'node_modules', name)) };
}

describe('install scripts under the repository .npmrc', () => {
  it('the repository .npmrc turns an unnamed install script into a failed install', () => {
    expect(readFileSync(join(root, '.npmrc'), 'utf8')).toMatch(/^strict-allow-scripts=true$/m);
  });

  it('runs an approved pin and skips a denied package without failing', async () => {
    const result = await install('decided', { approved: '1.0.0', denied: '1.0.0' });
    expect(result.code, result.out).toBe(0);
    expect(result.ran).toEqual(['approved@1.0.0']);
    expect(result.installed('denied')).toBe(true);
  });

  it('fails the install of a package the policy does not name, and runs no script', async () => {
    const result = await install('unlisted', { approved: '1.0.0', unlisted: '1.0.0' });
    expect(result.ran, 'postinstall scripts that ran').toEqual([]);
    expect(result.code, result.out).not.toBe(0);
    expect(result.out).toContain('ESTRICTALLOWSCRIPTS');
    expect(result.out).toContain('unlisted@1.0.0');
  });

  it('fails the install of an approved package at a version nobody reviewed', async () => {
    const result = await install('newer', { approved: '1.0.1' });
    expect(result.ran, 'postinstall scripts that ran').toEqual([]);
    expect(result.code, result.out).not.toBe(0);
    expect(result.out).toContain('ESTRICTALLOWSCRIPTS');
    expect(result.out).toContain('approved@1.0.1');
  });
});
