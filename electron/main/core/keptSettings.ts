/**
 * The kept filters as a profile setting (shared/keptFilters.ts): which values of the service's
 * filters a profile keeps offline, with what their cost is estimated from (rows, page size, the last
 * sync's pace). The app's Profiles page and the command line read and change them here.
 */
import { existsSync } from 'node:fs';
import { readsKeptFilters, type Profile, type SyncRun } from '../../../shared/contract.ts';
import { defaultKeptValues, keptValueName, type KeptCostBasis, type KeptFilter, type KeptSettings } from '../../../shared/keptFilters.ts';
import { RESOURCES, type Resource } from '../../../shared/serviceRecords.ts';
import type { KeptValuesInput } from '../cache/savedViews/keptValues.ts';
import type { CacheRegistry } from './caches.ts';

/** Sync runs looked through for the last one that succeeded, per resource. */
const HISTORY_LIMIT = 50;

/**
 * Seconds per request of the newest run of `resource` that succeeded: its length over the pages
 * its rows took (page 0 alone for a run that read nothing). Null when there is none, or its times
 * do not parse.
 */
export function secondsPerRequest(history: readonly SyncRun[], resource: Resource, pageSize: number): number | null {
  const run = history.find((r) => r.resource === resource && r.outcome === 'succeeded' && r.endedAt !== null);
  if (!run) return null;
  const seconds = (Date.parse(run.endedAt!) - Date.parse(run.startedAt)) / 1000;
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  return seconds / Math.max(1, Math.ceil(run.rows / pageSize));
}

/** The defaults as unread kept filters, for a profile whose cache does not exist yet. */
function unreadDefaults(): KeptFilter[] {
  return defaultKeptValues().map(({ resource, param, value }) => ({ resource, param, value, name: keptValueName(param, value), members: null, serverCount: null, readAt: null, asOfDay: null, lastError: null }));
}

/**
 * The profile's kept filters and their cost basis. A profile without a cache file shows the
 * defaults a new cache starts with; no file is created to say so.
 */
export async function readKeptSettings(caches: CacheRegistry, profile: Profile): Promise<KeptSettings> {
  const enabled = readsKeptFilters(profile);
  const none: KeptCostBasis = { pageSize: profile.pageSize, rows: null, secondsPerRequest: null };
  if (!existsSync(caches.fileOf(profile.id))) return { profileId: profile.id, enabled, kept: unreadDefaults(), basis: { contacts: none, orders: none } };
  const cache = await caches.open(profile);
  const [kept, states, history] = await Promise.all([cache.listKeptFilters(), cache.resourceStates(), cache.syncHistory(HISTORY_LIMIT)]);
  const basisOf = (resource: Resource): KeptCostBasis => ({
    pageSize: profile.pageSize,
    rows: states[resource].lastSyncedAt === null ? null : states[resource].rows,
    secondsPerRequest: secondsPerRequest(history, resource, profile.pageSize),
  });
  return { profileId: profile.id, enabled, kept, basis: Object.fromEntries(RESOURCES.map((r) => [r, basisOf(r)])) as Record<Resource, KeptCostBasis> };
}

/**
 * Makes `input.values` the kept values of one parameter of the profile's cache (created if it does
 * not exist yet); they are read from the service after the next sync.
 * @returns the settings afterwards
 * @throws LetterdeskError VALIDATION as cache/savedViews/keptValues.ts `setKeptValues` (nothing changes)
 */
export async function setKeptValues(caches: CacheRegistry, profile: Profile, input: KeptValuesInput): Promise<KeptSettings> {
  await (await caches.open(profile)).setKeptValues(input);
  return readKeptSettings(caches, profile);
}
