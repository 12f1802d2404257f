/**
 * Contact ↔ recipient (§2.3 OrderContact.contact, the snapshot an order keeps): a contact's detail
 * lists each recipient entry that names it, with the address used then and which fields differ
 * from the contact's current ones; an order's recipient whose contact is no longer cached carries
 * its snapshot and says so. A real cache synced from the sample API over loopback; the expected
 * entries are computed from the service's own orders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { getContact, getOrder } from '../../electron/main/cache/read/queries.ts';
import { runSync } from '../../electron/main/sync/engine.ts';
import { createHttpPageSource } from '../../electron/main/sync/httpSource.ts';
import type { PageSource } from '../../electron/main/sync/pageSource.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';

let dir: string;
let api: SampleApi;
let db: Database.Database;
let source: PageSource;
/** Contact id → [order id, recipient entry id] of every entry naming it, newest order first. */
const entries = new Map<string, [string, string][]>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ld-appearances-'));
  api = await startSampleApi({ contacts: 300, orders: 400, seed: 21 });
  for (const o of api.dataset.orders()) for (const c of o.contacts) entries.set(c.contact.id, [...(entries.get(c.contact.id) ?? []), [o.id, c.id]]);
  db = openCache(join(dir, 'cache.sqlite'));
  source = createHttpPageSource({ baseUrl: api.baseUrl, tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN } });
  expect((await runSync(db, source, { resources: ['contacts', 'orders'], pageSize: 200 })).map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
}, 60_000);
afterAll(async () => {
  db?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Contacts named by at least two recipient entries, most named first. */
const named = () => [...entries].filter(([, e]) => e.length >= 2).sort((a, b) => b[1].length - a[1].length).map(([id]) => id);

describe('a contact and the orders it appears in', () => {
  it('lists every recipient entry that names the contact, with the snapshot, unchanged since', () => {
    const id = named()[0]!;
    const detail = getContact(db, id)!;
    expect(detail.appearances.map((a) => [a.order.id, a.recipient.id])).toEqual(entries.get(id));
    expect([...new Set(detail.appearances.map((a) => a.order.id))]).toEqual(detail.orders.map((o) => o.id));
    for (const a of detail.appearances) {
      const order = api.dataset.orderById(a.order.id)!;
      const snapshot = order.contacts.find((c) => c.id === a.recipient.id)!.contact;
      expect(a.recipient).toMatchObject({ contactId: id, fullName: snapshot.fullName, address1: snapshot.address1, city: snapshot.city, zip: snapshot.zip, websiteUrl: snapshot.websiteUrl });
      expect(a.recipient).toMatchObject({ contactInCache: true, changedSinceOrder: [], addressChanged: false });
    }
  });

  it('after the contact moved, marks the snapshot whose address differs; a change of case or blanks only is no change', async () => {
    const [moved, recased] = named() as [string, string];
    const before = api.dataset.contactById(recased)!;
    api.dataset.updateContact(moved, { city: 'Elsewhere', address2: 'Suite 9' });
    api.dataset.updateContact(recased, { email: before.email.toUpperCase(), fullName: ` ${before.fullName.replace(' ', '   ')} ` });
    expect((await runSync(db, source, { resources: ['contacts'], pageSize: 200 }))[0]?.changes).toEqual({ added: 0, changed: 2, removed: 0 });
    const detail = getContact(db, moved)!;
    expect(detail.appearances.length).toBe(entries.get(moved)!.length);
    for (const a of detail.appearances) expect(a.recipient).toMatchObject({ contactInCache: true, changedSinceOrder: ['address2', 'city'], addressChanged: true });
    for (const a of getContact(db, recased)!.appearances) expect(a.recipient).toMatchObject({ changedSinceOrder: [], addressChanged: false });
    // The order's detail compares each recipient with the contact as cached now, too.
    const [orderId, entryId] = entries.get(moved)![0]!;
    expect(getOrder(db, orderId)!.recipients.find((r) => r.id === entryId)).toMatchObject({ changedSinceOrder: ['address2', 'city'], addressChanged: true });
  });

  it('a recipient whose contact is no longer cached carries the snapshot the order kept', async () => {
    const gone = named()[2]!;
    const [orderId, entryId] = entries.get(gone)![0]!;
    const snapshot = api.dataset.orderById(orderId)!.contacts.find((c) => c.id === entryId)!.contact;
    api.dataset.deleteContact(gone);
    await runSync(db, source, { resources: ['contacts'], pageSize: 200 });
    const recipient = getOrder(db, orderId)!.recipients.find((r) => r.id === entryId)!;
    expect(recipient).toMatchObject({ contactId: gone, contactInCache: false, changedSinceOrder: [], addressChanged: false });
    expect(recipient).toMatchObject({ firstName: snapshot.firstName, lastName: snapshot.lastName, fullName: snapshot.fullName, email: snapshot.email, phoneNo: snapshot.phoneNo, address1: snapshot.address1, city: snapshot.city });
    // The removed contact's kept copy still opens, with the entries that name it.
    const kept = getContact(db, gone)!;
    expect(kept.change).toBe('removed');
    expect(kept.appearances.map((a) => a.recipient.id)).toEqual(entries.get(gone)!.map(([, e]) => e));
  });
});
