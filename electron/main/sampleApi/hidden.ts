/**
 * The hidden state of the sample dataset: what the real service seems to know about a record
 * without putting it in the record (§2 shows none of it), so that only its filters (§4) reveal it.
 * Letterdesk learns it only through a service query, as it must with the real service.
 *
 * Each row's hidden state comes from a random stream of its own, `hash(seed ^ salt, seq)`, so it is
 * deterministic per seed, costs a few draws (no row is generated: a filter on hidden state scans
 * 1,000,000 contacts quickly), and leaves the rows exactly as they were.
 *  - contacts: `addressStatus` (Verified 55 %, Corrected 10 %, Failed 17 %, none 18 %; not tied to
 *    `isVerified`, which the spec does not relate to it), `lastMailedStatus` and `lastMailedDate`
 *    (60 % were mailed, within the year before the dataset's day and after their creation),
 *    `isReturnAddress` (3 %);
 *  - orders: `createdAt` and `processedAt` from the order's timeline (timeline.ts: processing
 *    started, for PROCESSING and MAILED orders), `paymentStatus` as the status implies (PAID once
 *    processing started, but for a few NOT_CHARGED; PENDING or PAID while SCHEDULED; PENDING or
 *    PAYMENT_FAILED ON_HOLD; NOT_CHARGED or PAYMENT_FAILED CANCELED), `source` (OLC_CLIENT for most,
 *    else one of the integrations), `createdBy` (a user id of `CREATORS`, not necessarily the
 *    template's creator). Payment statuses and sources are the service's vocabularies
 *    (shared/vocabularies.ts).
 * The property addresses of `withPropertyAddresses=true` are generate.ts `propertyAddressesOf`.
 */
import type { AddressStatus, OrderSource, OrderStatus, PaymentStatus } from '../../../shared/vocabularies.ts';
import { hash32, Rng } from './random.ts';
import { contactLatestCreation, MAILED_SPAN_MS, orderTimeline } from './timeline.ts';
import { CREATORS, LAST_MAILED_STATUSES } from './words.ts';

/** Payment status weights by order status. */
const PAYMENT_BY_STATUS: Readonly<Record<OrderStatus, readonly (readonly [PaymentStatus, number])[]>> = {
  ON_HOLD: [['PAYMENT_FAILED', 0.55], ['PENDING', 0.45]],
  SCHEDULED: [['PAID', 0.6], ['PENDING', 0.4]],
  PROCESSING: [['PAID', 0.96], ['NOT_CHARGED', 0.04]],
  MAILED: [['PAID', 0.96], ['NOT_CHARGED', 0.04]],
  CANCELED: [['NOT_CHARGED', 0.8], ['PAYMENT_FAILED', 0.2]],
};

/** Source weights: the service's own client for most orders, its integrations for the rest. */
const SOURCE_WEIGHTS: readonly (readonly [OrderSource, number])[] = [
  ['OLC_CLIENT', 0.6], ['ZAPIER', 0.12], ['HUBSPOT', 0.1], ['SALESFORCE', 0.08], ['PODIO', 0.05], ['GOHIGHLEVEL', 0.05],
];

export interface ContactHidden {
  /** §4.1 `addressStatus`; null = none (matches no addressStatus filter). */
  addressStatus: AddressStatus | null;
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
  /** §4.2 `paymentStatus`: one of shared/vocabularies.ts `PAYMENT_STATUSES` (tests may set any text). */
  paymentStatus: string;
  /** §4.2 `sources`: one of shared/vocabularies.ts `ORDER_SOURCES` (tests may set any text). */
  source: string;
  /** §4.2 `createdBy`: the id of the user who created the order. */
  createdBy: string;
}

function weighted<V extends string>(r: Rng, table: readonly (readonly [V, number])[]): V {
  let roll = r.next();
  for (const [value, weight] of table) {
    if (roll < weight) return value;
    roll -= weight;
  }
  return (table.at(-1) as readonly [V, number])[0];
}

/**
 * The hidden state of contact `seq` (before any change made with the dataset's `setContactHidden`).
 * @param base number of base contacts (as for generate.ts `generateContact`)
 * @param asOf the dataset's day, epoch ms (timeline.ts `asOfMs`): the last-mailed date lies in the
 *   year before it, after the contact's creation (a contact created after it was never mailed)
 */
export function contactHiddenOf(seed: number, seq: number, base: number, asOf: number): ContactHidden {
  const r = new Rng(hash32(seed ^ 0x3c6ef372, seq));
  const a = r.next();
  const addressStatus: AddressStatus | null = a < 0.55 ? 'Verified' : a < 0.65 ? 'Corrected' : a < 0.82 ? 'Failed' : null;
  const status = weighted(r, LAST_MAILED_STATUSES);
  const from = Math.max(contactLatestCreation(seq, base, asOf), asOf - MAILED_SPAN_MS);
  const mailed = r.chance(0.6) && from < asOf;
  const date = new Date(Math.floor(from + r.next() * (asOf - from))).toISOString();
  return { addressStatus, lastMailedStatus: mailed ? status : null, lastMailedDate: mailed ? date : null, isReturnAddress: r.chance(0.03) };
}

/**
 * The hidden state of order `seq` (before any change made with the dataset's `setOrderHidden`).
 * The processing time and payment status follow the status at `now`; the payment status takes the
 * same draw at any time, so an order that starts processing keeps PAID or becomes it.
 * @param base number of base orders (as for generate.ts `generateOrder`)
 * @param asOf the dataset's day, epoch ms (timeline.ts `asOfMs`)
 * @param now the dataset's now, epoch ms, at or after `asOf` (dataset.ts `advanceClock`) @default asOf
 */
export function orderHiddenOf(seed: number, seq: number, base: number, asOf: number, now: number = asOf): OrderHidden {
  const { createdMs, processedMs, status } = orderTimeline(seed, seq, base, asOf, now);
  const r = new Rng(hash32(seed ^ 0x1b873593, seq));
  return {
    createdAt: new Date(createdMs).toISOString(),
    processedAt: processedMs === null ? null : new Date(processedMs).toISOString(),
    paymentStatus: weighted(r, PAYMENT_BY_STATUS[status]),
    source: weighted(r, SOURCE_WEIGHTS),
    createdBy: r.pick(CREATORS).id,
  };
}
