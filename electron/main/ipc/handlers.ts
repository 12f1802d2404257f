/**
 * The handler table: one function per contract call (shared/contract.ts), each receiving input
 * that `dispatchCall` has already validated. `satisfies Handlers` makes a missing or extra handler
 * a compile error. Handlers never see the transport: Electron IPC and the Chromium harness serve
 * the same table. Every rule lives in the core; a handler picks the active profile, shows a dialog
 * or announces a change.
 */
import { withLearnedNames } from '../../../shared/statusCodes.ts';
import { randomUUID } from 'node:crypto';
import { platform } from 'node:os';
import type { Handlers, Profile, ProfileList, SyncStatus } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import { isSafeExternalUrl } from '../app/security.ts';
import type { CacheClient } from '../cache/worker/client.ts';
import { testConnection } from '../core/connectionTest.ts';
import type { Core } from '../core/index.ts';
import { readKeptSettings, setKeptValues } from '../core/keptSettings.ts';
import { bindingOf, normalizeTokens } from '../credentials/store.ts';
import { exportColumns } from '../export/columns.ts';
import { pdfPageCount, writeChartImage, writeFileBytes } from '../export/chartImage.ts';
import { chartFileName, defaultExportFileName, fileSlug } from '../export/run.ts';
import { localDay } from '../../../shared/keptFilters.ts';

const SAMPLE_PROFILE_NAME = 'Sample data';

