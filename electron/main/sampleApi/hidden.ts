/**
 * The hidden state of the sample dataset: what the real service seems to know about a record
 * without putting it in the record (§2 shows none of it), so that only its filters (§4) reveal it.
 * Letterdesk learns it only through a service query, as it must with the real service.
 *
 * Each row's hidden state comes from a random stream of its own, `hash(seed ^ salt, seq)`, so it is
 * deterministic per seed, costs a few draws (no row is generated: a filter on hidden state scans
 * 1,000,000 contacts quickly), and leaves the rows exactly as they were.
 *  - contacts: `addressStatus` (Verified 62 %, Failed 18 %, none 20 %; not tied to `isVerified`,
 *    which the spec does not relate to it), `lastMailedStatus` and `lastMailedDate` (60 % were
 *    mailed, at most 400 days after their creation), `isReturnAddress` (3 %);
 *  - orders: `createdAt` (the creation time the row was generated from), `processedAt` (1–72 hours
 *    later, for status codes 3 and above), `paymentStatus` (Unpaid for status 0, else mostly Paid),
 *    `source`, `createdBy` (a user id of `CREATORS`, not necessarily the template's creator).
 * The property addresses of `withPropertyAddresses=true` are generate.ts `propertyAddressesOf`.
 */
import { END_MS, latestCreation, orderBasics } from './generate.ts';
import { hash32, Rng } from './random.ts';
import { CREATORS, LAST_MAILED_STATUSES, ORDER_SOURCES, PAYMENT_STATUSES } from './words.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** What the service knows about a contact and filters on, beyond the record. */
export interface ContactHidden {
  /** §4.1 `addressStatus`; null = neither (matches no addressStatus filter). */
  addressStatus: 'Failed' | 'Verified' | null;
  /** §4.1 `lastMailedStatus`; null = never mailed. */
  lastMailedStatus: string | null;
  /** §4.1 `lastMailedDate`, an ISO timestamp; null = never mailed. */
  lastMailedDate: string | null;
  /** §4.1 `isReturnAddress`. */
  isReturnAddress: boolean;
}

/** What the service knows about an order and filters on, beyond the record. */
export interface OrderHidden {
  /** §4.2 `createdDate`, an ISO timestamp. */
  createdAt: string;
  /** §4.2 `processingDate`, an ISO timestamp; null = not processed yet. */
  processedAt: string | null;
  /** §4.2 `paymentStatus`. */
  paymentStatus: string;
  /** §4.2 `sources`. */
  source: string;
  /** §4.2 `createdBy`: the id of the user who created the order. */
  createdBy: string;
}

function weighted(r: Rng, table: readonly (readonly [string, number])[]): string {
  let roll = r.next();
  for (const [value, weight] of table) {
    if (roll < weight) return value;
    roll -= weight;
  }
  return (table.at(-1) as readonly [string, number])[0];
}

/**
 * The hidden state of contact `seq` (before any change made with the dataset's `setContactHidden`).
 * @param base number of base contacts (as for generate.ts `generateContact`)
 */
export function contactHiddenOf(seed: number, seq: number, base: number): ContactHidden {
  const r = new Rng(hash32(seed ^ 0x3c6ef372, seq));
  const a = r.next();
  const addressStatus = a < 0.62 ? 'Verified' : a < 0.8 ? 'Failed' : null;
  const mailed = r.chance(0.6);
  const status = weighted(r, LAST_MAILED_STATUSES);
  const after = latestCreation(seq, base);
  const span = Math.min(400 * DAY_MS, Math.max(DAY_MS, END_MS + 60 * DAY_MS - after));
  const date = new Date(after + r.int(span)).toISOString();
  return { addressStatus, lastMailedStatus: mailed ? status : null, lastMailedDate: mailed ? date : null, isReturnAddress: r.chance(0.03) };
}

/**
 * The hidden state of order `seq` (before any change made with the dataset's `setOrderHidden`).
 * @param base number of base orders (as for generate.ts `generateOrder`)
 */
export function orderHiddenOf(seed: number, seq: number, base: number): OrderHidden {
  const { createdMs, status } = orderBasics(seed, seq, base);
  const r = new Rng(hash32(seed ^ 0x1b873593, seq));
  const processedAt = new Date(createdMs + r.range(1, 72) * HOUR_MS).toISOString();
  const paid = weighted(r, PAYMENT_STATUSES);
  return {
    createdAt: new Date(createdMs).toISOString(),
    processedAt: status >= 3 ? processedAt : null,
    paymentStatus: status === 0 ? 'Unpaid' : paid,
    source: weighted(r, ORDER_SOURCES),
    createdBy: r.pick(CREATORS).id,
  };
}
