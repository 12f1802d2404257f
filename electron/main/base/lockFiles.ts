/**
 * Files that name the process that owns them: a cache's session marker (cache/store/db.ts), an export's
 * temporary files (atomicFile.ts), and the two lock files taken here — the sync lock of a
 * cache (sync/lock.ts) and the profiles file's lock (profiles/store.ts). The app and the CLI share
 * the data folder; a lock keeps them apart, and one whose process is gone is taken over.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Whether a process with this id is running (EPERM: running, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** What a lock file holds: its owner. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601. */
  startedAt: string;
}

function readHolder(file: string): LockHolder | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.startedAt !== 'string') return null;
    return { pid: value.pid, host: value.host, startedAt: value.startedAt };
  } catch {
    return null;
  }
}

/** A holder that still counts: its process runs, or it is on another host (a data folder on a network share), where its process cannot be checked. */
function live(holder: LockHolder): boolean {
  return holder.host !== hostname() || processAlive(holder.pid);
}

/** The live owner of the lock file `file`, or null (no lock, an unreadable one, or a stale one). */
export function lockHolder(file: string): LockHolder | null {
  const holder = readHolder(file);
  return holder && live(holder) ? holder : null;
}

/**
 * Tries once to take the lock file `file` for this process (created exclusively). A lock whose
 * process is gone, or that stays unreadable for 50 ms (left half-written by a crash), is taken over.
 * (Two processes that find the same stale lock at the same instant could both take it over; a
 * live lock is never taken.)
 * @returns `release`, which removes the lock if it is still this process's (idempotent); or the
 *   live `holder`; or neither when the lock kept changing hands
 */
export function tryLock(file: string): { release: () => void } | { holder: LockHolder | null } {
  const mine: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          const holder = readHolder(file);
          if (holder && holder.pid === mine.pid && holder.startedAt === mine.startedAt) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
    let holder = readHolder(file);
    if (holder === null) {
      // Being written this instant, or left half-written by a crash: look again once.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      holder = readHolder(file);
    }
    if (holder !== null && live(holder)) return { holder };
    // Released meanwhile: try again, and never remove what may by now be another process's new lock.
    if (holder === null && !existsSync(file)) continue;
    rmSync(file, { force: true }); // its process is gone, or it stayed unreadable
  }
  return { holder: null };
}