/** Builds the handler table over a core (core/index.ts). */
export function createHandlers(core: Core): Handlers {
  const profileList = (): ProfileList => ({ ...core.profiles.list(), loadProblem: core.profiles.loadProblem() });
  const profilesChanged = (): ProfileList => {
    const list = profileList();
    core.emit('profilesChanged', list);
    return list;
  };
  /** A handler that reads the active profile's cache. */
  const withCache =
    <I, O>(read: (cache: CacheClient, input: I) => Promise<O>) =>
    async (input: I): Promise<O> =>
      read(await core.cache(), input);
  const notCached = (what: string, id: string) => new LetterdeskError('NOT_FOUND', `${what} ${id} is not in the cache. It may have been deleted on the service; sync to refresh.`);
  const notUsed = (what: string, id: string) =>
    new LetterdeskError('NOT_FOUND', `No cached order has the ${what} ${id.slice(0, 128) || '(none)'}. The orders that used it may have been deleted on the service; sync to refresh.`);

  const exportedPaths = new Set<string>();
  /** A stored profile. @throws LetterdeskError NOT_FOUND */
  const profileOf = (profileId: string): Profile => {
    const profile = core.profiles.get(profileId);
    if (!profile) throw new LetterdeskError('NOT_FOUND', 'That profile no longer exists.');
    return profile;
  };

  const handlers = {
    async getAppInfo() {
      return { version: core.options.version, platform: platform(), dataDir: core.options.dataDir, logFile: core.options.logFile };
    },

    async listProfiles() {
      return profileList();
    },

    async saveProfile(input) {
      const profile = await core.saveProfile(input);
      if (core.profiles.list().activeProfileId === null) core.profiles.use(profile.id);
      profilesChanged();
      return profile;
    },

    async removeProfile({ profileId, purgeCache }) {
      const { credentialsProblem } = await core.removeProfile(profileId, { purgeCache });
      return { ...profilesChanged(), credentialsProblem };
    },

    async useProfile({ profileId }) {
      if (core.syncs.running) throw new LetterdeskError('BUSY', 'A sync is running. Wait for it or cancel it before switching profiles.');
      core.profiles.use(profileId);
      const list = profilesChanged();
      core.emit('connectivityChanged', core.currentConnectivity());
      return list;
    },

    async createSampleProfile() {
      const baseUrl = await core.sampleApi.ensure();
      const existing = core.profiles.list().profiles.find((p) => p.sampleData);
      const profile: Profile =
        existing ?? core.profiles.save({ name: SAMPLE_PROFILE_NAME, environment: 'custom', baseUrl, accountId: null, pageSize: 500 }, { sampleData: true });
      core.profiles.use(profile.id);
      profilesChanged();
      return profile;
    },

    async testConnection({ baseUrl, accountId, tokens, profileId }) {
      let given = tokens ? normalizeTokens({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }) : null;
      if (!given && profileId !== undefined) {
        const profile = core.profiles.get(profileId);
        // Stored tokens go only to the address they were saved for (a new address gets none); tokens
        // with no recorded address only to the one the profile is saved with.
        if (profile) {
          given = profile.sampleData
            ? (await core.tokens.resolve(profile)).tokens
            : await core.credentials.getFor(profileId, bindingOf({ baseUrl, accountId }), bindingOf(profile)).catch(() => null);
        }
      }
      const url = profileId !== undefined && core.profiles.get(profileId)?.sampleData ? await core.sampleApi.ensure() : baseUrl;
      return testConnection({ baseUrl: url, accountId, tokens: given });
    },

    async keptSettings({ profileId }) {
      return readKeptSettings(core.caches, profileOf(profileId));
    },
    async setKeptValues({ profileId, ...input }) {
      const settings = await setKeptValues(core.caches, profileOf(profileId), input);
      // The filter pane lists the kept values: it reads them again.
      core.emit('cacheChanged', { profileId, resources: [input.resource] });
      return settings;
    },

    async getCredentialStatus({ profileId }) {
      return core.credentials.status(profileId);
    },

    async setCredentials({ profileId, accessToken, refreshToken, sessionOnly }) {
      return core.credentials.set(profileId, { accessToken, refreshToken }, { sessionOnly, boundTo: bindingOf(profileOf(profileId)) });
    },

    async clearCredentials({ profileId }) {
      await core.credentials.clear(profileId);
      return core.credentials.status(profileId);
    },

    async startSync({ resources }) {
      return core.startSync([...new Set(resources)]);
    },

    async cancelSync() {
      return { cancelled: core.syncs.cancel() };
    },

    async getSyncStatus(): Promise<SyncStatus> {
      const profile = core.activeProfile();
      const cache = await core.cache();
      const [resources, history] = await Promise.all([cache.resourceStates(), cache.syncHistory(20)]);
      return { profileId: profile.id, running: core.syncs.running, resources, history, connectivity: core.currentConnectivity() };
    },

    async clearCacheAndResync() {
      await core.clearCache();
      return core.startSync(['contacts', 'orders']);
    },

    async listViews({ resource }) {
      return core.views.list(core.activeProfile(), resource);
    },
    async createView(input) {
      return core.views.create(core.activeProfile(), input);
    },
    async updateView({ id, ...update }) {
      return core.views.update(core.activeProfile(), id, update);
    },
    async duplicateView({ id, name }) {
      return core.views.duplicate(core.activeProfile(), id, name);
    },
    async deleteView({ id }) {
      await core.views.remove(core.activeProfile(), id);
      return null;
    },
    async refreshViews({ ids }) {
      const { runId, done } = await core.views.refresh(core.activeProfile(), [...new Set(ids)]);
      done.catch(() => {}); // each view's outcome is announced (viewRefreshed)
      return { runId };
    },
    viewNewerIds: withCache((cache, { id }) => cache.viewNewerIds(id)),
    async previewServiceQuery({ resource, params }) {
      return core.views.preview(core.activeProfile(), resource, params);
    },

    queryContacts: withCache((cache, { query, window }) => cache.queryContacts(query, window)),
    countContacts: withCache((cache, { query }) => cache.countContacts(query)),
    contactFacets: withCache((cache, { query }) => cache.contactFacets(query)),
    getContact: withCache(async (cache, { id }) => (await cache.getContact(id)) ?? Promise.reject(notCached('Contact', id))),
    queryOrders: withCache((cache, { query, window }) => cache.queryOrders(query, window)),
    countOrders: withCache((cache, { query }) => cache.countOrders(query)),
    orderFacets: withCache((cache, { query }) => cache.orderFacets(query)),
    getOrder: withCache(async (cache, { id }) => (await cache.getOrder(id)) ?? Promise.reject(notCached('Order', id))),
    learnedStatusNames: withCache((cache) => cache.learnedStatusNames()),
    queryTemplates: withCache((cache, { query, window }) => cache.queryTemplates(query, window)),
    getTemplate: withCache(async (cache, { id }) => (await cache.getTemplate(id)) ?? Promise.reject(notUsed('template', id))),
    queryCampaigns: withCache((cache, { query, window }) => cache.queryCampaigns(query, window)),
    getCampaign: withCache(async (cache, { id }) => (await cache.getCampaign(id)) ?? Promise.reject(notUsed('campaign', id))),
    // The database worker reads no profiles: the status names (the profile's, then the learned ones) travel with the call.
    overview: withCache(async (cache) => {
      const names = withLearnedNames(core.activeProfile().statusNames, (await cache.learnedStatusNames()).names);
      return cache.overview(Object.fromEntries(Object.entries(names).map(([code, n]) => [code, n.name])));
    }),

    duplicateGroups: withCache((cache, request) => cache.duplicateGroups(request)),

    async exportColumns({ kind }) {
      return exportColumns(kind).map(({ key, header, inDefault }) => ({ key, header, inDefault }));
    },

    async exportFile(input) {
      const profile = core.activeProfile();
      // The database worker reads no profiles: the status names (the profile's, then the learned ones) travel with the request.
      const names = input.kind === 'orders' || input.kind === 'recipients' ? withLearnedNames(profile.statusNames, (await (await core.cache()).learnedStatusNames()).names) : null;
      const request = names ? { ...input, statusNames: names } : input;
      const exportId = randomUUID();
      const xlsx = request.format === 'xlsx';
      const path = await core.options.platform.showSaveDialog(
        defaultExportFileName(profile.name, request.kind, new Date(), xlsx ? 'xlsx' : 'csv'),
        xlsx ? [{ name: 'Excel workbook', extensions: ['xlsx'] }] : [{ name: 'CSV', extensions: ['csv'] }, { name: 'Text', extensions: ['txt', 'tsv'] }],
      );
      if (path === null) return { exportId, path: null, rows: 0 };
      core.emit('exportStarted', { exportId, path });
      const { rows, sheets } = await core.exports.run(await core.cache(), request, path, {
        exportId,
        onProgress: (p) => core.emit('exportProgress', { exportId, ...p }),
      });
      exportedPaths.add(path);
      return { exportId, path, rows, ...(sheets ? { sheets } : {}) };
    },

    async cancelExport({ exportId }) {
      return { cancelled: core.exports.cancel(exportId) };
    },

    async showInFolder({ path }) {
      // Only files this session wrote: the page cannot make the shell reveal arbitrary paths.
      if (!exportedPaths.has(path)) throw new LetterdeskError('NOT_FOUND', 'Only files exported in this session can be shown in their folder.');
      core.options.platform.showItemInFolder(path);
      return null;
    },

    labelAddresses: withCache((cache, request) => cache.labelAddresses(request)),
    async savePrintPdf({ what }) {
      const print = core.options.platform.printToPdf;
      if (!print) throw new LetterdeskError('VALIDATION', 'Labels can be saved as PDF from the app window only.');
      const name = `letterdesk-${fileSlug(core.activeProfile().name, 'profile')}-${what}-${localDay(new Date())}.pdf`;
      const path = await core.options.platform.showSaveDialog(name, [{ name: 'PDF', extensions: ['pdf'] }]);
      if (path === null) return { path: null, pages: 0 };
      const pdf = Buffer.from(await print());
      writeFileBytes(path, pdf);
      exportedPaths.add(path);
      return { path, pages: pdfPageCount(pdf) };
    },
    async saveChartImage({ fileName, format, data }) {
      const filters = format === 'png' ? [{ name: 'PNG image', extensions: ['png'] }] : [{ name: 'SVG image', extensions: ['svg'] }];
      const path = await core.options.platform.showSaveDialog(chartFileName(core.activeProfile().name, fileName, format, new Date()), filters);
      if (path === null) return { path: null };
      writeChartImage(path, format, data);
      exportedPaths.add(path);
      return { path };
    },

    async openExternal({ url }) {
      if (!isSafeExternalUrl(url)) throw new LetterdeskError('VALIDATION', 'Only http and https links can be opened.');
      await core.options.platform.openExternal(url);
      return null;
    },
  } satisfies Handlers;
  return handlers;
}
