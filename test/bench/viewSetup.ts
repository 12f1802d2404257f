/**
 * The saved view the benchmark opens and types in (issue 22): a contacts view whose membership is a
 * tenth of the cache, spread over it (every contact whose rowid hashes into the first tenth), as a
 * refresh would publish it — staged page by page and published through the cache's own membership
 * code (cache/savedViews/staging.ts, cache/savedViews/publish.ts), without a service to read it from.
 */
import { openCache } from '../../electron/main/cache/store/db.ts';
import { createView } from '../../electron/main/cache/savedViews/savedViews.ts';
import { publishMembership } from '../../electron/main/cache/savedViews/publish.ts';
import { MembershipStaging } from '../../electron/main/cache/savedViews/staging.ts';

/** What {@link prepareBenchView} made. */
export interface BenchView {
  viewId: string;
  members: number;
  /** Staging the ids and publishing the membership (its rowids, search index), ms. */
  publishMs: number;
}

/**
 * Creates the view "Bench view" in the cache at `file` with about `share` of its contacts as
 * members, and closes the cache cleanly.
 */
export async function prepareBenchView(file: string, share = 0.1): Promise<BenchView> {
  const db = openCache(file);
  try {
    const query = { addressStatus: ['Failed'] };
    const view = createView(db, { resource: 'contacts', name: 'Bench view', serviceQuery: query });
    // Knuth's multiplicative hash of the rowid: a tenth of the contacts, spread over every part of the cache.
    const ids = db.prepare('SELECT id FROM contacts WHERE (rowid * 2654435761) % 1000 < ? ORDER BY rowid').pluck().all(Math.round(share * 1000)) as string[];
    const t0 = performance.now();
    const staging = new MembershipStaging(db, { viewId: view.id, resource: 'contacts', queryText: JSON.stringify(query), accountId: null });
    staging.saveState({ runId: 'bench', pageSize: 1000, serverCount: ids.length, pass: 1, accountId: null });
    for (let page = 0; page * 1000 < ids.length; page++) {
      await staging.writePage(1, page, ids.length, ids.slice(page * 1000, (page + 1) * 1000).map((id) => ({ ok: true, record: { id } })));
    }
    const membership = publishMembership(db, { viewId: view.id, resource: 'contacts', queryText: JSON.stringify(query), request: '/contacts?addressStatus=%5B%22Failed%22%5D' });
    return { viewId: view.id, members: membership.members, publishMs: performance.now() - t0 };
  } finally {
    db.close();
  }
}
