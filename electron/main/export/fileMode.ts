/**
 * Permissions of an export that replaces a file (Linux and macOS; Windows has no such modes): the
 * new file follows the user's umask, but is never readable or writable by more people than the
 * file it replaces — a CSV of contacts someone made private stays private.
 */
import { fchmodSync, fstatSync, statSync } from 'node:fs';

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
