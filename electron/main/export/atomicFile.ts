/**
 * Writing a file so that it appears whole or not at all: the bytes go to a temporary file in the
 * target's folder (`.<name>.<pid>-<random>.letterdesk-tmp`), which is fsynced, closed and renamed
 * over the target. On failure the temporary file is removed and the target is untouched. A process
 * killed mid-way can leave only its temporary file; {@link removeStaleTempFiles} removes those
 * whose process is gone.
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { processAlive } from '../lockFiles.ts';
import { narrowToReplaced } from './fileMode.ts';

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

/** Makes the rename durable (POSIX); a no-op where folders cannot be opened (Windows). */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  let fd: number | null = null;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
