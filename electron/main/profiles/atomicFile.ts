/**
 * Small synchronous file helpers for the profiles file: atomic replace and "move aside".
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LetterdeskError } from '../../../shared/errors.ts';

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
  if (process.platform !== 'win32') {
    // Make the rename itself durable; some file systems refuse to open a folder, which is fine.
    try {
      const dfd = fs.openSync(dir, 'r');
      try {
        fs.fsyncSync(dfd);
      } finally {
        fs.closeSync(dfd);
      }
    } catch {
      /* best effort */
    }
  }
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
