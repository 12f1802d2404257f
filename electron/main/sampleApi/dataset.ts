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
 * Besides the §2 fields (all present, in their spec types, with the observed nulls) rows carry a few
 * fields the spec does not name, which a client must pass through untouched and which the sample API
 * filters on (see docs/service-api-notes.md):
 *  - contacts: `meta` (`{ account_id }`, on about a third of the contacts), `lastMailedStatus`
 *    (string or null), `lastMailedDate` (timestamp or null), `isReturnAddress` (boolean);
 *  - orders: `createdAt` (timestamp), `source`, `paymentStatus`, `processedAt` (timestamp or null).
 */
import type { Contact, ContactSnapshot, Order, OrderContact } from '../../../shared/serviceRecords.ts';
import { hash32, Rng } from './random.ts';
import {
  ACCOUNT_IDS,
  ADDRESS2,
  CAMPAIGN_ADJECTIVES,
  CAMPAIGN_THEMES,
  CAMPAIGN_TYPES,
  CITIES,
  COMPANY_KINDS,
  COMPANY_STEMS,
  COMPANY_SUFFIXES,
  CREATORS,
  FIRST_NAMES,
  FORMULA_VALUES,
  HARD_NAMES,
  LABELS,
  LAST_MAILED_STATUSES,
  LAST_NAMES,
  ORDER_SOURCES,
  PAYMENT_STATUSES,
  PRODUCTS,
  STREET_NAMES,
  STREET_SUFFIXES,
  TEMPLATE_KINDS,
  TEMPLATE_WORDS,
  USE_TYPES,
} from './words.ts';

/** First contact id; contact id = CONTACT_ID_BASE + seq. */
export const CONTACT_ID_BASE = 10_000_001;
/** First order id; order id = ORDER_ID_BASE + seq. */
export const ORDER_ID_BASE = 50_000_001;
/** Recipient entry ids: RECIPIENT_ID_BASE + orderSeq * 1000 + index (at most 400 recipients). */
const RECIPIENT_ID_BASE = 1_000_000_000;
const ORG_ID = '4207';
const START_MS = Date.UTC(2019, 0, 1);
const END_MS = Date.UTC(2025, 11, 31);
const SPAN_MS = END_MS - START_MS;
const DAY_MS = 86_400_000;

/** A generated contact: §2.2 plus the pass-through extras named in the module comment. */
export type SampleContact = Contact & {
  meta?: { account_id: string };
  lastMailedStatus: string | null;
  lastMailedDate: string | null;
  isReturnAddress: boolean;
};

/** A generated order: §2.3 plus the pass-through extras named in the module comment. */
export type SampleOrder = Order & {
  createdAt: string;
  source: string;
  paymentStatus: string;
  processedAt: string | null;
};

/** Options of {@link createSampleDataset}. */
export interface SampleDatasetOptions {
  /** Number of contacts before any edit (0 … 10,000,000). */
  contacts: number;
  /** Number of orders before any edit (0 … 10,000,000). */
  orders: number;
  /** Any integer; equal seeds give identical data. @default 1 */
  seed?: number;
}

/** The dataset behind the sample API. Positions are 0-based in served (newest-first) order. */
export interface SampleDataset {
  readonly seed: number;
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
   * Lets account-scoped queries scan 1,000,000 rows in milliseconds.
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
}

/**
 * The live set of one resource: sequence numbers 0 … top, minus deleted ones, plus patches.
 * Memory is proportional to the number of edits only.
 */
class Overlay {
  readonly base: number;
  added = 0;
  private readonly deleted = new Set<number>();
  /** Ascending copy of `deleted` for counting by binary search. */
  private readonly deletedSorted: number[] = [];
  readonly patches = new Map<number, Record<string, unknown>>();

  constructor(base: number) {
    this.base = base;
  }

  get top(): number {
    return this.base + this.added - 1;
  }

  get count(): number {
    return this.base + this.added - this.deleted.size;
  }

  isLive(seq: number): boolean {
    return Number.isInteger(seq) && seq >= 0 && seq <= this.top && !this.deleted.has(seq);
  }

