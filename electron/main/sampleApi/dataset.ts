/**
 * The sample dataset: deterministic contacts and orders at any scale, generated per row on demand.
 *
 * Rows are numbered by a *sequence number* `seq` (0 = oldest). Row `seq` is produced from
 * `hash(seed, seq)` alone, so row 734,112 of a 1,000,000-contact dataset costs the same as row 0 and
 * nothing proportional to the scale is kept in memory. Identifiers follow the sequence:
 * contact id = 10,000,001 + seq, order id = 50,000,001 + seq.
 *
 * Served order (`contactAt(position)`, `orderAt(position)`, the API pages): **newest first**
 * (descending `seq`). The spec leaves the order open (§4 gaps); newest-first is what a real listing
 * usually does, and it makes drift realistic: a record inserted while a client pages shifts every
 * later row by one.
 *
 * A small *edit overlay* (deleted sequence numbers, patches, added rows) lets tests and the drift fault
 * change the data; its size is the number of edits, never the scale. Added rows are generated like
 * base rows, with sequence numbers after the base ones.
 *
 * Rows carry the §2 fields (all present, in their spec types, with the observed nulls); contacts
 * also carry `meta` (`{ account_id }`, on about a third of them), a field the spec does not name that
 * a client must pass through untouched. What the service filters on but never sends — address and
 * last-mailed status, return-address flag; payment status, source, creation and processing times,
 * creator — is each row's *hidden state* (hidden.ts), read with `contactHidden` / `orderHidden` and
 * changed with `setContactHidden` / `setOrderHidden` (docs/service-api-notes.md).
 *
 * Times are relative to the dataset's clock, read once at creation (timeline.ts): contacts created
 * over the 7 years before its day and last mailed within the year before it, orders created over
 * the 12 months before it, with statuses where the clock stands in each order's timeline. The data
 * is a function of the seed, the counts and the clock's UTC day.
 *
 * `advanceClock` moves the dataset's *now* on by whole days, as the real service's data moves
 * between two syncs (advance.ts): statuses, tracking codes and deliveries follow the new now, and a
 * few contacts move house through the edit overlay; the layout (every time, id and other field)
 * stays where the clock's day put it. Without an advance, every row is what the generator makes.
 */
import {
  accountIdOf,
  CONTACT_ID_BASE,
  isHardContact,
  DEFAULT_PREVIEW_ORIGIN,
  generateContact,
  generateOrder,
  ORDER_ID_BASE,
  type SampleContact,
  type SampleOrder,
} from './generate.ts';
import { advancedOrder, moveOf, moversOn, orderChanges, orderMoves, ownsAddress } from './advance.ts';
import { contactHiddenOf, orderHiddenOf, type ContactHidden, type OrderHidden } from './hidden.ts';
import { Overlay } from './overlay.ts';
import { plantedDuplicates, type PlantedGroup } from './duplicates.ts';
import { asOfMs, DAY_MS } from './timeline.ts';

export type { ContactHidden, OrderHidden } from './hidden.ts';
export type { PlantedGroup } from './duplicates.ts';

export { accountIdOf, CONTACT_ID_BASE, DEFAULT_PREVIEW_ORIGIN, generateContact, generateOrder, ORDER_ID_BASE, type SampleContact, type SampleOrder } from './generate.ts';

/** Options of {@link createSampleDataset}. */
export interface SampleDatasetOptions {
  /** Number of contacts before any edit (0 … 10,000,000). */
  contacts: number;
  /** Number of orders before any edit (0 … 10,000,000). */
  orders: number;
  /** Any integer; equal seeds give identical data. @default 1 */
  seed?: number;
  /**
   * Origin of the orders' `template.thumbnailUrl` (sampleApi/previews.ts serves them): the sample
   * API passes its own loopback origin. @default {@link DEFAULT_PREVIEW_ORIGIN}
   */
  previewOrigin?: string;
  /**
   * The dataset's clock: its times are laid out to end at the start of this instant's UTC day
   * (timeline.ts). Read once; the data moves only when `advanceClock` moves its now. @default the time of creation
   */
  clock?: Date;
}

/** A JSON value of a field the clock moved, before or after. */
export type SampleFieldValue = string | number | boolean | null;

