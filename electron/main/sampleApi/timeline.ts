/**
 * When things happen in the sample dataset, and the order statuses that follow: every time is laid
 * out relative to the dataset's clock, so that "the last 30 days" finds rows on any day.
 *
 * The clock is read once, when the dataset is made, and its times end at the start of that UTC day
 * (`asOfMs`): two datasets of one seed made on the same day are equal, and nothing lies in the
 * future except rows added after the base ones.
 *  - contacts are created over the 7 years before it (oldest sequence number first) and last mailed
 *    within the year before it, never before their creation (hidden.ts);
 *  - orders are created over the 12 months before it; an order is mailed on its creation or, when
 *    its campaign is scheduled, on the campaign's `deliveryDate` (1–30 days later); its processing
 *    starts 1–20 hours into that day and its letters go out 1–5 days after. Its status is where the
 *    clock stands in that: SCHEDULED before processing starts, PROCESSING until the letters go out,
 *    MAILED after; besides, 4 % are CANCELED and 5 % ON_HOLD whatever their age.
 * §3 gives the integer status codes no meaning and the service publishes no table, so the sample API
 * fixes one ({@link SAMPLE_STATUS_CODES}): every order of code c falls in the `orderStatus` filter
 * value named c, which is how a client can learn the names.
 */
import { ORDER_STATUSES, type OrderStatus } from '../../../shared/vocabularies.ts';
import { hash32, Rng } from './random.ts';

export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Contacts are created over this span before the dataset's day. */
const CONTACT_SPAN_MS = 7 * 365 * DAY_MS;
/** Orders are created over this span before the dataset's day. */
const ORDER_SPAN_MS = 365 * DAY_MS;
/** Contacts are last mailed within this span before the dataset's day. */
export const MAILED_SPAN_MS = 365 * DAY_MS;

/** The sample API's §2.3 `status` code of each order status name; one code per name, fixed. */
export const SAMPLE_STATUS_CODES: Readonly<Record<OrderStatus, number>> = Object.freeze({ ON_HOLD: 1, SCHEDULED: 2, PROCESSING: 3, MAILED: 4, CANCELED: 5 });

/** The order status name of a sample status code (`SAMPLE_STATUS_CODES`), or null for any other code. */
export function sampleStatusName(code: number): OrderStatus | null {
  return ORDER_STATUSES.find((name) => SAMPLE_STATUS_CODES[name] === code) ?? null;
}

/** The start of the UTC day of `clock`, in epoch ms: where the dataset's times end. */
export function asOfMs(clock: Date): number {
  const ms = clock.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('the sample dataset’s clock is not a valid date');
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The clock a dataset uses when none is given: the start of today (UTC), in epoch ms. */
export function defaultAsOfMs(): number {
  return asOfMs(new Date());
}

/** `seq`'s place in a span of `base` rows ending at `asOf`, with `draw` (0 ≤ draw < 1) inside its slot. */
function spread(seq: number, base: number, draw: number, asOf: number, span: number): number {
  return Math.floor(asOf - span + ((seq + draw) / Math.max(base, 1)) * span);
}

/** The creation time (epoch ms) of contact `seq` of `base`, from its generator's `draw`. */
export function contactCreatedMs(seq: number, base: number, draw: number, asOf: number): number {
  return spread(seq, base, draw, asOf, CONTACT_SPAN_MS);
}

/** The latest creation time contact `seq` of `base` can have (its creation time lies below it). */
export function contactLatestCreation(seq: number, base: number, asOf: number): number {
  return asOf - CONTACT_SPAN_MS + ((seq + 1) / Math.max(base, 1)) * CONTACT_SPAN_MS;
}

/** The number of campaigns the orders of a dataset of `base` orders are spread over. */
export function campaignCount(base: number): number {
  return Math.max(4, Math.floor(base / 3));
}

/** The generator of order `seq`'s row; the timeline takes its first three draws. */
function orderRng(seed: number, seq: number): Rng {
  return new Rng(hash32(seed ^ 0x5bd1e995, seq * 2 + 1));
}

/** The generator of campaign `index`; the timeline takes its first two draws. */
function campaignRng(seed: number, index: number): Rng {
  return new Rng(hash32(seed ^ 0x27d4eb2f, index));
}

/** YYYY-MM-DD of an epoch ms, in UTC. */
export function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** What the clock makes of one order. */
export interface OrderTimeline {
  /** Creation time, epoch ms. */
  createdMs: number;
  /** The order status name at the dataset's clock. */
  status: OrderStatus;
  /** Its §2.3 `status` code ({@link SAMPLE_STATUS_CODES}). */
  code: number;
  /** When processing started (epoch ms): set for PROCESSING and MAILED orders only. */
  processedMs: number | null;
  /** The order's campaign (0-based index). */
  campaignIndex: number;
  /** The campaign's `scheduleType` is `scheduled`. */
  scheduled: boolean;
  /** The campaign's `deliveryDate` (YYYY-MM-DD) when scheduled, else null. */
  deliveryDate: string | null;
  /** Whether its letters went out at least 3 days before the clock (only then can one be delivered). */
  settled: boolean;
  /** The row's generator and the campaign's, each past the draws made here (generate.ts goes on with them). */
  rngs: { order: Rng; campaign: Rng };
}

/**
 * The timeline of order `seq` of `base` at the day `asOf` (see the module comment); a few draws,
 * no row generated, so the hidden state and the filters can read it quickly.
 */
export function orderTimeline(seed: number, seq: number, base: number, asOf: number): OrderTimeline {
  const order = orderRng(seed, seq);
  const createdMs = spread(seq, base, order.next(), asOf, ORDER_SPAN_MS);
  const roll = order.next();
  const campaignIndex = order.int(campaignCount(base));
  const campaign = campaignRng(seed, campaignIndex);
  const scheduled = campaign.chance(0.4);
  const offsetDays = campaign.range(1, 30);
  const deliveryDate = scheduled ? ymd(createdMs + offsetDays * DAY_MS) : null;
  const t = new Rng(hash32(seed ^ 0x68e31da4, seq));
  const processingMs = (deliveryDate === null ? createdMs : Date.parse(`${deliveryDate}T00:00:00.000Z`)) + t.range(1, 20) * HOUR_MS;
  const mailedMs = processingMs + t.range(1, 5) * DAY_MS;
  let status: OrderStatus;
  if (roll < 0.04) status = 'CANCELED';
  else if (roll < 0.09) status = 'ON_HOLD';
  else status = asOf < processingMs ? 'SCHEDULED' : asOf < mailedMs ? 'PROCESSING' : 'MAILED';
  return {
    createdMs,
    status,
    code: SAMPLE_STATUS_CODES[status],
    processedMs: status === 'PROCESSING' || status === 'MAILED' ? processingMs : null,
    campaignIndex,
    scheduled,
    deliveryDate,
    settled: status === 'MAILED' && asOf - mailedMs >= 3 * DAY_MS,
    rngs: { order, campaign },
  };
}
