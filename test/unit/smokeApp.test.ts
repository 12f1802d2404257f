/**
 * The packaged-app smoke test's preparation (test/electron/smoke.ts), on real folders shaped like
 * electron-builder's unpacked output: which executable it finds on each platform, and that the copy
 * it makes has the inspector fuse on while the built app keeps it off. The executable is a file
 * carrying a fuse wire the way Electron's binary does (no Electron binary exists on this machine).
 */
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPackagedApp, prepareSmokeCopy } from '../electron/smoke.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-smoke-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Electron's fuse sentinel, followed by the wire: version 1, 8 fuses, each '0' (off) or '1' (on). */
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** The fuses as electron-builder.yml sets them: runAsNode off, cookies on, NODE_OPTIONS off, inspect off, asar checks on, asar only on, (snapshot) off, file privileges off. */
const BUILT_WIRE = '01001100';

function fakeExecutable(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([Buffer.from('\x7fELF some code '), Buffer.from(SENTINEL), Buffer.from([1, BUILT_WIRE.length]), Buffer.from(BUILT_WIRE), Buffer.from(' more code')]));
}

describe('findPackagedApp', () => {
  it('finds the unpacked executable of Linux, Windows and macOS', () => {
    const dist = join(root, 'dist-all');
    fakeExecutable(join(dist, 'linux-unpacked', 'letterdesk'));
    fakeExecutable(join(dist, 'win-unpacked', 'Letterdesk.exe'));
    fakeExecutable(join(dist, 'mac-arm64', 'Letterdesk.app', 'Contents', 'MacOS', 'Letterdesk'));
    mkdirSync(join(dist, 'builder-debug'), { recursive: true });
    expect(findPackagedApp(dist, 'linux', 'Letterdesk', 'letterdesk')).toEqual({ bundle: join(dist, 'linux-unpacked'), executable: 'letterdesk' });
    expect(findPackagedApp(dist, 'win32', 'Letterdesk', 'letterdesk')).toEqual({ bundle: join(dist, 'win-unpacked'), executable: 'Letterdesk.exe' });
    expect(findPackagedApp(dist, 'darwin', 'Letterdesk', 'letterdesk')).toEqual({
      bundle: join(dist, 'mac-arm64', 'Letterdesk.app'),
      executable: join('Contents', 'MacOS', 'Letterdesk'),
    });
  });

  it('says where it looked and what to run when there is no packaged app', () => {
    const dist = join(root, 'dist-empty');
    mkdirSync(join(dist, 'linux-unpacked'), { recursive: true });
    expect(() => findPackagedApp(dist, 'linux', 'Letterdesk', 'letterdesk')).toThrow(/No packaged Letterdesk for linux in .*dist-empty \(looked in: linux-unpacked\)\. Run `npm run dist` first\./);
    expect(() => findPackagedApp(join(root, 'missing'), 'win32', 'Letterdesk', 'letterdesk')).toThrow(/looked in: nothing there/);
  });
});

describe('prepareSmokeCopy', () => {
  it('turns the inspector fuse on in a copy only, leaving the other fuses and the built app as they were', async () => {
    const dist = join(root, 'dist-linux');
    const built = join(dist, 'linux-unpacked', 'letterdesk');
    fakeExecutable(built);
    writeFileSync(join(dist, 'linux-unpacked', 'resources.pak'), 'resources');
    const before = readFileSync(built);
    const copy = await prepareSmokeCopy(findPackagedApp(dist, 'linux', 'Letterdesk', 'letterdesk'), 'linux');
    expect(copy).not.toBe(built);
    expect(copy.endsWith(join('linux-unpacked', 'letterdesk'))).toBe(true);
    expect(readFileSync(join(dirname(copy), 'resources.pak'), 'utf8')).toBe('resources');
    const wire = await getCurrentFuseWire(copy);
    const states = Array.from({ length: BUILT_WIRE.length }, (_, i) => String.fromCharCode(wire[i as FuseV1Options] as number)).join('');
    expect(states).toBe('01011100');
    expect(readFileSync(built).equals(before)).toBe(true);
  });

  it('fails with the reason when the executable has no fuse wire', async () => {
    const dist = join(root, 'dist-nowire');
    mkdirSync(join(dist, 'linux-unpacked'), { recursive: true });
    writeFileSync(join(dist, 'linux-unpacked', 'letterdesk'), 'not electron');
    await expect(prepareSmokeCopy(findPackagedApp(dist, 'linux', 'Letterdesk', 'letterdesk'), 'linux')).rejects.toThrow(/Could not find sentinel/);
  });
});
