/**
 * Writing a file so that it appears whole or not at all, in the target's folder: a temporary file
 * is written, fsynced, closed and renamed over the target, and the folder fsynced (POSIX). Two
 * writers share it:
 *  - {@link createAtomicFile} streams (the exports): the temporary file is
 *    `.<name>.<pid>-<random>.letterdesk-tmp`, never more open than the file it replaces; on failure
 *    it is removed and the target is untouched, and one left by a killed process is removed by
 *    {@link removeStaleTempFiles} once its process is gone;
 *  - {@link writeFileAtomicSync} replaces a small private file with a text at once (the profiles
 *    file): mode 0600, its folder created 0700, the rename retried while Windows holds the target
 *    open; {@link moveAsideSync} renames a damaged file out of the way.
 */
import fs, { closeSync, fchmodSync, fstatSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path, { basename, dirname, join } from 'node:path';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { processAlive } from './lockFiles.ts';

/** Suffix of temporary files; {@link removeStaleTempFiles} looks for it. */
export const TEMP_SUFFIX = '.letterdesk-tmp';

/**
 * Removes temporary files of earlier writes into `folder` whose process no longer runs (a crash or
 * SIGKILL mid-write). Best effort; never throws.
 */
export function removeStaleTempFiles(folder: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (!name.startsWith('.') || !name.endsWith(TEMP_SUFFIX)) continue;
      const m = /\.(\d+)-[0-9a-f]+\.letterdesk-tmp$/.exec(name);
      if (!m || processAlive(Number(m[1]))) continue;
      try {
        unlinkSync(join(folder, name));
      } catch {
        // someone else removed it
      }
    }
  } catch {
    // unreadable folder: the write itself will report the problem
  }
}

/** A file being written: write to `fd`, then {@link AtomicFile.commit} or {@link AtomicFile.discard}. */
export interface AtomicFile {
  /** Descriptor of the temporary file. */
  readonly fd: number;
  /** Flushes the bytes to disk and renames the temporary file over the target (durably, on POSIX). */
  commit(): void;
  /** Closes and removes the temporary file; the target is left as it was. Never throws. */
  discard(): void;
}

/**
 * Creates the temporary file of `target` (absolute, in an existing folder). It follows the user's
 * umask but is never more open than the file it will replace, so a file someone made private stays
 * private.
 * @throws the file system's error (see {@link fileError} for the message to show)
 */
export function createAtomicFile(target: string): AtomicFile {
  const temp = tempPathFor(target);
  let fd: number | null = openSync(temp, 'wx', 0o666);
  const closeFd = () => {
    if (fd === null) return;
    const open = fd;
    fd = null;
    closeSync(open);
  };
  narrowToReplaced(fd, target);
  return {
    fd,
    commit() {
      if (fd !== null) fsyncSync(fd);
      closeFd();
      renameSync(temp, target);
      syncFolder(dirname(target));
    },
    discard() {
      try {
        closeFd();
      } catch {
        // already closed
      }
      try {
        unlinkSync(temp);
      } catch {
        // never created, or already renamed
      }
    },
  };
}

/**
 * The error to show for a failed write to `target`: DISK_FULL, or VALIDATION for a file held open
 * elsewhere, a folder Letterdesk may not write to, a name too long; anything else unchanged.
 */
export function fileError(error: unknown, target: string): unknown {
  if (isLetterdeskError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new LetterdeskError('DISK_FULL', `The disk is full: "${target}" could not be written. Free some space and export again.`);
  if (code === 'EBUSY' || (process.platform === 'win32' && code === 'EPERM')) {
    return new LetterdeskError('VALIDATION', `"${target}" could not be replaced: it is probably open in another program (Excel?). Close it and export again, or choose another name.`);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new LetterdeskError('VALIDATION', `Letterdesk may not write to "${dirname(target)}"; choose another folder.`);
  }
  if (code === 'ENAMETOOLONG') return new LetterdeskError('VALIDATION', `The file name "${basename(target)}" is too long; choose a shorter one.`);
  return error;
}

/** At most `bytes` bytes of `text` in UTF-8, cut between characters. */
function utf8Prefix(text: string, bytes: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    used += Buffer.byteLength(ch);
    if (used > bytes) break;
    out += ch;
  }
  return out;
}