/** One field of an order that an advance changed: the order's or one recipient's. */
export interface SampleOrderChange {
  /** The order's `id`. */
  id: string;
  /** The record's own field name: `status` of the order; `trackingCode`, `isDelivered` or `status` of a recipient. */
  field: string;
  /** The recipient's `id` (`contacts[].id`) for a recipient field; absent for the order's own. */
  recipientId?: string;
  from: SampleFieldValue;
  to: SampleFieldValue;
}

/** One field of a contact that an advance changed (`address1`, `address2`, `city`, `state`, `zip`). */
export interface SampleContactChange {
  /** The contact's `id`. */
  id: string;
  field: string;
  from: SampleFieldValue;
  to: SampleFieldValue;
}

/**
 * The sample API's own record of one {@link SampleDataset.advanceClock}: every field of a served row
 * that differs after it from before it, with both values, and nothing else (no hidden state, no
 * recipient's `contact` snapshot, which does not change). Orders and contacts are listed in served
 * order (newest first), an order's own field before its recipients'.
 */
export interface SampleClockAdvance {
  /** The days the clock moved (1 … 365). */
  days: number;
  /** The dataset's new now, an ISO timestamp (the start of a UTC day). */
  now: string;
  orders: SampleOrderChange[];
  contacts: SampleContactChange[];
}

/** The dataset behind the sample API. Positions are 0-based in served (newest-first) order. */
export interface SampleDataset {
  readonly seed: number;
  /** The start of the UTC day of the dataset's clock: every base row's times lie before it. It stays put when the clock is advanced. */
  readonly asOf: Date;
  /** The dataset's now: `asOf` until {@link advanceClock} moves it, then that many whole days later. */
  readonly now: Date;
  /** Current number of contacts (base − deleted + added). */
  readonly contactCount: number;
  /** Current number of orders (base − deleted + added). */
  readonly orderCount: number;
  /** Increases with every edit; lets caches of query results know they are stale. */
  readonly version: number;
  /** The contact at `position` in served order; throws RangeError outside 0 … contactCount − 1. */
  contactAt(position: number): SampleContact;
  /** The order at `position` in served order; throws RangeError outside 0 … orderCount − 1. */
  orderAt(position: number): SampleOrder;
  /** Up to `n` contacts from `position` on, in served order. */
  contactsFrom(position: number, n: number): SampleContact[];
  /** Up to `n` orders from `position` on, in served order. */
  ordersFrom(position: number, n: number): SampleOrder[];
  /** The contact with this id, or null when it does not exist (or was deleted). */
  contactById(id: string): SampleContact | null;
  /** The order with this id, or null. */
  orderById(id: string): SampleOrder | null;
  /** Every current contact in served order (generated lazily). */
  contacts(): IterableIterator<SampleContact>;
  /** Every current order in served order (generated lazily). */
  orders(): IterableIterator<SampleOrder>;
  /** Every current contact id in served order. */
  contactIds(): IterableIterator<string>;
  /** Every current order id in served order. */
  orderIds(): IterableIterator<string>;
  /**
   * The `meta.account_id` of a live row without generating it (unless the row was patched), or null.
   * Lets account-scoped queries scan a million rows quickly.
   */
  accountIdOf(resource: 'contacts' | 'orders', id: string): string | null;
  /** Deletes a contact; returns false when there is no such (live) contact. */
  deleteContact(id: string): boolean;
  /** Deletes an order; returns false when there is no such (live) order. */
  deleteOrder(id: string): boolean;
  /** Adds `n` new contacts (they come first in served order, being the newest); returns their ids. */
  addContacts(n: number): string[];
  /** Adds `n` new orders; returns their ids. */
  addOrders(n: number): string[];
  /** Merges `patch` into a contact (shallow); returns false when there is no such contact. `id` cannot change. */
  updateContact(id: string, patch: Record<string, unknown>): boolean;
  /** Merges `patch` into an order (shallow); returns false when there is no such order. */
  updateOrder(id: string, patch: Record<string, unknown>): boolean;
  /** The hidden state of a live contact (computed per call, a few draws), or null. */
  contactHidden(id: string): ContactHidden | null;
  /** The hidden state of a live order, or null. */
  orderHidden(id: string): OrderHidden | null;
  /** Changes a contact's hidden state (what only filters see); returns false when there is no such contact. */
  setContactHidden(id: string, patch: Partial<ContactHidden>): boolean;
  /** Changes an order's hidden state; returns false when there is no such order. */
  setOrderHidden(id: string, patch: Partial<OrderHidden>): boolean;
  /**
   * Moves the dataset's now forward by `days` whole days (two calls add up), as the real service's
   * data moves on between two syncs. Each live order's `status` becomes where the new now stands in
   * its timeline (ON_HOLD and CANCELED stay), with its hidden processing time and payment status;
   * recipients of orders that come into process may get a `trackingCode`, those of orders that
   * settle may become delivered; about 0.5 % of the live contacts (at least 1) get a new address,
   * written as patches. Creation and delivery dates, ids and every other field stay; edits made
   * before (patches, hidden-state changes) keep winning. Walks every order once; the memory it
   * keeps is the moved contacts' patches.
   * @param days a whole number from 1 to 365
   * @returns what changed in the served rows (only real changes)
   * @throws RangeError when `days` is not a whole number from 1 to 365
   */
  advanceClock(days: number): SampleClockAdvance;
  /**
   * The duplicates planted among the base contacts as generated (duplicates.ts), before any edit:
   * each group at each level, and each set's near misses (the host first), which match it at none.
   */
  plantedDuplicates(): { groups: PlantedGroup[]; nearMisses: string[][] };
}
/**
 * Creates a dataset. Fast at any scale (nothing is generated up front).
 * @throws RangeError when a count is negative, not an integer, or above 10,000,000, or the clock is an invalid date
 */