  delete(seq: number): boolean {
    if (!this.isLive(seq)) return false;
    this.deleted.add(seq);
    let lo = 0;
    let hi = this.deletedSorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.deletedSorted[mid] as number) < seq) lo = mid + 1;
      else hi = mid;
    }
    this.deletedSorted.splice(lo, 0, seq);
    this.patches.delete(seq);
    return true;
  }

  /** Number of deleted sequence numbers ≥ seq. */
  private deletedAtOrAbove(seq: number): number {
    let lo = 0;
    let hi = this.deletedSorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.deletedSorted[mid] as number) < seq) lo = mid + 1;
      else hi = mid;
    }
    return this.deletedSorted.length - lo;
  }

  /** Sequence number of the live row at `position` (newest first). */
  seqAt(position: number): number {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0…${this.count - 1}`);
    }
    const top = this.top;
    let seq = top - position;
    // Fixed point of seq = top − position − (#deleted ≥ seq), approached from above: the first one
    // reached is the live row with exactly `position` live rows above it.
    for (;;) {
      const next = top - position - this.deletedAtOrAbove(seq);
      if (next === seq) return seq;
      seq = next;
    }
  }

  /** Up to n live sequence numbers from `position` on, newest first. */
  seqsFrom(position: number, n: number): number[] {
    const out: number[] = [];
    if (n <= 0 || position >= this.count) return out;
    let seq = this.seqAt(Math.max(0, position));
    while (out.length < n && seq >= 0) {
      if (!this.deleted.has(seq)) out.push(seq);
      seq--;
    }
    return out;
  }

  *seqs(): IterableIterator<number> {
    for (let seq = this.top; seq >= 0; seq--) if (!this.deleted.has(seq)) yield seq;
  }
}

/**
 * Creates a dataset. Fast at any scale (nothing is generated up front).
 * @throws RangeError when a count is negative, not an integer, or above 10,000,000
 */
export function createSampleDataset(options: SampleDatasetOptions): SampleDataset {
  for (const [name, value] of [['contacts', options.contacts], ['orders', options.orders]] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 10_000_000) {
      throw new RangeError(`${name} must be an integer between 0 and 10,000,000 (got ${value})`);
    }
  }
  const seed = (options.seed ?? 1) | 0;
  const contactsBase = options.contacts;
  const ordersBase = options.orders;
  const contacts = new Overlay(contactsBase);
  const orders = new Overlay(ordersBase);
  let version = 0;

  const contactOf = (seq: number): SampleContact => {
    const row = generateContact(seed, seq, contactsBase);
    const patch = contacts.patches.get(seq);
    return patch ? (Object.assign(row, patch, { id: row.id }) as SampleContact) : row;
  };
  const orderOf = (seq: number): SampleOrder => {
    const row = generateOrder(seed, seq, ordersBase, contactsBase);
    const patch = orders.patches.get(seq);
    return patch ? (Object.assign(row, patch, { id: row.id }) as SampleOrder) : row;
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
    orderAt: (position) => orderOf(orders.seqAt(position)),
    contactsFrom: (position, n) => contacts.seqsFrom(position, n).map(contactOf),
    ordersFrom: (position, n) => orders.seqsFrom(position, n).map(orderOf),
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
  };
}

// ---------------------------------------------------------------------------------------------
// Row generation
// ---------------------------------------------------------------------------------------------

/** Hard-case kinds, applied to every 13th contact (seq % 13 === 3): about 7.7 % of the rows. */
const HARD_KINDS = ['nonAscii', 'quotes', 'lineBreaks', 'formula', 'long', 'nonAsciiFormula'] as const;
type HardKind = (typeof HARD_KINDS)[number];

function hardKindOf(seq: number): HardKind | null {
  return seq % 13 === 3 ? (HARD_KINDS[Math.floor(seq / 13) % HARD_KINDS.length] as HardKind) : null;
}

/** Memo of folded words; bounded by the word lists (names and company words only). */
const folded = new Map<string, string>();

function asciiFold(text: string): string {
  let out = folded.get(text);
  if (out === undefined) {
    out = text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9.]/g, '')
      .toLowerCase();
    if (folded.size < 10_000) folded.set(text, out);
  }
  return out;
}

/**
 * The `meta.account_id` of contact/order `seq`, from its own hash so that filtering by account
 * (what a sync scoped to an account does) needs no row generation. About 36 % of contacts and 40 %
 * of orders carry one.
 */
export function accountIdOf(seed: number, resource: 'contacts' | 'orders', seq: number): string | null {
  const roll = hash32(seed ^ (resource === 'contacts' ? 0x4ccf1d3 : 0x2a8b5e71), seq) / 4294967296;
  if (roll >= (resource === 'contacts' ? 0.36 : 0.4)) return null;
  return ACCOUNT_IDS[Math.floor(roll * 100) % ACCOUNT_IDS.length] as string;
}

function timeOf(seq: number, base: number, r: Rng): number {
  return Math.floor(START_MS + ((seq + r.next()) / Math.max(base, 1)) * SPAN_MS);
}

/**
 * Generates contact `seq` (before any overlay patch).
 * @param seed dataset seed
 * @param seq sequence number (0 = oldest)
 * @param base number of base contacts (spreads `createdAt` over 2019–2025)
 */
export function generateContact(seed: number, seq: number, base: number): SampleContact {
  const r = new Rng(hash32(seed, seq * 2 + 1));
  const hard = hardKindOf(seq);
  const [city, state, zip3, area] = r.pick(CITIES);
  let firstName: string = r.pick(FIRST_NAMES);
  let lastName: string = r.pick(LAST_NAMES);
  if (hard === 'nonAscii' || hard === 'nonAsciiFormula') [firstName, lastName] = r.pick(HARD_NAMES);
  const stem = r.pick(COMPANY_STEMS);
  const suffix = r.pick(COMPANY_SUFFIXES);
  let companyName = r.chance(0.15) ? '' : `${stem} ${r.pick(COMPANY_KINDS)}${suffix ? ` ${suffix}` : ''}`;
  let address1 = `${r.range(1, 9899)} ${r.pick(STREET_NAMES)} ${r.pick(STREET_SUFFIXES)}`;
  let address2 = r.chance(0.3) ? r.pick(ADDRESS2) : '';
  const zip = `${zip3}${r.digits(2)}`;
  let phoneNo = r.chance(0.7) ? `(${area}) ${r.range(200, 989)}-${r.digits(4)}` : `${area}-${r.range(200, 989)}-${r.digits(4)}`;
  const extension = r.chance(0.25) ? String(r.range(10, 9999)) : '';
  const domain = companyName ? `${asciiFold(stem)}${asciiFold(companyName.split(' ')[1] ?? 'mail')}.com` : r.pick(['gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com']);
  let websiteUrl = companyName && r.chance(0.7) ? `https://www.${domain}` : '';
  const email = `${asciiFold(firstName) || 'contact'}.${asciiFold(lastName) || String(seq)}${r.chance(0.2) ? r.range(1, 99) : ''}@${domain}`;
  const verifiedRoll = r.next();
  const isVerified = verifiedRoll < 0.55 ? true : verifiedRoll < 0.8 ? false : null;
  const labelCount = r.chance(0.3) ? 0 : r.range(1, 3);
  const ContactLabels: { id: string; title: string }[] = [];
  for (let i = 0; i < labelCount; i++) {
    const label = r.pick(LABELS);
    if (!ContactLabels.some((l) => l.id === label.id)) ContactLabels.push({ id: label.id, title: label.title });
  }
  const createdMs = timeOf(seq, base, r);
  const mailed = r.chance(0.6);
  const lastMailedStatus = mailed ? r.pick(LAST_MAILED_STATUSES) : null;
  const lastMailedDate = mailed ? new Date(createdMs + r.int(Math.min(400 * DAY_MS, Math.max(DAY_MS, END_MS + 60 * DAY_MS - createdMs)))).toISOString() : null;
  const accountId = accountIdOf(seed, 'contacts', seq);
  const isLiveMode = r.chance(0.9);
  const isReturnAddress = r.chance(0.03);

  switch (hard) {
    case 'quotes':
      lastName = `O'${lastName}`;
      companyName = `${stem}, "The ${r.pick(COMPANY_KINDS)} People", LLC`;
      address1 = `${r.range(1, 999)} "Old" ${r.pick(STREET_NAMES)} Rd, Rear`;
      break;
    case 'lineBreaks':
      address2 = `${r.pick(ADDRESS2)}\r\nAttn: Receiving`;
      companyName = `${stem}\nLogistics`;
      break;
    case 'formula':
    case 'nonAsciiFormula':
      companyName = r.pick(FORMULA_VALUES);
      address2 = '-Rear entrance-';
      phoneNo = `+1 ${area} ${r.range(200, 989)} ${r.digits(4)}`;
      websiteUrl = '@example.com';
      break;
    case 'long':
      companyName = `${stem} ${'International Consolidated Holdings '.repeat(60)}`.trim();
      address2 = `Building ${'Annex, '.repeat(400)}end`;
      break;
    default:
      break;
  }

  const contact: SampleContact = {
    id: String(CONTACT_ID_BASE + seq),
    firstName,
    lastName,
    fullName: `${firstName} ${lastName}`,
    companyName,
    address1,
    address2,
    city,
    state,
    zip,
    phoneNo,
    extension,
    websiteUrl,
    orgId: ORG_ID,
    email,
    isVerified,
    isLiveMode,
    ContactLabels,
    createdAt: new Date(createdMs).toISOString(),
    lastMailedStatus,
    lastMailedDate,
    isReturnAddress,
  };
  if (accountId !== null) contact.meta = { account_id: accountId };
  return contact;
}

