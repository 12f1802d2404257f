/**
 * One sync per cache file across processes (issue 4: one sync per profile at a time). The app and
 * the CLI share the data folder, so two of them (or two CLI runs) could otherwise sync the same
 * profile at once: the second discards the first one's staging, and the first then reads its pages
 * again as if the service had changed. The lock is the file `<cache file>.sync-lock`, created
 * exclusively, holding the owner's process id and start time; a lock whose process is gone
 * (killed, crashed, powered off) is stale and taken over.
 */
import { hostname } from 'node:os';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { LetterdeskError } from '../../../shared/errors.ts';
import { processAlive } from '../pids.ts';

/** What a lock file holds. */
export interface SyncLockHolder {
  pid: number;
  host: string;
  /** ISO 8601. */
  startedAt: string;
}

/** The lock file of a cache file. */
export function syncLockPath(cacheFile: string): string {
  return `${cacheFile}.sync-lock`;
}

function readHolder(file: string): SyncLockHolder | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<SyncLockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.startedAt !== 'string') return null;
    return { pid: value.pid, host: value.host, startedAt: value.startedAt };
  } catch {
    return null;
  }
}

/**
 * The live process that holds the sync lock of `cacheFile`, or null (no lock, or a stale one). A
 * lock written on another host (a data folder on a network share) counts as held: its process
 * cannot be checked from here.
 */
export function syncLockHolder(cacheFile: string): SyncLockHolder | null {
  const holder = readHolder(syncLockPath(cacheFile));
  if (!holder) return null;
  if (holder.host === hostname() && !processAlive(holder.pid)) return null;
  return holder;
}

/** The BUSY error for a sync lock held by `holder`. */
export function syncLockBusy(holder: SyncLockHolder): LetterdeskError {
  const since = new Date(holder.startedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
  return new LetterdeskError(
    'BUSY',
    `Another Letterdesk (${where}, the app or the command line) has been syncing this profile since ${since}. Wait for it to finish, or cancel it there.`,
    { details: { ...holder } },
  );
}

/**
 * Takes the sync lock of `cacheFile` for this process. (Two processes that find the same stale lock
 * at the same instant could both take it over; a live lock is never taken.)
 * @returns a function that releases it (idempotent; it leaves alone a lock that is no longer this
 *   process's)
 * @throws LetterdeskError BUSY when a live process holds it
 */
export function acquireSyncLock(cacheFile: string): () => void {
  const file = syncLockPath(cacheFile);
  const mine: SyncLockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const release = () => {
    const holder = readHolder(file);
    if (holder && holder.pid === mine.pid && holder.startedAt === mine.startedAt) rmSync(file, { force: true });
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      let released = false;
      return () => {
        if (!released) release();
        released = true;
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
    if (holder !== null && (holder.host !== hostname() || processAlive(holder.pid))) throw syncLockBusy(holder);
    rmSync(file, { force: true }); // its process is gone
  }
  throw new LetterdeskError('BUSY', `The sync lock ${file} could not be taken. If no Letterdesk is syncing this profile, delete that file and sync again.`);
}
