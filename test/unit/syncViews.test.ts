/**
 * Refreshing a saved view's membership through the sync's engine, against the sample API over
 * loopback HTTP and real SQLite files: the membership equals what the service returns for the
 * view's query (paged through here with the API client directly); under faults (429 with
 * Retry-After, 5xx, dropped connections, drift while paging) it ends with the exact membership or
 * the previous one and a clear error; a sync process killed mid-refresh leaves the previous one;
 * records the mirror lacks are shown until a full sync brings them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Resource } from '../../shared/serviceRecords.ts';
import type { ViewRefresh, ViewServiceQuery } from '../../shared/views.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { countContacts, getContact, queryContacts } from '../../electron/main/cache/read/queries.ts';
import { createView, deleteView, duplicateView, getView, updateView, viewNewerIds } from '../../electron/main/cache/savedViews/savedViews.ts';
import { startSync } from '../../electron/main/sync/controller.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { serviceIds as readServiceIds } from '../helpers/serviceIds.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

const tokens = { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN };
let dir: string;
let api: SampleApi;
let db: Database.Database;
let file: string;

/** The ids the service returns for `query`, in its order, read page by page with the API client. */
const serviceIds = (resource: Resource, query: ViewServiceQuery): Promise<string[]> => readServiceIds(api.baseUrl, resource, query);

/** The ids of a view's membership, in the service's order. */
function memberIds(viewId: string): string[] {
  return db.prepare('SELECT m.id FROM view_members m JOIN view_memberships v ON v.member_key = m.member_key WHERE v.view_id = ? ORDER BY m.position').pluck().all(viewId) as string[];
}

/** The ids the view shows, in its default order. */
function shownIds(viewId: string): string[] {
  return queryContacts(db, { view: viewId }, { offset: 0, limit: 1000 }).rows.map((r) => r.id).concat(
    queryContacts(db, { view: viewId }, { offset: 1000, limit: 1000 }).rows.map((r) => r.id),
  );
}

async function refresh(viewIds: string[], options: { pageSize?: number; concurrency?: number; signal?: AbortSignal; maxPasses?: number; onPage?: (pages: number) => void } = {}): Promise<ViewRefresh[]> {
  const outcomes: ViewRefresh[] = [];
  let pages = 0;
  await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens, backoffMs: 5, retries: 4 }), {
    resources: [], pageSize: options.pageSize ?? 100, concurrency: options.concurrency ?? 3, progressIntervalMs: 0, maxPasses: options.maxPasses ?? 5,
    ...(options.signal ? { signal: options.signal } : {}),
    views: { ids: viewIds, onViewRefreshed: (r) => outcomes.push(r), onViewProgress: (_id, p) => p.phase === 'fetching' && options.onPage?.(++pages) },
  });
  return outcomes;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-syncviews-'));
  api = await startSampleApi({ contacts: 2000, orders: 600, seed: 31 });
  file = join(dir, 'cache.sqlite');
  db = openCache(file);
  const runs = await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens }), { resources: ['contacts', 'orders'], pageSize: 500 });
  expect(runs.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
}, 60_000);

afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => api.setFaults({}));