function tempPathFor(target: string): string {
  // File names are limited in bytes (255 on most file systems): a name the person could create
  // must leave room for the temporary name's dot, process id, random part and suffix.
  return join(dirname(target), `.${utf8Prefix(basename(target), 100)}.${process.pid}-${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
}

/** Makes a rename into `folder` durable (POSIX); best effort, a no-op on Windows (folders cannot be opened). */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  try {
    const fd = openSync(folder, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some file systems refuse to open a folder: best effort
  }
}

// The permissions of a file that replaces another (Linux and macOS; Windows has no such modes).

/**
 * The permission bits of a file that replaces another.
 * @param created the mode the new file was created with (the umask already applied), any bits
 * @param replaced the mode of the file being replaced, or null when the name is new
 * @returns `created`'s permission bits (0o777), cleared where `replaced`'s are; never setuid,
 *   setgid or sticky
 */
export function replacementMode(created: number, replaced: number | null): number {
  const bits = created & 0o777;
  return replaced === null ? bits : bits & replaced & 0o777;
}

/**
 * Narrows the permissions of a new export file so they are no wider than those of the file at
 * `target`, which it is about to replace (a symbolic link there is followed: the file it points
 * to is what the person protected). Create the file with mode 0o666 so the umask has applied;
 * nothing changes for a new name, on Windows, or on a file system without permissions.
 * @param fd the new file, open for writing
 * @param target the path the new file will be renamed to
 */
export function narrowToReplaced(fd: number, target: string): void {
  if (process.platform === 'win32') return;
  let replaced: number;
  try {
    replaced = statSync(target).mode;
  } catch {
    return;
  }
  try {
    const created = fstatSync(fd).mode;
    const mode = replacementMode(created, replaced);
    if (mode !== (created & 0o7777)) fchmodSync(fd, mode);
  } catch {
    // a file system without permissions (FAT, some network shares): nothing to narrow
  }
}

// Small files replaced at once, and damaged files moved aside.

function errno(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

/**
 * On Windows a rename over a file that another process (an antivirus scanner, the other Letterdesk
 * process reading it) holds open fails for a moment with EPERM/EBUSY: retry briefly.
 */
function renameWithRetry(from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (error) {
      const code = errno(error);
      if (process.platform !== 'win32' || attempt >= 10 || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 * (attempt + 1));
    }
  }
}

/**
 * Replaces `file` with `text` so that readers see either the old or the new content, never a
 * mix: write a temporary file in the same folder, fsync it, rename it over the target, fsync the folder.
 * @param file absolute path; its folder is created (mode 0700) when missing
 * @param text UTF-8 content
 * @throws LetterdeskError DISK_FULL when the disk is full; other I/O errors as thrown by `fs`
 */
export function writeFileAtomicSync(file: string, text: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, text, 'utf8');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    renameWithRetry(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    if (errno(error) === 'ENOSPC') {
      throw new LetterdeskError('DISK_FULL', `The disk holding ${dir} is full, so ${path.basename(file)} was not changed. Free some space and try again.`, {
        cause: error,
      });
    }
    throw error;
  }
  syncFolder(dir);
}

/**
 * Renames a damaged file to `<file>.damaged-<timestamp>` (a numbered suffix is added if that name is taken).
 * @returns the new path
 */
export function moveAsideSync(file: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  let target = `${file}.damaged-${stamp}`;
  for (let n = 2; fs.existsSync(target); n++) target = `${file}.damaged-${stamp}-${n}`;
  fs.renameSync(file, target);
  return target;
}
