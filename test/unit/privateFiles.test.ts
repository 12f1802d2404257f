// Personal data on disk is private to the user (Linux and macOS): the data folder and the cache
// folder are created 0700, cache files and their WAL, shared-memory and session files are 0600
// (narrowed when an older version left them wider), and an export never has wider permissions
// than the file it replaces. Checked on real files with stat; Windows has no such modes.
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCache, sessionMarkerPath } from '../../electron/main/cache/store/db.ts';
import { narrowToReplaced, replacementMode } from '../../electron/main/base/atomicFile.ts';
import { cacheDir, cacheFilePath, ensureDataDir } from '../../electron/main/base/paths.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-private-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (path: string): number => statSync(path).mode & 0o777;

// Every test runs with the common default umask, and one test with a stricter one.
let previousUmask = 0;
beforeEach(() => {
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
});

describe.skipIf(process.platform === 'win32')('private files', () => {
  it('the data folder and its cache folder are created 0700, missing parents too', () => {
    const data = join(root, 'new', 'config', 'Letterdesk');
    expect(ensureDataDir(data)).toBe(data);
    expect(modeOf(join(root, 'new'))).toBe(0o700);
    expect(modeOf(data)).toBe(0o700);
    expect(modeOf(cacheDir(data))).toBe(0o700);
  });

  it('an existing cache folder is narrowed to 0700; an existing data folder keeps its mode', () => {
    const data = join(root, 'old-install');
    mkdirSync(cacheDir(data), { recursive: true, mode: 0o755 });
    chmodSync(data, 0o755);
    chmodSync(cacheDir(data), 0o755);
    ensureDataDir(data);
    expect(modeOf(cacheDir(data))).toBe(0o700);
    // A folder the user pointed Letterdesk at may be shared on purpose: not changed.
    expect(modeOf(data)).toBe(0o755);
  });

  it('a new cache file, its WAL, shared memory and session marker are 0600', () => {
    const data = ensureDataDir(join(root, 'fresh'));
    const file = cacheFilePath(data, 'acme-demo-a1b2c3');
    const db = openCache(file);
    try {
      db.exec('CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)');
      for (const path of [file, `${file}-wal`, `${file}-shm`, sessionMarkerPath(file)]) {
        expect(existsSync(path), path).toBe(true);
        expect(modeOf(path), path).toBe(0o600);
      }
    } finally {
      db.close();
    }
  });

  it('a cache left world-readable by an older version is narrowed when it is opened', () => {
    const data = ensureDataDir(join(root, 'upgrade'));
    const file = cacheFilePath(data, 'acme-demo-d4e5f6');
    // An older version: SQLite's default 0644 under umask 022, with a WAL left behind.
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE kept (x); INSERT INTO kept VALUES (42)');
    const copy = new Database(file);
    copy.prepare('SELECT * FROM kept').get();
    for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodSync(path, 0o644);
    writeFileSync(sessionMarkerPath(file), '999999999', { mode: 0o644 });
    const db = openCache(file);
    try {
      for (const path of [file, `${file}-wal`, `${file}-shm`, sessionMarkerPath(file)]) expect(modeOf(path), path).toBe(0o600);
      expect(db.prepare('SELECT x FROM kept').pluck().get()).toBe(42);
    } finally {
      db.close();
      copy.close();
      old.close();
    }
  });

  describe('an export replacing a file', () => {
    /** Creates the export's temporary file the way the export does (0666, so the umask applies), then narrows it. */
    function exportOver(target: string): number {
      const temp = `${target}.tmp`;
      const fd = openSync(temp, 'wx', 0o666);
      try {
        narrowToReplaced(fd, target);
      } finally {
        closeSync(fd);
      }
      const mode = modeOf(temp);
      rmSync(temp);
      return mode;
    }

    it('follows the umask for a new name, and is never wider than the file it replaces', () => {
      const folder = mkdtempSync(join(root, 'exports-'));
      expect(exportOver(join(folder, 'new.csv'))).toBe(0o644);
      for (const [before, after] of [
        [0o600, 0o600],
        [0o640, 0o640],
        [0o666, 0o644],
        [0o755, 0o644],
        [0o444, 0o444],
      ] as const) {
        const target = join(folder, `was-${before.toString(8)}.csv`);
        writeFileSync(target, 'old');
        chmodSync(target, before);
        expect(exportOver(target), before.toString(8)).toBe(after);
      }
      process.umask(0o077);
      const target = join(folder, 'shared.csv');
      writeFileSync(target, 'old');
      chmodSync(target, 0o644);
      expect(exportOver(target)).toBe(0o600);
    });

    it('replacementMode: the created bits, no wider than the replaced file; setuid and the like never carried over', () => {
      expect(replacementMode(0o644, null)).toBe(0o644);
      expect(replacementMode(0o644, 0o600)).toBe(0o600);
      expect(replacementMode(0o664, 0o4755)).toBe(0o644);
      expect(replacementMode(0o100644, 0o100640)).toBe(0o640);
    });
  });
});
