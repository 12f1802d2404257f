/**
 * `npm start` without the Electron binary says what is missing and how to get it. The check runs on
 * real folders shaped like the `electron` package, and as the script npm runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { electronBinaryProblem } from '../../electron/main/app/electronBinary.ts';

const SCRIPT = resolve(import.meta.dirname, '../../electron/main/app/electronBinary.ts');
const root = mkdtempSync(join(tmpdir(), 'ld-electron-bin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function electronPackage(name: string, options: { pathTxt?: string; binary?: boolean }): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  if (options.pathTxt !== undefined) writeFileSync(join(dir, 'path.txt'), options.pathTxt);
  if (options.binary) writeFileSync(join(dir, 'dist', options.pathTxt ?? 'electron'), '#!/bin/sh\n');
  return dir;
}

describe('electronBinaryProblem', () => {
  it('is null when path.txt names a binary that exists', () => {
    expect(electronBinaryProblem(electronPackage('ok', { pathTxt: 'electron', binary: true }), {})).toBeNull();
  });

  it('says the binary was never downloaded, and how to get it, when path.txt is missing', () => {
    const problem = electronBinaryProblem(electronPackage('skipped', {}), {});
    expect(problem).toMatch(/never downloaded/);
    expect(problem).toMatch(/npm ci does not fetch it/);
    // The electron package has no install script; its install.js fetches the installed version's binary.
    expect(problem).toMatch(/`node node_modules\/electron\/install\.js`/);
    expect(problem).not.toMatch(/npm install electron/);
  });

  it('says the binary is missing when path.txt names a file that is not there', () => {
    expect(electronBinaryProblem(electronPackage('removed', { pathTxt: 'electron' }), {})).toMatch(/is missing/);
  });

  it('names the package when it is not installed, and checks ELECTRON_EXEC_PATH first', () => {
    expect(electronBinaryProblem(null, {})).toMatch(/not installed.*npm ci/);
    expect(electronBinaryProblem(null, { ELECTRON_EXEC_PATH: join(root, 'nowhere') })).toMatch(/ELECTRON_EXEC_PATH names .*nowhere/);
    expect(electronBinaryProblem(null, { ELECTRON_EXEC_PATH: SCRIPT })).toBeNull();
  });
});

describe('the script npm start runs first', () => {
  it('exits 1 with the message when the binary is missing, 0 when it is there', () => {
    const missing = spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, ELECTRON_EXEC_PATH: join(root, 'nowhere') }, encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^Letterdesk cannot start: ELECTRON_EXEC_PATH names/);
    const present = spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, ELECTRON_EXEC_PATH: SCRIPT }, encoding: 'utf8' });
    expect(present.status).toBe(0);
    expect(present.stderr).toBe('');
  });
});

describe('the installed electron package', () => {
  it('has no install script and ships the install.js the message names', () => {
    const dir = resolve(import.meta.dirname, '../../node_modules/electron');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string>; bin?: Record<string, string> };
    // If a later electron fetches its binary at install again, the advice above needs a new look.
    expect(Object.keys(pkg.scripts ?? {}).filter((name) => /install/.test(name))).toEqual([]);
    expect(existsSync(join(dir, 'install.js'))).toBe(true);
    expect(pkg.bin?.['install-electron']).toBe('install.js');
  });
});
