// The sample dataset on its own: determinism, spec types, realism, hard cases, edit overlay, scale.
import { describe, expect, it } from 'vitest';
import { contactSchema, orderSchema } from '../../shared/serviceRecords.ts';
import { createSampleDataset, type SampleContact } from '../../electron/main/sampleApi/dataset.ts';
import { CITIES } from '../../electron/main/sampleApi/words.ts';

describe('sample dataset', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = createSampleDataset({ contacts: 500, orders: 100, seed: 7 });
    const b = createSampleDataset({ contacts: 500, orders: 100, seed: 7 });
    const c = createSampleDataset({ contacts: 500, orders: 100, seed: 8 });
    expect(JSON.stringify(a.contactsFrom(0, 500))).toBe(JSON.stringify(b.contactsFrom(0, 500)));
    expect(JSON.stringify(a.ordersFrom(0, 100))).toBe(JSON.stringify(b.ordersFrom(0, 100)));
    expect(JSON.stringify(a.contactsFrom(0, 50))).not.toBe(JSON.stringify(c.contactsFrom(0, 50)));
    // random access equals sequential access
    expect(a.contactAt(123)).toEqual(a.contactsFrom(120, 5)[3]);
  });

  it('produces every §2 field in its spec type (all rows pass the record schemas)', () => {
    const ds = createSampleDataset({ contacts: 3000, orders: 600, seed: 3 });
    for (const c of ds.contacts()) {
      const r = contactSchema.safeParse(c);
      if (!r.success) throw new Error(`contact ${c.id}: ${r.error.message}`);
    }
    for (const o of ds.orders()) {
      const r = orderSchema.safeParse(o);
      if (!r.success) throw new Error(`order ${o.id}: ${r.error.message}`);
    }
  });

  it('is realistic and varied: matching city/state/ZIP, labels, nulls, years, recipients, products', () => {
    const ds = createSampleDataset({ contacts: 4000, orders: 1500, seed: 1 });
    const contacts = [...ds.contacts()];
    const cityKey = new Map(CITIES.map(([city, state, zip3]) => [`${city}|${state}`, zip3]));
    let matching = 0;
    for (const c of contacts) if (c.zip.startsWith(cityKey.get(`${c.city}|${c.state}`) ?? '#')) matching++;
    expect(matching).toBe(contacts.length);
    const labels = new Set(contacts.flatMap((c) => c.ContactLabels.map((l) => l.title)));
    expect(labels.size).toBeGreaterThanOrEqual(10);
    expect(labels.size).toBeLessThanOrEqual(20);
    const verified = new Set(contacts.map((c) => c.isVerified));
    expect(verified).toEqual(new Set([true, false, null]));
    expect(contacts.some((c) => c.extension !== '')).toBe(true);
    expect(contacts.filter((c) => c.meta?.account_id).length).toBeGreaterThan(contacts.length / 5);
    const years = new Set(contacts.map((c) => c.createdAt.slice(0, 4)));
    expect(years.size).toBeGreaterThanOrEqual(5);
    expect(new Set(contacts.map((c) => c.id)).size).toBe(contacts.length);

    const orders = [...ds.orders()];
    const counts = orders.map((o) => o.contacts.length);
    expect(Math.min(...counts)).toBe(1);
    expect(Math.max(...counts)).toBeGreaterThan(40);
    expect(new Set(orders.map((o) => o.product.id)).size).toBeGreaterThanOrEqual(5);
    expect(orders.every((o) => o.template.templateUrl.startsWith('https://') && o.template.thumbnailUrl.startsWith('https://'))).toBe(true);
    expect(orders.some((o) => o.contacts.some((r) => r.trackingCode !== null))).toBe(true);
    expect(orders.some((o) => o.contacts.some((r) => r.isDelivered))).toBe(true);
    expect(orders.some((o) => o.meta.account_id)).toBe(true);
    expect(orders.some((o) => Object.keys(o.meta).length === 0)).toBe(true);
    expect(orders.some((o) => o.campaign.deliveryDate === null) && orders.some((o) => o.campaign.deliveryDate !== null)).toBe(true);
    // recipient snapshots are snapshots of real contacts of the dataset
    const byId = new Map(contacts.map((c) => [c.id, c]));
    const r0 = orders[0]!.contacts[0]!;
    expect(byId.get(r0.contact.id)?.fullName).toBe(r0.contact.fullName);
    expect(r0.orderId).toBe(orders[0]!.id);
  });

  it('includes the hard cases on purpose', () => {
    const ds = createSampleDataset({ contacts: 2000, orders: 10, seed: 1 });
    const contacts = [...ds.contacts()];
    const all = (c: SampleContact) => [c.firstName, c.lastName, c.companyName, c.address1, c.address2, c.phoneNo, c.websiteUrl];
    expect(contacts.some((c) => /[^\x20-\x7e]/.test(c.fullName))).toBe(true);
    expect(contacts.some((c) => c.firstName === 'Zoë' && c.lastName === 'Ångström')).toBe(true);
    expect(contacts.some((c) => all(c).some((v) => v.includes('"') && v.includes(',')))).toBe(true);
    expect(contacts.some((c) => all(c).some((v) => v.includes('\r\n')))).toBe(true);
    expect(contacts.some((c) => all(c).some((v) => v.includes('\n') && !v.includes('\r')))).toBe(true);
    for (const lead of ['=', '+', '-', '@']) expect(contacts.some((c) => all(c).some((v) => v.startsWith(lead)))).toBe(true);
    expect(contacts.some((c) => all(c).some((v) => v.length > 2000))).toBe(true);
    // even a tiny dataset has some
    const tiny = [...createSampleDataset({ contacts: 10, orders: 1 }).contacts()];
    expect(tiny.some((c) => /[^\x20-\x7e]/.test(JSON.stringify(all(c))) || all(c).some((v) => /^[=+\-@]|["\n]/.test(v)))).toBe(true);
  });

  it('edit overlay: delete, add (newest first), update, ids iterator, positions', () => {
    const ds = createSampleDataset({ contacts: 50, orders: 20 });
    const before = [...ds.contactIds()];
    expect(before.length).toBe(50);
    expect(Number(before[0])).toBeGreaterThan(Number(before[49]));
    const victim = before[10]!;
    expect(ds.deleteContact(victim)).toBe(true);
    expect(ds.deleteContact(victim)).toBe(false);
    expect(ds.deleteContact('999')).toBe(false);
    expect(ds.contactCount).toBe(49);
    expect(ds.contactAt(10).id).toBe(before[11]);
    expect(ds.contactById(victim)).toBeNull();
    const added = ds.addContacts(3);
    expect(ds.contactCount).toBe(52);
    expect([...ds.contactIds()].slice(0, 3)).toEqual([...added].reverse());
    expect(contactSchema.safeParse(ds.contactById(added[0]!)).success).toBe(true);
    expect(ds.updateContact(before[0]!, { city: 'Nowhere', id: 'x' })).toBe(true);
    expect(ds.contactById(before[0]!)?.city).toBe('Nowhere');
    expect(ds.contactById(before[0]!)?.id).toBe(before[0]);
    // positions and the iterator agree after edits
    const ids = [...ds.contactIds()];
    expect(ids.length).toBe(ds.contactCount);
    ids.forEach((id, i) => expect(ds.contactAt(i).id).toBe(id));
    expect(ds.contactsFrom(45, 10).map((c) => c.id)).toEqual(ids.slice(45));
    expect(() => ds.contactAt(ds.contactCount)).toThrow(RangeError);
    // orders too
    const o = [...ds.orderIds()];
    ds.deleteOrder(o[0]!);
    ds.addOrders(2);
    ds.updateOrder(o[1]!, { status: 42 });
    expect(ds.orderCount).toBe(21);
    expect(ds.orderById(o[1]!)?.status).toBe(42);
    expect([...ds.orderIds()].includes(o[0]!)).toBe(false);
  });

  it('scales without up-front work: 1,000,000 contacts / 300,000 orders, any row on demand', () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const ds = createSampleDataset({ contacts: 1_000_000, orders: 300_000 });
    const last = ds.contactAt(999_999);
    expect(last.id).toBe('10000001');
    expect(ds.contactAt(0).id).toBe('11000000');
    expect(orderSchema.safeParse(ds.orderAt(299_999)).success).toBe(true);
    for (const c of ds.contactsFrom(500_000, 2000)) expect(typeof c.id).toBe('string');
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(50 * 1024 * 1024);
  });
});