function snapshotOf(c: SampleContact): ContactSnapshot {
  return {
    id: c.id,
    zip: c.zip,
    city: c.city,
    email: c.email,
    phoneNo: c.phoneNo,
    address1: c.address1,
    address2: c.address2,
    fullName: c.fullName,
    lastName: c.lastName,
    firstName: c.firstName,
    websiteUrl: c.websiteUrl,
    companyName: c.companyName,
  };
}

function recipientCount(r: Rng): number {
  const roll = r.next();
  if (roll < 0.795) return 1;
  if (roll < 0.945) return r.range(2, 10);
  if (roll < 0.995) return r.range(11, 40);
  return r.range(41, 300);
}

function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Generates order `seq` (before any overlay patch). Recipients are snapshots of generated contacts.
 * @param seed dataset seed
 * @param seq sequence number (0 = oldest)
 * @param base number of base orders (spreads `createdAt` over 2019–2025)
 * @param contactsBase number of base contacts (recipients are drawn from them)
 */
export function generateOrder(seed: number, seq: number, base: number, contactsBase: number): SampleOrder {
  const r = new Rng(hash32(seed ^ 0x5bd1e995, seq * 2 + 1));
  const id = String(ORDER_ID_BASE + seq);
  const createdMs = timeOf(seq, base, r);
  const statusRoll = r.next();
  const status = statusRoll < 0.55 ? 5 : statusRoll < 0.7 ? 4 : statusRoll < 0.8 ? 3 : statusRoll < 0.87 ? 2 : statusRoll < 0.93 ? 1 : statusRoll < 0.97 ? 6 : 0;

  const campaignCount = Math.max(4, Math.floor(base / 3));
  const campaignIdx = r.int(campaignCount);
  const cr = new Rng(hash32(seed ^ 0x27d4eb2f, campaignIdx));
  const year = new Date(createdMs).getUTCFullYear();
  const scheduled = cr.chance(0.4);
  const campaign = {
    id: String(800_001 + campaignIdx),
    name: `${cr.pick(CAMPAIGN_ADJECTIVES)} ${cr.pick(CAMPAIGN_THEMES)} ${year}`,
    description: cr.chance(0.3) ? '' : `Mailing to ${cr.pick(['customers', 'donors', 'members', 'prospects', 'tenants'])} in ${cr.pick(CITIES)[1]}`,
    scheduleType: scheduled ? 'scheduled' : 'immediate',
    useType: cr.chance(0.6) ? null : cr.pick(USE_TYPES),
    deliveryDate: scheduled ? ymd(createdMs + cr.range(1, 30) * DAY_MS) : null,
    campaignType: cr.chance(0.8) ? 'single' : cr.pick(CAMPAIGN_TYPES),
  };
  const productSrc = r.pick(PRODUCTS);
  const product = { ...productSrc, meta: productSrc.meta === null ? null : { ...productSrc.meta } };
  const templateIdx = r.int(40);
  const tr = new Rng(hash32(seed ^ 0x165667b1, templateIdx));
  const creator = tr.pick(CREATORS);
  const template = {
    id: String(6001 + templateIdx),
    title: `${tr.pick(TEMPLATE_WORDS)} ${tr.pick(TEMPLATE_KINDS)} ${templateIdx + 1}`,
    templateUrl: `https://templates.sample.letterdesk.example/t/${6001 + templateIdx}.json`,
    templateType: 'json',
    thumbnailUrl: `https://templates.sample.letterdesk.example/t/${6001 + templateIdx}/thumb.png`,
    creator: { id: creator.id, fullName: creator.fullName },
  };
  const n = contactsBase > 0 ? recipientCount(r) : 0;
  const delivered = status >= 5;
  const contacts: OrderContact[] = [];
  for (let k = 0; k < n; k++) {
    const contactSeq = r.int(contactsBase);
    contacts.push({
      id: String(RECIPIENT_ID_BASE + seq * 1000 + k),
      orderId: id,
      trackingCode: status >= 4 && r.chance(0.5) ? `9400 1118 9922 ${r.digits(4)} ${r.digits(4)} ${r.digits(2)}` : null,
      contact: snapshotOf(generateContact(seed, contactSeq, contactsBase)),
      isDelivered: delivered ? r.chance(0.93) : false,
      status: null,
      meta: {},
    });
  }
  const accountId = accountIdOf(seed, 'orders', seq);
  const processedAt = status >= 3 ? new Date(createdMs + r.range(1, 72) * 3_600_000).toISOString() : null;
  return {
    id,
    orgId: ORG_ID,
    fileUrl: r.chance(0.1) ? `https://files.sample.letterdesk.example/orders/${id}.pdf` : null,
    mergeVariables: [],
    status,
    meta: accountId === null ? {} : { account_id: accountId },
    isLiveMode: r.chance(0.9),
    campaign,
    product,
    contacts,
    template,
    createdAt: new Date(createdMs).toISOString(),
    source: r.pick(ORDER_SOURCES),
    paymentStatus: status === 0 ? 'pending' : r.pick(PAYMENT_STATUSES),
    processedAt,
  };
}