describe('membership refresh against the sample API', () => {
  it('reads every page of the view\'s query: the membership is what the service returns, in its order, with the request and time', async () => {
    const contacts = createView(db, { resource: 'contacts', name: 'An', serviceQuery: { search: 'an' } });
    const label = api.dataset.contactAt(3).ContactLabels[0]?.id ?? '1';
    const tagged = createView(db, { resource: 'contacts', name: 'Tagged', serviceQuery: { tags: [label], search: 'e' } });
    const product = api.dataset.orderAt(0).product.productType;
    const orders = createView(db, { resource: 'orders', name: 'Product', serviceQuery: { productTypes: [product] } });
    const before = new Date().toISOString();
    const outcomes = await refresh([contacts.id, tagged.id, orders.id], { pageSize: 70 });
    expect(outcomes.map((o) => [o.viewId, o.outcome, o.error])).toEqual([[contacts.id, 'succeeded', null], [tagged.id, 'succeeded', null], [orders.id, 'succeeded', null]]);
    for (const [view, resource] of [[contacts, 'contacts'], [tagged, 'contacts'], [orders, 'orders']] as const) {
      const want = await serviceIds(resource, view.serviceQuery!);
      expect(want.length).toBeGreaterThan(resource === 'orders' ? 10 : 50);
      expect(memberIds(view.id), view.name).toEqual(want);
      const membership = getView(db, view.id)?.membership;
      expect(membership).toMatchObject({ serverCount: want.length, members: want.length, newerThanMirror: 0 });
      expect(membership!.refreshedAt >= before).toBe(true);
      expect(outcomes.find((o) => o.viewId === view.id)?.membership).toEqual(membership);
    }
    // The request recorded is the first page's, relative to the base URL and without a token: sent
    // again as it is, the service answers with the membership's first page.
    for (const view of [contacts, tagged, orders]) {
      const request = getView(db, view.id)?.membership?.request ?? '';
      expect(request).toMatch(view.resource === 'contacts' ? /^\/contacts\?/ : /^\/orders\/\?/);
      expect(request).not.toMatch(new RegExp(`${SAMPLE_ACCESS_TOKEN}|${SAMPLE_REFRESH_TOKEN}`));
      const answer = await fetch(`${api.baseUrl}${request}`, { headers: { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}`, refreshtoken: SAMPLE_REFRESH_TOKEN } });
      const body = (await answer.json()) as { data: { count: number; rows: { id: string }[] } };
      expect(body.data.count).toBe(getView(db, view.id)?.membership?.serverCount);
      expect(body.data.rows.map((r) => r.id)).toEqual(memberIds(view.id).slice(0, 70));
    }
    expect(countContacts(db, { view: contacts.id })).toEqual({ count: memberIds(contacts.id).length, exact: true });
  });

  it('429 with Retry-After, 5xx and dropped connections: retried, and the membership is exact', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Faults', serviceQuery: { search: 'ar' } });
    api.setFaults({ rateLimitRate: 0.25, retryAfterSeconds: 1, serverErrorRate: 0.15, dropRate: 0.1, maxFaults: 6, seed: 4 });
    const started = performance.now();
    const [outcome] = await refresh([view.id], { pageSize: 60 });
    const elapsed = performance.now() - started;
    expect(outcome?.outcome, JSON.stringify(outcome?.error)).toBe('succeeded');
    expect(api.stats().faults).toBe(6);
    // At least one 429 was honoured: its Retry-After (1 s) was waited.
    expect(elapsed).toBeGreaterThan(900);
    api.setFaults({});
    expect(memberIds(view.id)).toEqual(await serviceIds('contacts', { search: 'ar' }));
  });

  it('drift while paging is read again until a pass agrees; drift that never settles keeps the previous membership and says why', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Drifting', serviceQuery: { search: 'a' } });
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    const previous = memberIds(view.id);
    // Records are added and deleted after every page; the service settles after a while.
    api.setFaults({ drift: { inserts: 2, deletes: 1 }, endpoints: ['contacts'] });
    let passes = 0;
    const [settled] = await refresh([view.id], { pageSize: 80, onPage: (pages) => pages === 12 && (passes++, api.setFaults({})) });
    expect(settled?.outcome, JSON.stringify(settled?.error)).toBe('succeeded');
    expect(passes).toBe(1);
    expect(memberIds(view.id)).toEqual(await serviceIds('contacts', { search: 'a' }));
    expect(memberIds(view.id)).not.toEqual(previous);
    // Drift that never settles: DRIFT after the passes allowed, the previous membership kept.
    const kept = memberIds(view.id);
    const keptMembership = getView(db, view.id)?.membership;
    api.setFaults({ drift: { inserts: 1 }, endpoints: ['contacts'] });
    const [failed] = await refresh([view.id], { pageSize: 80, maxPasses: 2 });
    expect(failed?.outcome).toBe('failed');
    expect(failed?.error?.code).toBe('DRIFT');
    expect(failed?.error?.message).toMatch(/kept changing while they were read \(2 full reads did not agree\)\. The previous members of view "Drifting" are still shown\./);
    expect(failed?.membership).toEqual(keptMembership);
    expect(memberIds(view.id)).toEqual(kept);
    expect(getView(db, view.id)?.lastError).toMatchObject({ code: 'DRIFT', message: failed?.error?.message });
  });

  it('a service that keeps failing: the previous membership is kept and the error recorded; the next success clears it', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Down', serviceQuery: { search: 'ro' } });
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    const kept = memberIds(view.id);
    api.setFaults({ serverErrorRate: 1 });
    const [failed] = await refresh([view.id]);
    expect(failed).toMatchObject({ outcome: 'failed', error: { code: 'SERVER_ERROR' } });
    expect(failed?.error?.message).toMatch(/The previous members of view "Down" are still shown|5\d\d/);
    expect(memberIds(view.id)).toEqual(kept);
    expect(shownIds(view.id).sort()).toEqual([...kept].sort());
    expect(getView(db, view.id)?.lastError).toMatchObject({ code: 'SERVER_ERROR' });
    api.setFaults({});
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    expect(getView(db, view.id)?.lastError).toBeNull();
  });

  it('a cancel keeps the previous membership and records no error; the views after it are reported as not refreshed', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Cancelled', serviceQuery: { search: 'e' } });
    const other = createView(db, { resource: 'orders', name: 'Not reached', serviceQuery: { search: '1' } });
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    const kept = memberIds(view.id);
    api.setFaults({ latencyMs: 20 });
    const abort = new AbortController();
    const outcomes = await refresh([view.id, other.id], { pageSize: 40, concurrency: 1, signal: abort.signal, onPage: (pages) => pages === 3 && abort.abort() });
    expect(outcomes.map((o) => [o.viewId, o.outcome, o.error?.code])).toEqual([[view.id, 'cancelled', 'CANCELLED'], [other.id, 'cancelled', 'CANCELLED']]);
    expect(memberIds(view.id)).toEqual(kept);
    expect(getView(db, view.id)?.lastError).toBeNull();
    expect(getView(db, other.id)?.membership).toBeNull();
  });

  it('the data of a deleted view, and of a membership read again, is deleted by the next sync', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Deleted', serviceQuery: { search: 'ol' } });
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    const copy = duplicateView(db, view.id);
    expect(copy.membership).toEqual(getView(db, view.id)?.membership);
    const keyOf = (id: string) => db.prepare('SELECT member_key FROM view_memberships WHERE view_id = ?').pluck().get(id) as number;
    const first = keyOf(view.id);
    const stored = (key: number) => [
      db.prepare('SELECT count(*) FROM view_members WHERE member_key = ?').pluck().get(key),
      db.prepare('SELECT count(*) FROM view_contact_rows WHERE member_key = ?').pluck().get(key),
      db.prepare('SELECT count(*) FROM view_contacts_fts WHERE rowid BETWEEN ? AND ?').pluck().get(key * 2 ** 32, key * 2 ** 32 + 2 ** 32 - 1),
    ];
    expect(keyOf(copy.id)).toBe(first);
    expect(stored(first).every((n) => (n as number) > 0)).toBe(true);
    // Read again, the copy's new membership replaces the one it shared; deleted, the view lets go of it.
    expect((await refresh([copy.id]))[0]?.outcome).toBe('succeeded');
    expect(keyOf(copy.id)).not.toBe(first);
    deleteView(db, view.id);
    expect(stored(first).every((n) => (n as number) > 0)).toBe(true);
    await runSync(db, createHttpPageSource({ baseUrl: api.baseUrl, tokens }), { resources: [], pageSize: 100 });
    expect(stored(first)).toEqual([0, 0, 0]);
    expect(stored(keyOf(copy.id)).every((n) => (n as number) > 0)).toBe(true);
  });

  it('a query changed while it is read is not published under the new query', async () => {
    const view = createView(db, { resource: 'contacts', name: 'Edited', serviceQuery: { search: 'ma' } });
    api.setFaults({ latencyMs: 10 });
    const [outcome] = await refresh([view.id], { pageSize: 50, concurrency: 1, onPage: (pages) => pages === 2 && updateView(db, view.id, { serviceQuery: { search: 'mo' } }) });
    expect(outcome).toMatchObject({ outcome: 'cancelled', error: { code: 'CANCELLED' }, membership: null });
    expect(getView(db, view.id)?.membership).toBeNull();
    api.setFaults({});
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    expect(memberIds(view.id)).toEqual(await serviceIds('contacts', { search: 'mo' }));
  });
});

describe('membership refresh in the sync process', () => {
  const start = (extra: Partial<Parameters<typeof startSync>[0]>) => startSync({ cacheFile: file, baseUrl: api.baseUrl, tokens, accountId: null, pageSize: 50, concurrency: 2, resources: [], ...extra });

  it('runs each view after its resource, reports it, and shows a record the mirror lacks until a full sync brings it', async () => {
    const contacts = createView(db, { resource: 'contacts', name: 'Process', serviceQuery: { search: 'an' } });
    const orders = createView(db, { resource: 'orders', name: 'Process orders', serviceQuery: { search: '5000' } });
    const [added] = api.dataset.addContacts(1);
    api.dataset.updateContact(added as string, { firstName: 'Annabel', fullName: 'Annabel Newcomer' });
    const events: string[] = [];
    const refreshes: ViewRefresh[] = [];
    await start({ views: [contacts.id], onViewRefreshed: (r) => refreshes.push(r) });
    expect(refreshes.map((r) => r.outcome)).toEqual(['succeeded']);
    // The members the mirror lacks: the one added now, and those the drift above added.
    const mirrored = new Set(db.prepare('SELECT id FROM contacts').pluck().all() as string[]);
    const newer = (await serviceIds('contacts', { search: 'an' })).filter((id) => !mirrored.has(id));
    expect(newer).toContain(added);
    expect(viewNewerIds(db, contacts.id)).toEqual(newer);
    expect(refreshes[0]?.membership?.newerThanMirror).toBe(newer.length);
    expect(shownIds(contacts.id)).toContain(added);
    expect(queryContacts(db, { view: contacts.id, search: 'newcom' }, { offset: 0, limit: 10 }).rows.map((r) => r.id)).toEqual([added]);
    expect(getContact(db, added as string)?.contact.fullName).toBe('Annabel Newcomer');
    expect(queryContacts(db, { search: 'newcom' }, { offset: 0, limit: 10 }).rows).toEqual([]);
    // A full sync with the views after their resources: contacts, its view, orders, its view.
    await start({
      resources: ['contacts', 'orders'], views: [orders.id, contacts.id], pageSize: 500,
      onRun: (run) => events.push(`run ${run.resource} ${run.outcome}`),
      onViewRefreshed: (r) => events.push(`view ${r.viewId === contacts.id ? 'contacts' : 'orders'} ${r.outcome} ${r.membership?.newerThanMirror}`),
    });
    expect(events).toEqual(['run contacts succeeded', 'view contacts succeeded 0', 'run orders succeeded', 'view orders succeeded 0']);
    expect(viewNewerIds(db, contacts.id)).toEqual([]);
    expect(queryContacts(db, { search: 'newcom' }, { offset: 0, limit: 10 }).rows.map((r) => r.id)).toEqual([added]);
    expect(shownIds(contacts.id).sort()).toEqual((await serviceIds('contacts', { search: 'an' })).sort());
  });

  it('a sync process killed mid-refresh leaves the previous membership, and the next refresh completes', { timeout: 60_000 }, async () => {
    const view = createView(db, { resource: 'contacts', name: 'Killed', serviceQuery: { search: 'a' } });
    expect((await refresh([view.id]))[0]?.outcome).toBe('succeeded');
    for (const phase of ['fetching', 'verifying', 'publishing'] as const) {
      api.dataset.addContacts(3);
      const kept = memberIds(view.id);
      const keptShown = shownIds(view.id);
      api.setFaults({ latencyMs: 15 });
      let pid = 0;
      let killed = false;
      const ended = await start({
        views: [view.id], heapLimits: [undefined], onProcessStart: (p) => (pid = p),
        onViewProgress: (_id, p) => {
          if (!killed && p.phase === phase && (phase !== 'fetching' || p.pagesDone >= 5)) {
            killed = true;
            process.kill(pid, 'SIGKILL');
          }
        },
      }).then(() => 'finished', (error: { code?: string }) => error.code);
      expect(killed, phase).toBe(true);
      expect(ended, phase).toBe('INTERNAL');
      // A connection of its own: FTS5's integrity check in a connection that has read the index
      // before does not see another process's changes to it (queries do).
      const fresh = new Database(file, { readonly: true });
      expect(fresh.pragma('integrity_check', { simple: true }), phase).toBe('ok');
      const search = (conn: Database.Database) => queryContacts(conn, { view: view.id, search: 'ma' }, { offset: 0, limit: 1000 });
      expect(search(db), phase).toEqual(search(fresh));
      fresh.close();
      api.setFaults({});
      const now = await serviceIds('contacts', { search: 'a' });
      // Killed before its publish committed, the previous membership is shown as it was; killed
      // while publishing, it may also have committed the new one whole. Never a mix.
      if (phase === 'publishing' && memberIds(view.id).length === now.length) expect(memberIds(view.id), phase).toEqual(now);
      else {
        expect(memberIds(view.id), phase).toEqual(kept);
        expect(shownIds(view.id), phase).toEqual(keptShown);
      }
      const refreshes: ViewRefresh[] = [];
      await start({ views: [view.id], onViewRefreshed: (r) => refreshes.push(r) });
      expect(refreshes.map((r) => r.outcome), phase).toEqual(['succeeded']);
      expect(memberIds(view.id), phase).toEqual(now);
    }
  });

  it('a sync process killed mid-refresh is replaced, and the new one continues the staging of the same run', { timeout: 60_000 }, async () => {
    const view = createView(db, { resource: 'contacts', name: 'Resumed', serviceQuery: { search: 'e' } });
    // Slow enough pages that the progress of the 8th page (sent at most every 100 ms) comes well
    // before the last.
    api.setFaults({ latencyMs: 25 });
    let pid = 0;
    let killed = false;
    const requestsBefore = api.stats().byEndpoint.contacts;
    const refreshes: ViewRefresh[] = [];
    await start({
      views: [view.id], pageSize: 40, onProcessStart: (p) => (pid = p), onViewRefreshed: (r) => refreshes.push(r),
      onViewProgress: (_id, p) => {
        if (!killed && p.phase === 'fetching' && p.pagesDone >= 8) {
          killed = true;
          process.kill(pid, 'SIGKILL');
        }
      },
    });
    expect(killed).toBe(true);
    expect(refreshes.map((r) => r.outcome)).toEqual(['succeeded']);
    const requests = api.stats().byEndpoint.contacts - requestsBefore;
    api.setFaults({});
    const want = await serviceIds('contacts', { search: 'e' });
    expect(memberIds(view.id)).toEqual(want);
    // Pages written before the kill were not asked again: every page once, page 0 once more (to
    // check the count), and at most the two in flight when the process was killed.
    const pages = Math.ceil(want.length / 40);
    expect(requests).toBeLessThanOrEqual(pages + 1 + 2);
  });
});
