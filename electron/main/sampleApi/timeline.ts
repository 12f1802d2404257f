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
 * The dataset's *now* starts at `asOf` and moves only when the dataset's clock is advanced
 * (dataset.ts `advanceClock`): the layout above stays where `asOf` put it, and the status is read
 * where now stands in it ({@link orderStateAt}).
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

/** Where now stands in an order's timeline. */
export interface OrderState {
  /** The order status name at now. */
  status: OrderStatus;
  /** Its §2.3 `status` code ({@link SAMPLE_STATUS_CODES}). */
  code: number;
  /** When processing started (epoch ms): set for PROCESSING and MAILED orders only. */
  processedMs: number | null;
  /** Whether its letters went out at least 3 days before now (only then can one be delivered). */
  settled: boolean;
}

/**
 * The state of an order of timeline `t` at `now` (epoch ms), from its processing and mailing times:
 * CANCELED and ON_HOLD orders stay so at any time. Cheap (no draw), so that moving the clock can
 * read every order's state at two times.
 */
export function orderStateAt(t: Pick<OrderTimeline, 'status' | 'processingStartMs' | 'mailedMs'>, now: number): OrderState {
  const status: OrderStatus =
    t.status === 'CANCELED' || t.status === 'ON_HOLD' ? t.status : now < t.processingStartMs ? 'SCHEDULED' : now < t.mailedMs ? 'PROCESSING' : 'MAILED';
  return {
    status,
    code: SAMPLE_STATUS_CODES[status],
    processedMs: status === 'PROCESSING' || status === 'MAILED' ? t.processingStartMs : null,
    settled: status === 'MAILED' && now - t.mailedMs >= 3 * DAY_MS,
  };
}

/** What the clock makes of one order at one *now* (the dataset's day unless advanced). */
export interface OrderTimeline extends OrderState {
  /** Creation time, epoch ms. */
  createdMs: number;
  /** The order's campaign (0-based index). */
  campaignIndex: number;
  /** The campaign's `scheduleType` is `scheduled`. */
  scheduled: boolean;
  /** The campaign's `deliveryDate` (YYYY-MM-DD) when scheduled, else null. */
  deliveryDate: string | null;
  /** When processing starts (epoch ms), whatever the status: the status follows from it and `mailedMs`. */
  processingStartMs: number;
  /** When the letters go out (epoch ms), whatever the status. */
  mailedMs: number;
  /** The row's generator and the campaign's, each past the draws made here (generate.ts goes on with them). */
  rngs: { order: Rng; campaign: Rng };
}

/**
 * The timeline of order `seq` of `base` laid out at the day `asOf` (see the module comment), with its
 * state at `now`; a few draws, no row generated, so the hidden state and the filters can read it quickly.
 * @param now epoch ms, at or after `asOf` (the dataset's advanced clock) @default asOf
 */
export function orderTimeline(seed: number, seq: number, base: number, asOf: number, now: number = asOf): OrderTimeline {
  const order = orderRng(seed, seq);
  const createdMs = spread(seq, base, order.next(), asOf, ORDER_SPAN_MS);
  const roll = order.next();
  const campaignIndex = order.int(campaignCount(base));
  const campaign = campaignRng(seed, campaignIndex);
  const scheduled = campaign.chance(0.4);
  const offsetDays = campaign.range(1, 30);
  const deliveryDate = scheduled ? ymd(createdMs + offsetDays * DAY_MS) : null;
  const t = new Rng(hash32(seed ^ 0x68e31da4, seq));
  const processingStartMs = (deliveryDate === null ? createdMs : Date.parse(`${deliveryDate}T00:00:00.000Z`)) + t.range(1, 20) * HOUR_MS;
  const mailedMs = processingStartMs + t.range(1, 5) * DAY_MS;
  // A time-driven status here is a placeholder that orderStateAt replaces.
  const fixed: OrderStatus = roll < 0.04 ? 'CANCELED' : roll < 0.09 ? 'ON_HOLD' : 'SCHEDULED';
  return {
    createdMs,
    ...orderStateAt({ status: fixed, processingStartMs, mailedMs }, now),
    campaignIndex,
    scheduled,
    deliveryDate,
    processingStartMs,
    mailedMs,
    rngs: { order, campaign },
  };
}
