/**
 * The handler table: one function per contract call (shared/contract.ts), each receiving input
 * that `dispatchCall` has already validated. `satisfies Handlers` makes a missing or extra handler
 * a compile error. Handlers never see the transport: Electron IPC and the Chromium harness serve
 * the same table.
 */
import { randomUUID } from 'node:crypto';
import { platform } from 'node:os';
import type { Handlers, Profile, ProfileList, SyncStatus } from '../../shared/contract.ts';
import { LetterdeskError } from '../../shared/errors.ts';
import { isSafeExternalUrl } from './app/security.ts';
import type { Core } from './core.ts';
import { exportColumns } from './export/columns.ts';
import { defaultExportFileName } from './export/run.ts';
import { normalizeTokens } from './credentials/store.ts';
import { removeProfileAndCredentials } from './profiles/remove.ts';

const SAMPLE_PROFILE_NAME = 'Sample data';

/** Builds the handler table over a core (see core.ts). */
export function createHandlers(core: Core): Handlers {
  const profileList = (): ProfileList => ({ ...core.profiles.list(), loadProblem: core.profiles.loadProblem() });
  const profilesChanged = (): ProfileList => {
    const list = profileList();
    core.emit('profilesChanged', list);
    return list;
  };

  const exportedPaths = new Set<string>();

  const handlers = {
    async getAppInfo() {
      return { version: core.options.version, platform: platform(), dataDir: core.options.dataDir, logFile: core.options.logFile };
    },

    async listProfiles() {
      return profileList();
    },

    async saveProfile({ credentials, ...input }) {
      // Malformed tokens are refused before anything is written.
      const tokens = credentials ? normalizeTokens(credentials) : null;
      const before = input.id === undefined ? null : core.profiles.get(input.id);
      const profile = core.profiles.save(input);
      if (credentials && tokens) {
        try {
          await core.credentials.set(profile.id, tokens, { sessionOnly: credentials.sessionOnly });
        } catch (error) {
          // Nothing of this save is kept. A new profile whose tokens could not be stored is removed
          // (the person is still in the form, with the error, and submitting again does not meet
          // "a profile named … exists"); an edited one gets its fields back, so the old tokens are
          // never sent to a base URL that was meant for the new ones.
          if (before === null) core.profiles.remove(profile.id);
          else core.profiles.save({ id: before.id, name: before.name, environment: before.environment, baseUrl: before.baseUrl, accountId: before.accountId, pageSize: before.pageSize });
          throw error;
        }
      }
      if (core.profiles.list().activeProfileId === null) core.profiles.use(profile.id);
      profilesChanged();
      return profile;
    },

    async removeProfile({ profileId, purgeCache }) {
      if (core.syncRunning && core.activeProfile().id === profileId) {
        throw new LetterdeskError('BUSY', 'This profile is syncing. Cancel the sync before removing it.');
      }
      await core.closeCache(profileId);
      // A keychain that cannot be reached does not block the removal; the page is told (tokens may remain there).
      const { credentialsProblem } = await removeProfileAndCredentials(core.profiles, core.credentials, profileId, { purgeCache });
      return { ...profilesChanged(), credentialsProblem };
    },

    async useProfile({ profileId }) {
      if (core.syncRunning) throw new LetterdeskError('BUSY', 'A sync is running. Wait for it or cancel it before switching profiles.');
      core.profiles.use(profileId);
      const list = profilesChanged();
      core.emit('connectivityChanged', core.connectivity());
      return list;
    },

    async createSampleProfile() {
      const baseUrl = await core.sampleApi.ensure();
      const existing = core.profiles.list().profiles.find((p) => p.sampleData);
      const profile: Profile =
        existing ??
        core.profiles.save(
          { name: SAMPLE_PROFILE_NAME, environment: 'custom', baseUrl, accountId: null, pageSize: 500 },
          { sampleData: true },
        );
      core.profiles.use(profile.id);
      profilesChanged();
      return profile;
    },

    async getCredentialStatus({ profileId }) {
      return core.credentials.status(profileId);
    },

    async setCredentials({ profileId, accessToken, refreshToken, sessionOnly }) {
      if (!core.profiles.get(profileId)) throw new LetterdeskError('NOT_FOUND', 'That profile no longer exists.');
      return core.credentials.set(profileId, { accessToken, refreshToken }, { sessionOnly });
    },

    async clearCredentials({ profileId }) {
      await core.credentials.clear(profileId);
      return core.credentials.status(profileId);
    },

    async startSync({ resources }) {
      return core.startSync([...new Set(resources)]);
    },

    async cancelSync() {
      return { cancelled: core.cancelSync() };
    },

    async getSyncStatus(): Promise<SyncStatus> {
      const profile = core.activeProfile();
      const cache = await core.cache();
      const [resources, history] = await Promise.all([cache.resourceStates(), cache.syncHistory(20)]);
      return { profileId: profile.id, running: core.syncRunning, resources, history, connectivity: core.connectivity() };
    },

    async clearCacheAndResync() {
      await core.clearCache();
      return core.startSync(['contacts', 'orders']);
    },

    async queryContacts({ query, window }) {
      return (await core.cache()).queryContacts(query, window);
    },
    async countContacts({ query }) {
      return (await core.cache()).countContacts(query);
    },
    async contactFacets({ query }) {
      return (await core.cache()).contactFacets(query);
    },
    async getContact({ id }) {
      const detail = await (await core.cache()).getContact(id);
      if (!detail) throw new LetterdeskError('NOT_FOUND', `Contact ${id} is not in the cache. It may have been deleted on the service; sync to refresh.`);
      return detail;
    },

    async queryOrders({ query, window }) {
      return (await core.cache()).queryOrders(query, window);
    },
    async countOrders({ query }) {
      return (await core.cache()).countOrders(query);
    },
    async orderFacets({ query }) {
      return (await core.cache()).orderFacets(query);
    },
    async getOrder({ id }) {
      const detail = await (await core.cache()).getOrder(id);
      if (!detail) throw new LetterdeskError('NOT_FOUND', `Order ${id} is not in the cache. It may have been deleted on the service; sync to refresh.`);
      return detail;
    },

    async exportColumns({ kind }) {
      return exportColumns(kind).map(({ key, header }) => ({ key, header }));
    },

    async exportCsv(request) {
      const profile = core.activeProfile();
      const exportId = randomUUID();
      const path = await core.options.platform.showSaveDialog(defaultExportFileName(profile.name, request.kind, new Date()), [
        { name: 'CSV', extensions: ['csv'] },
        { name: 'Text', extensions: ['txt', 'tsv'] },
      ]);
      if (path === null) return { exportId, path: null, rows: 0 };
      const abort = new AbortController();
      core.exports.set(exportId, abort);
      core.emit('exportStarted', { exportId, path });
      try {
        const { rows } = await (await core.cache()).exportCsv(request, path, {
          signal: abort.signal,
          onProgress: (p) => core.emit('exportProgress', { exportId, ...p }),
        });
        exportedPaths.add(path);
        return { exportId, path, rows };
      } finally {
        core.exports.delete(exportId);
      }
    },

    async cancelExport({ exportId }) {
      const controller = core.exports.get(exportId);
      controller?.abort();
      return { cancelled: controller !== undefined };
    },

    async showInFolder({ path }) {
      // Only files this session wrote: the page cannot make the shell reveal arbitrary paths.
      if (!exportedPaths.has(path)) throw new LetterdeskError('NOT_FOUND', 'Only files exported in this session can be shown in their folder.');
      core.options.platform.showItemInFolder(path);
      return null;
    },

    async openExternal({ url }) {
      if (!isSafeExternalUrl(url)) throw new LetterdeskError('VALIDATION', 'Only http and https links can be opened.');
      await core.options.platform.openExternal(url);
      return null;
    },
  } satisfies Handlers;
  return handlers;
}
