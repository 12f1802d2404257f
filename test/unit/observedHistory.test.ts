/**
 * The observed history (store/history.ts, build/observe.ts, read/timeline.ts): hand-made copies of
 * a service, synced by the real engine into a real cache file, changed by hand between syncs. The
 * history must hold exactly the changes made to the observed fields (a status, a delivery, a
 * tracking code, an address, labels, a removal, a record that comes back), each with the span of
 * the two reads around it; nothing for a first sync or for a change of an unobserved field; it must
 * survive the cache being cleared, and drop runs past the retention.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Observation } from '../../shared/contract.ts';
import type { Contact, Order, Resource } from '../../shared/serviceRecords.ts';
import { cacheFileSet } from '../../electron/main/base/paths.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { historyFileOf } from '../../electron/main/cache/store/history.ts';
import { getContact, getOrder, orderFacets, queryOrders } from '../../electron/main/cache/read/queries.ts';
import { timelineOf } from '../../electron/main/cache/read/timeline.ts';
import { overview } from '../../electron/main/cache/read/overview.ts';
import { localDay } from '../../shared/keptFilters.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import { generateContact, generateOrder } from '../../electron/main/sampleApi/generate.ts';

const AS_OF = Date.parse('2026-11-20T00:00:00.000Z');
let dir: string;
let file: string;
let db: Database.Database;
/** The service's records as the hand-made source serves them now. */
const service: { contacts: Contact[]; orders: Order[] } = { contacts: [], orders: [] };

/** A source that serves `service` as it stands at each request, 0-based pages. */
const source: PageSource = {
  fetchPage: (resource, page, pageSize) => {
    const rows = service[resource] as unknown[];
    return Promise.resolve({ count: rows.length, records: rows.slice(page * pageSize, (page + 1) * pageSize).map((record) => ({ ok: true as const, record: structuredClone(record) })) });
  },
};

async function sync(resources: Resource[] = ['contacts', 'orders'], historyRetentionDays?: number) {
  const runs = await runSync(db, source, { resources, pageSize: 7, ...(historyRetentionDays === undefined ? {} : { historyRetentionDays }) });
  for (const run of runs) expect(run.outcome, `${run.resource}: ${run.error?.message ?? ''}`).toBe('succeeded');
  return runs;
}

/** The run's recorded start and end (the cache's sync_runs). */
const span = (runId: string, resource: Resource) => db.prepare('SELECT started_at, ended_at FROM sync_runs WHERE run_id = ? AND resource = ?').get(runId, resource) as { started_at: string; ended_at: string };

const history = () => db.prepare('SELECT resource, observations FROM history.observation_runs ORDER BY run').all() as { resource: Resource; observations: number }[];

const contactAt = (i: number) => service.contacts[i] as Contact;
const orderAt = (i: number) => service.orders[i] as Order;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ld-history-'));
  file = join(dir, 'p1.sqlite');
  db = openCache(file);
  service.contacts = Array.from({ length: 30 }, (_, seq) => generateContact(41, seq, 30, AS_OF));
  service.orders = Array.from({ length: 12 }, (_, seq) => generateOrder(41, seq, 12, 30, undefined, AS_OF));
});

afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('what a sync observes', () => {
  let second: Awaited<ReturnType<typeof sync>>;
  let first: Awaited<ReturnType<typeof sync>>;
  let labelledId = '';
  const expected: Record<Resource, Map<string, Observation[]>> = { contacts: new Map(), orders: new Map() };
  const expect1 = (resource: Resource, id: string, o: Omit<Observation, 'after' | 'atOrBefore'>) => {
    const list = expected[resource].get(id) ?? [];
    list.push(o as Observation);
    expected[resource].set(id, list);
  };

  it('records nothing for a first sync, in a history file beside the cache', async () => {
    first = await sync();
    expect(history()).toEqual([]);
    expect(statSync(historyFileOf(file)).isFile()).toBe(true);
    expect(historyFileOf(file)).toBe(join(dir, 'p1.history.sqlite'));
  });

  it('records exactly the changes of the observed fields, with the span between the two reads', async () => {
    // An order moves on: its status, a delivery and a tracking code of one recipient.
    // The order at 2 with a recipient not delivered yet (the generator delivers most of them).
    const at = service.orders.findIndex((o, i) => i !== 3 && i !== 8 && o.contacts.some((r) => !r.isDelivered));
    expect(at).toBeGreaterThanOrEqual(0);
    service.orders.splice(2, 0, ...service.orders.splice(at, 1));
    const order = orderAt(2);
    const recipient = order.contacts.find((r) => !r.isDelivered)!;
    const status = order.status;
    order.status = status === 4 ? 3 : 4;
    expect1('orders', order.id, { field: 'status', from: status, to: order.status });
    const wasDelivered = recipient.isDelivered;
    recipient.isDelivered = !wasDelivered;
    const code = recipient.trackingCode;
    recipient.trackingCode = '9400 1118 9922 0001 0002 03';
    expect1('orders', order.id, { field: 'isDelivered', from: wasDelivered, to: !wasDelivered, recipientId: recipient.id });
    expect1('orders', order.id, { field: 'trackingCode', from: code as string | null, to: recipient.trackingCode as string, recipientId: recipient.id });
    // An order's unobserved field changes: nothing observed.
    orderAt(3).fileUrl = 'https://files.example/changed.pdf';
    // A contact moves house; another gets a label; one changes only its phone (not observed).
    const mover = contactAt(4);
    const [oldStreet, oldZip] = [mover.address1, mover.zip];
    mover.address1 = '12 New Road';
    mover.zip = '60601';
    expect1('contacts', mover.id, { field: 'address1', from: oldStreet, to: '12 New Road' });
    expect1('contacts', mover.id, { field: 'zip', from: oldZip, to: '60601' });
    const labelled = contactAt(5);
    labelledId = labelled.id;
    const oldLabels = structuredClone(labelled.ContactLabels);
    labelled.ContactLabels = [...labelled.ContactLabels, { id: '777', title: 'Probate' }];
    expect1('contacts', labelled.id, { field: 'ContactLabels', from: oldLabels as never, to: labelled.ContactLabels as never });
    contactAt(6).phoneNo = '555-0100';
    // One contact and one order removed, one contact added.
    const [gone] = service.contacts.splice(7, 1) as [Contact];
    expect1('contacts', gone.id, { field: 'record', from: 'present', to: 'absent' });
    const [goneOrder] = service.orders.splice(8, 1) as [Order];
    expect1('orders', goneOrder.id, { field: 'record', from: 'present', to: 'absent' });
    const added = { ...generateContact(41, 30, 30, AS_OF) };
    service.contacts.unshift(added);
    expect1('contacts', added.id, { field: 'record', from: 'absent', to: 'present' });

    second = await sync();
    for (const resource of ['contacts', 'orders'] as const) {
      const i = resource === 'contacts' ? 0 : 1;
      const after = span(first[i]!.runId, resource).started_at;
      const atOrBefore = span(second[i]!.runId, resource).ended_at;
      const ids = db.prepare('SELECT DISTINCT o.record_id FROM history.observations o JOIN history.observation_runs r USING (run) WHERE r.resource = ? ORDER BY 1').pluck().all(resource);
      expect(ids).toEqual([...expected[resource].keys()].sort());
      for (const [id, list] of expected[resource]) {
        const want = list.map((o) => ({ ...o, after, atOrBefore }));
        const order = (a: Observation, b: Observation) => (a.field + (a.recipientId ?? '')).localeCompare(b.field + (b.recipientId ?? ''));
        expect(timelineOf(db, resource, id).sort(order), id).toEqual(want.sort(order));
      }
    }
    expect(history().map((h) => h.resource)).toEqual(['contacts', 'orders']);
    // The overview counts the one delivery on the local day of the sync that saw it.
    expect(overview(db).deliveriesByDay).toEqual([{ day: localDay(new Date(span(second[1]!.runId, 'orders').ended_at)), count: 1 }]);
    // The filter and its pane counts find the one order delivered, in the last 7 and 30 days.
    expect(queryOrders(db, { deliveredSince: '7d' }, { offset: 0, limit: 50 }).rows.map((o) => o.id)).toEqual([order.id]);
    expect(orderFacets(db, {}).deliveredSince.map((o) => [o.value, o.count])).toEqual([['7d', 1], ['30d', 1]]);
    expect(orderFacets(db, { search: order.id }).deliveredSince.map((o) => o.count)).toEqual([1, 1]);
    expect(queryOrders(db, { deliveredSince: '2999-01-01' }, { offset: 0, limit: 50 }).rows).toEqual([]);
  });

  it('gives the details their timeline, and brings back a record that comes back', async () => {
    const order = orderAt(2);
    expect(getOrder(db, order.id)?.timeline.map((o) => o.field).sort()).toEqual(['isDelivered', 'status', 'trackingCode']);
    expect(getContact(db, labelledId)?.timeline.map((o) => o.field)).toEqual(['ContactLabels']);
    // The removed contact returns.
    const back = generateContact(41, 7, 30, AS_OF);
    service.contacts.push(back);
    const third = await sync(['contacts']);
    const t = timelineOf(db, 'contacts', back.id);
    expect(t.map((o) => [o.from, o.to])).toEqual([['present', 'absent'], ['absent', 'present']]);
    expect(t[1]!.atOrBefore).toBe(span(third[0]!.runId, 'contacts').ended_at);
    expect(t[1]!.after).toBe(span(second[0]!.runId, 'contacts').started_at);
    // The detail of a contact read in the same connection lists it too, oldest first.
    expect(getContact(db, back.id)?.timeline).toEqual(t);
  });

  it('stores nothing when no observed field changed', async () => {
    const before = history().length;
    contactAt(9).email = 'changed@example.com';
    await sync();
    expect(history().length).toBe(before);
  });
});