export function createSampleDataset(options: SampleDatasetOptions): SampleDataset {
  for (const [name, value] of [['contacts', options.contacts], ['orders', options.orders]] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 10_000_000) {
      throw new RangeError(`${name} must be an integer between 0 and 10,000,000 (got ${value})`);
    }
  }
  const seed = (options.seed ?? 1) | 0;
  const previewOrigin = options.previewOrigin ?? DEFAULT_PREVIEW_ORIGIN;
  const asOf = asOfMs(options.clock ?? new Date());
  const contactsBase = options.contacts;
  const ordersBase = options.orders;
  const contacts = new Overlay(contactsBase);
  const orders = new Overlay(ordersBase);
  let version = 0;
  /** The dataset's now, epoch ms: `asOf` plus the days the clock was advanced. */
  let now = asOf;
  const contactHiddenPatches = new Map<number, Partial<ContactHidden>>();
  const orderHiddenPatches = new Map<number, Partial<OrderHidden>>();

  const contactOf = (seq: number): SampleContact => {
    const row = generateContact(seed, seq, contactsBase, asOf);
    const patch = contacts.patches.get(seq);
    return patch ? (Object.assign(row, patch, { id: row.id }) as SampleContact) : row;
  };
  /** Order `seq` as served at `at` (epoch ms): generated at the dataset's day, moved on to `at`, patched. */
  const orderOf = (seq: number, at = now, generated = generateOrder(seed, seq, ordersBase, contactsBase, previewOrigin, asOf)): SampleOrder => {
    const row = advancedOrder(generated, seed, seq, ordersBase, asOf, at);
    const patch = orders.patches.get(seq);
    // A new object when advanced: `generated` may be served at another time as well.
    return patch ? ({ ...row, ...patch, id: row.id } as SampleOrder) : row;
  };
  const contactSeq = (id: string) => (/^\d{1,15}$/.test(id) ? Number(id) - CONTACT_ID_BASE : -1);
  const orderSeq = (id: string) => (/^\d{1,15}$/.test(id) ? Number(id) - ORDER_ID_BASE : -1);
  const add = (overlay: Overlay, n: number, idBase: number): string[] => {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`cannot add ${n} rows`);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(String(idBase + overlay.top + 1 + i));
    overlay.added += n;
    if (n > 0) version++;
    return ids;
  };
  const patch = (overlay: Overlay, seq: number, p: Record<string, unknown>): boolean => {
    if (!overlay.isLive(seq)) return false;
    overlay.patches.set(seq, { ...overlay.patches.get(seq), ...p });
    version++;
    return true;
  };

  return {
    seed,
    asOf: new Date(asOf),
    get contactCount() {
      return contacts.count;
    },
    get orderCount() {
      return orders.count;
    },
    get version() {
      return version;
    },
    contactAt: (position) => contactOf(contacts.seqAt(position)),
    get now() {
      return new Date(now);
    },
    orderAt: (position) => orderOf(orders.seqAt(position)),
    contactsFrom: (position, n) => contacts.seqsFrom(position, n).map(contactOf),
    ordersFrom: (position, n) => orders.seqsFrom(position, n).map((seq) => orderOf(seq)),
    contactById: (id) => (contacts.isLive(contactSeq(id)) ? contactOf(contactSeq(id)) : null),
    orderById: (id) => (orders.isLive(orderSeq(id)) ? orderOf(orderSeq(id)) : null),
    *contacts() {
      for (const seq of contacts.seqs()) yield contactOf(seq);
    },
    *orders() {
      for (const seq of orders.seqs()) yield orderOf(seq);
    },
    *contactIds() {
      for (const seq of contacts.seqs()) yield String(CONTACT_ID_BASE + seq);
    },
    *orderIds() {
      for (const seq of orders.seqs()) yield String(ORDER_ID_BASE + seq);
    },
    accountIdOf(resource, id) {
      const overlay = resource === 'contacts' ? contacts : orders;
      const seq = resource === 'contacts' ? contactSeq(id) : orderSeq(id);
      if (!overlay.isLive(seq)) return null;
      if (overlay.patches.has(seq)) {
        const meta = (resource === 'contacts' ? contactOf(seq) : orderOf(seq)).meta as Record<string, unknown> | undefined | null;
        const value = meta && typeof meta === 'object' ? meta.account_id : undefined;
        return value === undefined || value === null ? null : String(value);
      }
      return accountIdOf(seed, resource, seq);
    },
    deleteContact(id) {
      const ok = contacts.delete(contactSeq(id));
      if (ok) version++;
      return ok;
    },
    deleteOrder(id) {
      const ok = orders.delete(orderSeq(id));
      if (ok) version++;
      return ok;
    },
    addContacts: (n) => add(contacts, n, CONTACT_ID_BASE),
    addOrders: (n) => add(orders, n, ORDER_ID_BASE),
    updateContact: (id, p) => patch(contacts, contactSeq(id), p),
    updateOrder: (id, p) => patch(orders, orderSeq(id), p),
    contactHidden(id) {
      const seq = contactSeq(id);
      if (!contacts.isLive(seq)) return null;
      const hidden = contactHiddenOf(seed, seq, contactsBase, asOf);
      const p = contactHiddenPatches.get(seq);
      return p ? { ...hidden, ...p } : hidden;
    },
    orderHidden(id) {
      const seq = orderSeq(id);
      if (!orders.isLive(seq)) return null;
      const hidden = orderHiddenOf(seed, seq, ordersBase, asOf, now);
      const p = orderHiddenPatches.get(seq);
      return p ? { ...hidden, ...p } : hidden;
    },
    setContactHidden(id, p) {
      const seq = contactSeq(id);
      if (!contacts.isLive(seq)) return false;
      contactHiddenPatches.set(seq, { ...contactHiddenPatches.get(seq), ...p });
      version++;
      return true;
    },
    setOrderHidden(id, p) {
      const seq = orderSeq(id);
      if (!orders.isLive(seq)) return false;
      orderHiddenPatches.set(seq, { ...orderHiddenPatches.get(seq), ...p });
      version++;
      return true;
    },
    advanceClock(days) {
      if (!Number.isInteger(days) || days < 1 || days > 365) throw new RangeError(`advanceClock takes a whole number of days from 1 to 365 (got ${days})`);
      const from = now;
      const to = now + days * DAY_MS;
      const orderList: SampleOrderChange[] = [];
      for (const seq of orders.seqs()) {
        if (!orderMoves(seed, seq, ordersBase, asOf, from, to)) continue;
        const generated = generateOrder(seed, seq, ordersBase, contactsBase, previewOrigin, asOf);
        orderChanges(orderOf(seq, from, generated), orderOf(seq, to, generated), orderList);
      }
      const day = to / DAY_MS;
      const contactList: SampleContactChange[] = [];
      for (const seq of moversOn(seed, day, contacts.count, (position) => contacts.seqAt(position), (s) => !ownsAddress(contacts.patches.get(s)))) {
        const current = contactOf(seq);
        const move = moveOf(seed, seq, day, current);
        for (const [field, value] of Object.entries(move)) contactList.push({ id: current.id, field, from: current[field as keyof typeof move], to: value });
        contacts.patches.set(seq, { ...contacts.patches.get(seq), ...move });
      }
      now = to;
      version++;
      return { days, now: new Date(now).toISOString(), orders: orderList, contacts: contactList };
    },
    plantedDuplicates() {
      return plantedDuplicates(contactsBase, isHardContact, (seq) => String(CONTACT_ID_BASE + seq));
    },
  };
}
