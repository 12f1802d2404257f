/**
 * Saved views through the app's handlers over a real core: the sample API (in this thread, so the
 * test can read its hidden state) over loopback HTTP, real SQLite, the sync process. A view's
 * members equal what the service answers for its query; search and filters work on top; a failed
 * refresh keeps the previous membership; the preview counts the query and the unfiltered resource;
 * views survive the service going away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInput, CallName, CallOutput, EventName, EventPayload } from '../../shared/contract.ts';
import type { ViewRefresh } from '../../shared/views.ts';
import { createCore, type Core } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';

const root = mkdtempSync(join(tmpdir(), 'ld-views-'));
const events: { event: EventName; payload: unknown }[] = [];
let core: Core;
let handlers: ReturnType<typeof createHandlers>;

async function call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
  const result = await dispatchCall(handlers, name, input);
  if (!result.ok) throw Object.assign(new Error(`${name}: ${result.error.message}`), { code: result.error.code });
  return result.value as CallOutput<N>;
}

/** Waits for the refresh of `viewId` announced after `from` events. */
async function refreshed(viewId: string, from: number): Promise<ViewRefresh> {
  for (let i = 0; i < 1200; i++) {
    const found = events.slice(from).find((e) => e.event === 'viewRefreshed' && (e.payload as ViewRefresh).viewId === viewId);
    if (found && !core.syncs.running) return found.payload as ViewRefresh;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error(`view ${viewId} was not refreshed within 60 s`);
}

const dataset = () => {
  const server = core.sampleApi.server;
  if (!server) throw new Error('the sample API runs in this thread');
  return server.dataset;
};

/** Ids of the sample contacts whose hidden address status is `status`, the service's own answer. */
function contactsWithAddressStatus(status: 'Failed' | 'Verified'): string[] {
  const ids: string[] = [];
  for (let i = 0; i < dataset().contactCount; i++) {
    const contact = dataset().contactAt(i);
    if (contact && dataset().contactHidden(contact.id)?.addressStatus === status) ids.push(contact.id);
  }
  return ids.sort();
}

beforeAll(async () => {
  core = createCore({
    dataDir: join(root, 'data'),
    version: 'test',
    logFile: null,
    platform: { showSaveDialog: async () => null, showItemInFolder: () => {}, openExternal: async () => {}, setProgress: () => {} },
    emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void events.push({ event, payload }),
    sample: { contacts: 1200, orders: 400, seed: 5 },
    sampleApiThread: 'main',
    keychain: 'session-only',
    autoSyncAfterMinutes: 0,
  });
  handlers = createHandlers(core);
  await call('createSampleProfile', {});
  await call('startSync', { resources: ['contacts', 'orders'] });
  for (let i = 0; i < 1200 && core.syncs.running; i++) await new Promise((ok) => setTimeout(ok, 50));
}, 120_000);

afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

describe('saved views over the handlers', () => {
  let failedId = '';

  it('a view of the service’s addressStatus filter holds exactly the contacts the service returns', async () => {
    const before = events.length;
    const view = await call('createView', { resource: 'contacts', name: 'Failed addresses', serviceQuery: { addressStatus: ['Failed'] } });
    failedId = view.id;
    const refresh = await refreshed(view.id, before);
    expect(refresh.outcome).toBe('succeeded');
    const expected = contactsWithAddressStatus('Failed');
    expect(expected.length).toBeGreaterThan(50);
    const page = await call('queryContacts', { query: { view: view.id }, window: { offset: 0, limit: 1000 } });
    expect(page.rows.map((r) => r.id).sort()).toEqual(expected);
    const [listed] = await call('listViews', { resource: 'contacts' });
    expect(listed).toMatchObject({ id: view.id, name: 'Failed addresses', membership: { members: expected.length, serverCount: expected.length } });
    expect(listed?.membership?.request).toMatch(/^\/contacts\?.*addressStatus=/);
    expect(events.slice(before).some((e) => e.event === 'viewsChanged')).toBe(true);
  });

  it('search, local filters, counts and facets work inside the view', async () => {
    const all = await call('queryContacts', { query: { view: failedId }, window: { offset: 0, limit: 1000 } });
    const someone = all.rows[3];
    expect(someone).toBeDefined();
    const found = await call('queryContacts', { query: { view: failedId, search: someone?.lastName ?? '' }, window: { offset: 0, limit: 1000 } });
    expect(found.rows.some((r) => r.id === someone?.id)).toBe(true);
    expect(found.rows.every((r) => all.rows.some((a) => a.id === r.id))).toBe(true);
    const counted = await call('countContacts', { query: { view: failedId } });
    expect(counted.count).toBe(all.rows.length);
    const facets = await call('contactFacets', { query: { view: failedId } });
    expect(facets.states.reduce((n, s) => n + s.count, 0)).toBe(all.rows.length);
  });

  it('the preview counts the query and the whole resource and shows the exact first request', async () => {
    const preview = await call('previewServiceQuery', { resource: 'contacts', params: { addressStatus: ['Failed'], lastMailedStatus: ['In Transit'] } });
    expect(preview.unfilteredCount).toBe(1200);
    expect(preview.count).toBeLessThan(contactsWithAddressStatus('Failed').length);
    expect(preview.request).toBe('/contacts?page=0&pageSize=500&addressStatus=%22Failed%22&lastMailedStatus=%22In%20Transit%22');
    const refused = await dispatchCall(handlers, 'previewServiceQuery', { resource: 'contacts', params: { addressStatus: ['Pending'] } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
  });

  it('a refresh the service fails keeps the previous membership and says why', async () => {
    core.sampleApi.server?.setFaults({ serverErrorRate: 1, endpoints: ['contacts'] });
    try {
      const before = events.length;
      await call('refreshViews', { ids: [failedId] });
      const refresh = await refreshed(failedId, before);
      expect(refresh.outcome).toBe('failed');
      expect(refresh.error?.code).toBe('SERVER_ERROR');
      const [view] = await call('listViews', { resource: 'contacts' });
      expect(view?.lastError?.code).toBe('SERVER_ERROR');
      expect(view?.membership?.members).toBe(contactsWithAddressStatus('Failed').length);
    } finally {
      core.sampleApi.server?.setFaults({});
    }
  }, 120_000);

  it('an orders view by paymentStatus, renamed, duplicated and deleted; views keep working with the service gone', async () => {
    const before = events.length;
    const view = await call('createView', { resource: 'orders', name: 'Unpaid', serviceQuery: { paymentStatus: ['PENDING', 'PAYMENT_FAILED'] }, settings: { query: { sort: { column: 'id', direction: 'asc' } } } });
    await refreshed(view.id, before);
    const expected: string[] = [];
    for (let i = 0; i < dataset().orderCount; i++) {
      const order = dataset().orderAt(i);
      const paymentStatus = order ? dataset().orderHidden(order.id)?.paymentStatus : undefined;
      if (order && (paymentStatus === 'PENDING' || paymentStatus === 'PAYMENT_FAILED')) expected.push(order.id);
    }
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(dataset().orderCount);
    const renamed = await call('updateView', { id: view.id, name: 'Unpaid orders' });
    expect(renamed.name).toBe('Unpaid orders');
    const copy = await call('duplicateView', { id: view.id });
    expect(copy.name).toBe('Unpaid orders (copy)');
    await call('deleteView', { id: copy.id });
    await core.sampleApi.stop();
    try {
      const page = await call('queryOrders', { query: { view: view.id }, window: { offset: 0, limit: 1000 } });
      expect(page.rows.map((r) => r.id).sort()).toEqual(expected.sort());
      expect((await call('listViews', { resource: 'orders' })).map((v) => v.name)).toEqual(['Unpaid orders']);
    } finally {
      await core.sampleApi.ensure();
    }
  }, 120_000);
});
