/**
 * One sync per cache file across processes (issue 4: one sync per profile at a time). The app and
 * the CLI share the data folder, so two of them (or two CLI runs) could otherwise sync the same
 * profile at once: the second discards the first one's staging, and the first then reads its pages
 * again as if the service had changed. The lock is the file `<cache file>.sync-lock`, created
 * exclusively, holding the owner's process id and start time; a lock whose process is gone
 * (killed, crashed, powered off) is stale and taken over.
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { LetterdeskError } from '../../../shared/errors.ts';
import { cacheFilePath, syncLockPath } from '../base/paths.ts';
import { lockHolder, tryLock, type LockHolder } from '../base/lockFiles.ts';

/** The BUSY error for the sync lock `file` held by `holder`. */
function syncLockBusy(file: string, holder: LockHolder): LetterdeskError {
  const since = new Date(holder.startedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
  // A lock outlives a crash when its process id is reused later (after a restart) or the computer
  // was renamed: the person can tell that no Letterdesk is running, the program cannot.
  return new LetterdeskError(
    'BUSY',
    `Another Letterdesk (${where}, the app or the command line) has been syncing this profile since ${since}. Wait for it to finish, or cancel it there. If no Letterdesk is running there, delete ${file} and try again.`,
    { details: { ...holder, lockFile: file } },
  );
}

/**
 * Refuses, before anything starts, what must not happen while another process syncs the profile
 * (the app's own sync start): said at once to the caller, rather than as a
 * failed run. The lock itself ({@link acquireSyncLock}) is what keeps two syncs apart.
 * @throws LetterdeskError BUSY when a live process holds the sync lock of the profile's cache
 */
export function refuseWhileSyncedElsewhere(dataDir: string, profileId: string): void {
  const file = syncLockPath(cacheFilePath(dataDir, profileId));
  const holder = lockHolder(file);
  if (holder) throw syncLockBusy(file, holder);
}

/**
 * Takes the sync lock of `cacheFile` for this process (a stale one is taken over, pids.ts `tryLock`).
 * @returns a function that releases it (idempotent; it leaves alone a lock that is no longer this
 *   process's)
 * @throws LetterdeskError BUSY when a live process holds it
 */
export function acquireSyncLock(cacheFile: string): () => void {
  const file = syncLockPath(cacheFile);
  // A profile never synced has no cache folder yet (removing it still takes the lock).
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const lock = tryLock(file);
  if ('release' in lock) return lock.release;
  if (lock.holder) throw syncLockBusy(file, lock.holder);
  throw new LetterdeskError('BUSY', `The sync lock ${file} could not be taken. If no Letterdesk is syncing this profile, delete that file and sync again.`);
}
