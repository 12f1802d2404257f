/**
 * Removing a profile completely: its tokens (keychain and session), optionally its cache, then the
 * profile itself.
 */
import type { ProfileList } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import type { CredentialStore } from '../credentials/store.ts';
import { logger } from '../log.ts';
import { cacheFilePath } from '../paths.ts';
import { acquireSyncLock } from '../sync/lock.ts';
import type { ProfileStore } from './store.ts';

/** What {@link removeProfileAndCredentials} did. */
export interface RemovedProfile {
  list: ProfileList;
  /** Set when the keychain could not be reached, so tokens stored there may remain (cause and fix). */
  credentialsProblem: string | null;
}

/**
 * Clears the profile's tokens, then removes the profile (and with `purgeCache` its cache files).
 * A keychain that cannot be reached does not block the removal; it is reported in `credentialsProblem`.
 * Close the profile's cache before calling with `purgeCache`. The profile's sync lock is held
 * meanwhile, so no sync (of this process or another: the app and the CLI share the data folder)
 * writes into a cache that is being deleted or left without its profile.
 * @throws LetterdeskError NOT_FOUND when there is no such profile; BUSY (nothing changed) while a
 *   sync of the profile runs
 */
export async function removeProfileAndCredentials(
  profiles: ProfileStore,
  credentials: CredentialStore,
  profileId: string,
  options: { purgeCache: boolean },
): Promise<RemovedProfile> {
  if (!profiles.get(profileId)) throw new LetterdeskError('NOT_FOUND', `There is no profile with id "${profileId}". Reload the profile list.`);
  const release = acquireSyncLock(cacheFilePath(profiles.dataDir, profileId));
  try {
    let credentialsProblem: string | null = null;
    try {
      await credentials.clear(profileId);
    } catch (error) {
      if (!isLetterdeskError(error) || error.code !== 'KEYCHAIN_UNAVAILABLE') throw error;
      credentialsProblem = error.message;
      logger.warn(`profiles: removing ${profileId}; ${credentialsProblem}`);
    }
    const list = profiles.remove(profileId, { purgeCache: options.purgeCache });
    return { list, credentialsProblem };
  } finally {
    release();
  }
}
