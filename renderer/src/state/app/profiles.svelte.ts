/**
 * The profiles as main lists them and the active one, with the calls that change them. Each call
 * answers with the new list, which the app applies (app.svelte.ts): switching profiles touches
 * every other part of the page.
 */
import type { Profile, ProfileList, SaveProfileInput } from '../../../../shared/contract.ts';
import { call } from '../../lib/api.ts';

/** The profile list and the active profile. */
export class Profiles {
  list = $state.raw<Profile[]>([]);
  activeId = $state<string | null>(null);
  active = $derived(this.list.find((p) => p.id === this.activeId) ?? null);

  /** Reads the list. @throws DisplayError */
  read(): Promise<ProfileList> {
    return call('listProfiles', {});
  }

  /** Makes a profile active. @throws DisplayError */
  use(profileId: string): Promise<ProfileList> {
    return call('useProfile', { profileId });
  }

  /** Creates the sample-data profile. @throws DisplayError */
  createSample(): Promise<Profile> {
    return call('createSampleProfile', {});
  }

  /** Creates or updates a profile (with its tokens, when given). @throws DisplayError */
  save(input: SaveProfileInput): Promise<Profile> {
    return call('saveProfile', input);
  }

  /** Removes a profile (optionally its cache). @throws DisplayError */
  remove(profileId: string, purgeCache: boolean): Promise<ProfileList> {
    return call('removeProfile', { profileId, purgeCache });
  }
}