describe('the history outlives the cache', () => {
  it('keeps its runs when the cache is cleared and synced again, and the new cache starts afresh', async () => {
    const runs = history().length;
    const kept = timelineOf(db, 'orders', orderAt(2).id);
    expect(kept.length).toBe(3);
    db.close();
    for (const part of cacheFileSet(file)) rmSync(part, { force: true });
    db = openCache(file);
    await sync();
    // A first sync of the new cache compares with nothing and records nothing.
    expect(history().length).toBe(runs);
    expect(timelineOf(db, 'orders', orderAt(2).id)).toEqual(kept);
  });

  it('drops the runs past the retention with their observations, and keeps the others', async () => {
    const runs = db.prepare('SELECT run FROM history.observation_runs ORDER BY run').pluck().all() as number[];
    expect(runs.length).toBeGreaterThanOrEqual(3);
    // The first run ended 3 days ago; the retention is 2 days.
    db.prepare('UPDATE history.observation_runs SET at_or_before = ? WHERE run = ?').run(new Date(Date.now() - 3 * 86_400_000).toISOString(), runs[0]);
    const keptRows = db.prepare('SELECT count(*) FROM history.observations WHERE run <> ?').pluck().get(runs[0]);
    contactAt(10).city = 'Elsewhere';
    await sync(['contacts'], 2);
    const left = db.prepare('SELECT run FROM history.observation_runs ORDER BY run').pluck().all() as number[];
    expect(left.slice(0, runs.length - 1)).toEqual(runs.slice(1));
    expect(db.prepare('SELECT count(*) FROM history.observations WHERE run = ?').pluck().get(runs[0])).toBe(0);
    // The others stay, and the new run adds the one change.
    expect(db.prepare('SELECT count(*) FROM history.observations').pluck().get()).toBe((keptRows as number) + 1);
    expect(timelineOf(db, 'contacts', contactAt(10).id).map((o) => o.field)).toEqual(['city']);
  });
});
