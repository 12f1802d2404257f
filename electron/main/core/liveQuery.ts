/**
 * A service query read live, every page, with no profile cache involved (`letterdesk query`): the
 * query becomes the one saved view of a temporary cache, whose membership the sync process reads
 * with the sync's own paging (retries, page-size caps, drift checks). With an empty mirror every
 * member's record is kept as the service returned it, so the temporary cache answers the
 * records, tables and exports of the query like any view, and is deleted afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Profile, SyncProgress } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import { checkServiceQuery } from '../../../shared/serviceQuery.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewRefresh, ViewServiceQuery } from '../../../shared/views.ts';
import { CacheClient } from '../cache/worker/client.ts';
import { startSync } from '../sync/controller.ts';
import type { CoreOptions } from './options.ts';
import type { SyncRuns } from './syncRuns.ts';
import type { TokenSource } from './tokens.ts';

/** The records of a live query, in a temporary cache. */
export interface LiveQueryResult {
  /** The temporary cache; read it with `{ view: viewId }` queries. */
  cache: CacheClient;
  viewId: string;
  /** The service's `count` for the query. */
  count: number;
  /** Closes and deletes the temporary cache. */
  close(): Promise<void>;
}

/**
 * Reads every page of `params` on `resource` from `profile`'s service.
 * @throws LetterdeskError VALIDATION (a bad parameter, before any request); the sync's errors
 *   (AUTH_REJECTED, NETWORK_UNREACHABLE, SERVER_ERROR, DRIFT, CANCELLED…)
 */
export async function readLiveQuery(
  deps: { options: CoreOptions; tokens: TokenSource; syncs: SyncRuns },
  profile: Profile,
  resource: Resource,
  params: ViewServiceQuery,
  hooks: { signal?: AbortSignal; onProgress?: (progress: SyncProgress) => void } = {},
): Promise<LiveQueryResult> {
  const query = checkServiceQuery(resource, params) as ViewServiceQuery;
  const { tokens } = await deps.tokens.resolve(profile);
  const baseUrl = await deps.syncs.baseUrlFor(profile);
  const folder = mkdtempSync(join(tmpdir(), 'letterdesk-query-'));
  const remove = () => rmSync(folder, { recursive: true, force: true });
  let cache: CacheClient | null = null;
  try {
    const file = join(folder, 'query.sqlite');
    cache = await CacheClient.open(file, { startupReader: false, ...(deps.options.cacheWorkerUrl ? { workerUrl: deps.options.cacheWorkerUrl } : {}) });
    const view = await cache.createView({ resource, name: 'query', serviceQuery: query, refreshAfterSync: false });
    const outcomes: ViewRefresh[] = [];
    await startSync({
      cacheFile: file,
      baseUrl,
      tokens,
      accountId: profile.accountId,
      pageSize: profile.pageSize,
      resources: [],
      views: [view.id],
      ...(profile.queryEncoding ? { encoding: profile.queryEncoding } : {}),
      ...(deps.options.platform.launchSyncProcess ? { launcher: deps.options.platform.launchSyncProcess } : {}),
      ...(deps.options.syncProcessUrl ? { processUrl: deps.options.syncProcessUrl } : {}),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      onViewProgress: (_id, progress) => hooks.onProgress?.(progress),
      onViewRefreshed: (refresh) => outcomes.push(refresh),
    });
    const result = outcomes.at(-1);
    if (result === undefined || result.outcome !== 'succeeded' || result.membership === null) {
      const error = result?.error ?? { code: 'INTERNAL', message: 'The query was not read.' };
      throw new LetterdeskError(error.code as never, error.message);
    }
    const open = cache;
    return {
      cache: open,
      viewId: view.id,
      count: result.membership.serverCount,
      close: async () => {
        await open.close();
        remove();
      },
    };
  } catch (error) {
    await cache?.close().catch(() => {});
    remove();
    throw error;
  }
}
