/**
 * The profile changes that coordinate several services: saving a profile with its tokens as one
 * change (the profiles file and the keychain), and removing a profile completely: its tokens
 * (keychain and session), optionally its cache, then the profile itself, under its sync lock.
 */
import type { Profile, ProfileList, SaveProfileInput } from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError } from '../../../shared/errors.ts';
import { bindingOf, normalizeTokens, sameBinding, type CredentialStore } from '../credentials/store.ts';
import { logger } from '../base/log.ts';
import { cacheFilePath } from '../base/paths.ts';
import { acquireSyncLock } from '../sync/lock.ts';
import type { ProfileStore } from '../profiles/store.ts';

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

/**
 * Saves a profile and, when `input.credentials` is given, its tokens, as one change: tokens that
 * cannot be stored undo the save (a new profile is removed, an edited one gets its fields back),
 * so the old tokens are never sent to a base URL that was meant for the new ones. An edit that
 * changes the address or account without new tokens clears the old ones.
 * @returns the saved profile
 * @throws LetterdeskError VALIDATION for malformed tokens (nothing written) or profile fields;
 *   the credential store's error when the tokens cannot be stored (nothing of the save kept)
 */
export async function saveProfileAndCredentials(profiles: ProfileStore, credentials: CredentialStore, { credentials: given, ...input }: SaveProfileInput): Promise<Profile> {
  // Malformed tokens are refused before anything is written.
  const tokens = given ? normalizeTokens(given) : null;
  const before = input.id === undefined ? null : profiles.get(input.id);
  const profile = profiles.save(input);
  const binding = bindingOf(profile);
  if (given && tokens) {
    try {
      await credentials.set(profile.id, tokens, { sessionOnly: given.sessionOnly, boundTo: binding });
    } catch (error) {
      // Nothing of this save is kept. A new profile whose tokens could not be stored is removed
      // (the person is still in the form, with the error, and submitting again does not meet
      // "a profile named … exists"); an edited one gets its fields back.
      if (before === null) profiles.remove(profile.id);
      else profiles.save({ id: before.id, name: before.name, environment: before.environment, baseUrl: before.baseUrl, accountId: before.accountId, pageSize: before.pageSize });
      throw error;
    }
  } else if (before !== null && !sameBinding(bindingOf(before), binding)) {
    // A new address or account asks for its own tokens: the old ones are never sent there.
    await credentials.clear(profile.id).catch((error: unknown) => logger.warn(`profiles: tokens of ${profile.id} not removed after its address changed`, error));
  }
  return profile;
}
