/**
 * Where Letterdesk keeps its files. The desktop app and the CLI must agree on the data directory
 * without the CLI loading Electron, so the platform's `userData` folder is computed here the way
 * Electron computes it (`app.getPath('appData')` + the product name):
 *
 * | platform | data directory |
 * |---|---|
 * | Linux (and other Unix) | `$XDG_CONFIG_HOME/Letterdesk`, else `~/.config/Letterdesk` |
 * | macOS | `~/Library/Application Support/Letterdesk` |
 * | Windows | `%APPDATA%\Letterdesk`, else `~\AppData\Roaming\Letterdesk` |
 *
 * `--data-dir` (the CLI) and `LETTERDESK_DATA_DIR` override it, in that order.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LetterdeskError } from '../../../shared/errors.ts';

/** The product name Electron uses for the `userData` folder (package.json `productName`). */
export const APP_FOLDER_NAME = 'Letterdesk';

/** The environment variable that overrides the data directory. */
export const DATA_DIR_ENV = 'LETTERDESK_DATA_DIR';

/** Options of {@link resolveDataDir}; every field defaults to the running process's value. */
export interface ResolveDataDirOptions {
  /** An explicit directory (the CLI's `--data-dir`); wins over everything else. */
  override?: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default process.platform */
  platform?: NodeJS.Platform;
  /** @default os.homedir() */
  home?: string;
}

const PROFILE_ID = /^[a-z0-9-]{1,64}$/;

function nonEmpty(value: string | undefined): string | null {
  return value !== undefined && value.trim() !== '' ? value : null;
}

/**
 * The data directory: `override` > `LETTERDESK_DATA_DIR` > the platform's userData folder.
 * A relative override or variable is resolved against the current working directory.
 * @returns an absolute path (the directory is not created)
 */
export function resolveDataDir(options: ResolveDataDirOptions = {}): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const p = platform === 'win32' ? path.win32 : path.posix;

  const explicit = nonEmpty(options.override) ?? nonEmpty(env[DATA_DIR_ENV]);
  if (explicit !== null) return p.isAbsolute(explicit) ? p.normalize(explicit) : path.resolve(explicit);

  const home = options.home ?? os.homedir();
  if (platform === 'win32') {
    const appData = nonEmpty(env.APPDATA);
    return p.join(appData ?? p.join(home, 'AppData', 'Roaming'), APP_FOLDER_NAME);
  }
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', APP_FOLDER_NAME);
  // Electron (and the XDG spec) ignore a relative XDG_CONFIG_HOME.
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  const configHome = xdg !== null && p.isAbsolute(xdg) ? xdg : p.join(home, '.config');
  return p.join(configHome, APP_FOLDER_NAME);
}

function checkProfileId(profileId: string): void {
  // The id becomes a file name: refuse anything that could leave the cache folder.
  if (!PROFILE_ID.test(profileId)) {
    throw new LetterdeskError('VALIDATION', 'A profile id is 1–64 lowercase letters, digits or dashes; pick the profile from the list.');
  }
}

/** The folder holding one SQLite cache file per profile: `<dataDir>/cache`. */
export function cacheDir(dataDir: string): string {
  return path.join(dataDir, 'cache');
}

/**
 * The SQLite cache file of a profile: `<dataDir>/cache/<profileId>.sqlite` (SQLite adds `-wal`
 * and `-shm` beside it). Throws VALIDATION for an id that is not a profile id.
 */
export function cacheFilePath(dataDir: string, profileId: string): string {
  checkProfileId(profileId);
  return path.join(cacheDir(dataDir), `${profileId}.sqlite`);
}

/** Suffix of a cache file's session marker (cache/store/db.ts: present while a checked connection is open). */
export const SESSION_MARKER_SUFFIX = '.open';

/**
 * Every file that belongs to the cache file `file`: SQLite's `-wal`, `-shm` and `-journal`, the
 * session marker, and the database itself last (deleting in this order never leaves a journal
 * beside a missing database).
 */
export function cacheFileSet(file: string): string[] {
  return [`${file}-wal`, `${file}-shm`, `${file}-journal`, `${file}${SESSION_MARKER_SUFFIX}`, file];
}

/**
 * The observed history of the cache file `file` (cache/store/history.ts):
 * `<dir>/<profile id>.history.sqlite` beside `<dir>/<profile id>.sqlite`. A file of its own, so that
 * clearing or replacing the cache keeps it; removing the profile removes it.
 */
export function historyFileOf(file: string): string {
  return file.replace(/\.sqlite$/, '') + '.history.sqlite';
}

/** Every file of the history file `file`: SQLite's `-wal`, `-shm` and `-journal`, and the file itself last. */
export function historyFileSet(file: string): string[] {
  return [`${file}-wal`, `${file}-shm`, `${file}-journal`, file];
}

/**
 * The sync lock of the cache file `file`: `<file>.sync-lock`, held by the process that syncs it
 * (sync/lock.ts). It sits beside the cache but is not part of {@link cacheFileSet}: clearing a cache
 * happens while holding it.
 */
export function syncLockPath(file: string): string {
  return `${file}.sync-lock`;
}

/**
 * Creates the data directory and its cache folder, private to the user (mode 0700 on Linux and
 * macOS; missing parents are created 0700 too, as the XDG spec asks). An existing cache folder
 * that grants others access is narrowed to 0700: it holds the caches' personal data and is
 * Letterdesk's alone. An existing data directory keeps its mode (it may be a folder chosen with
 * `--data-dir` and shared on purpose); the cache files in it are private either way
 * (cache/store/db.ts), and so is the profiles file.
 * @param dataDir an absolute path from {@link resolveDataDir}
 * @returns `dataDir`
 * @throws the `fs` error when a folder cannot be created (EACCES, ENOSPC, …)
 */
export function ensureDataDir(dataDir: string): string {
  const cache = cacheDir(dataDir);
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(cache).mode & 0o077) !== 0) {
    try {
      chmodSync(cache, 0o700);
    } catch {
      // not ours to change (another owner): the cache files themselves are still 0600
    }
  }
  return dataDir;
}

/** The profiles file (no secrets): `<dataDir>/profiles.json`. */
export function profilesFilePath(dataDir: string): string {
  return path.join(dataDir, 'profiles.json');
}

/** The folder for log files written by the CLI (and by the app when pointed there): `<dataDir>/logs`. */
export function logsDir(dataDir: string): string {
  return path.join(dataDir, 'logs');
}
