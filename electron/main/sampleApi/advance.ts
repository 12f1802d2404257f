/**
 * What moving the sample dataset's now forward changes (dataset.ts `advanceClock`), and only that:
 * the layout of timeline.ts stays where the dataset's day put it.
 *  - an order's status is where the new now stands in its timeline ({@link advancedOrder});
 *  - a recipient of an order that came into process since the dataset's day may get a tracking code,
 *    and one of an order that settled since may be delivered, with the generator's chances (50 %,
 *    93 %) drawn from a stream of its own per (order, recipient): what the generator drew for the
 *    rows at the dataset's day stays drawn as it was, and a recipient's extras do not depend on the
 *    day they appear on, so two advances end where one of their sum does;
 *  - a few contacts move house ({@link moversOn}, {@link moveOf}): a new stream per day, so the
 *    subset and the new addresses are deterministic per seed and day.
 */
import type { SampleClockAdvance, SampleFieldValue } from './dataset.ts';
import type { SampleContact, SampleOrder } from './generate.ts';
import { hash32, Rng } from './random.ts';
import { orderStateAt, orderTimeline, SAMPLE_STATUS_CODES } from './timeline.ts';
import { ADDRESS2, CITIES, STREET_NAMES, STREET_SUFFIXES } from './words.ts';

/** Salts of the advance's own streams (random.ts style), unused by the generator. */
const RECIPIENT_SALT = 0x3243f6a8;
const MOVERS_SALT = 0x85a308d3;
const MOVE_SALT = 0x13198a2e;

/** About this share of the live contacts moves house per advance. */
export const MOVING_SHARE = 0.005;

/** The contact fields a move may change. */
export const ADDRESS_FIELDS = ['address1', 'address2', 'city', 'state', 'zip'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];

/** The recipient fields the record compares (the ones Letterdesk records between two syncs). */
const RECIPIENT_FIELDS = ['trackingCode', 'isDelivered', 'status'] as const;

const inProcess = (code: number): boolean => code === SAMPLE_STATUS_CODES.PROCESSING || code === SAMPLE_STATUS_CODES.MAILED;

/**
 * Order `seq` as generated at the dataset's day (generate.ts `generateOrder`, before any patch),
 * moved on to `now`: its status code, and the tracking codes and deliveries of its recipients where
 * it came into process or settled after `asOf` (see the module comment). The row is not changed;
 * the answer shares what did not change with it (the row itself when nothing did).
 * @param base number of base orders, as for `generateOrder`
 * @param asOf the dataset's day, epoch ms; `now` epoch ms at or after it
 */
export function advancedOrder(row: SampleOrder, seed: number, seq: number, base: number, asOf: number, now: number): SampleOrder {
  if (now === asOf) return row;
  const then = orderTimeline(seed, seq, base, asOf);
  const at = orderStateAt(then, now);
  const tracked = !inProcess(then.code) && inProcess(at.code);
  const delivered = !then.settled && at.settled;
  if (at.code === then.code && !delivered) return row;
  if (!tracked && !delivered) return { ...row, status: at.code };
  const contacts = row.contacts.map((recipient, k) => {
    const r = new Rng(hash32(hash32(seed ^ RECIPIENT_SALT, seq), k));
    const isDelivered = r.chance(0.93);
    const trackingCode = r.chance(0.5) ? `9400 1118 9922 ${r.digits(4)} ${r.digits(4)} ${r.digits(2)}` : null;
    return { ...recipient, ...(tracked ? { trackingCode } : {}), ...(delivered ? { isDelivered } : {}) };
  });
  return { ...row, status: at.code, contacts };
}

/**
 * Whether order `seq`'s state differs between two nows (`from` before `to`, epoch ms): only such
 * an order can serve another row after the clock moves from one to the other. A few draws.
 */
export function orderMoves(seed: number, seq: number, base: number, asOf: number, from: number, to: number): boolean {
  const t = orderTimeline(seed, seq, base, asOf, from);
  const at = orderStateAt(t, to);
  return at.code !== t.code || at.settled !== t.settled;
}

/**
 * The sequence numbers of the contacts that move house when the clock reaches `day`: about
 * {@link MOVING_SHARE} of the `count` live ones, at least 1 when one may move, newest first.
 * @param day the new now in whole days since the epoch (its stream is the subset's)
 * @param seqAt the sequence number of the live contact at a served position (0 … count − 1)
 * @param free whether a contact may move: false when an edit owns its address (edits win)
 */
export function moversOn(seed: number, day: number, count: number, seqAt: (position: number) => number, free: (seq: number) => boolean): number[] {
  if (count === 0) return [];
  const wanted = Math.max(1, Math.round(count * MOVING_SHARE));
  const r = new Rng(hash32(seed ^ MOVERS_SALT, day));
  const chosen = new Set<number>();
  // Drawn positions rarely collide or hit an edited contact, so a few spare draws suffice.
  for (let tries = 0; chosen.size < wanted && tries < wanted * 4 + 64; tries++) {
    const seq = seqAt(r.int(count));
    if (free(seq)) chosen.add(seq);
  }
  for (let position = 0; chosen.size === 0 && position < count; position++) {
    const seq = seqAt(position);
    if (free(seq)) chosen.add(seq);
  }
  return [...chosen].sort((a, b) => b - a);
}

/**
 * Where contact `current` (sequence number `seq`) moves when the clock reaches `day`: a new
 * `address1`, for some a new `address2` (30 %) and for some a new city, with its state and zip (25 %).
 * @returns the fields that change, with their new values (never an unchanged one)
 */
export function moveOf(seed: number, seq: number, day: number, current: Pick<SampleContact, AddressField>): Partial<Record<AddressField, string>> {
  const r = new Rng(hash32(hash32(seed ^ MOVE_SALT, day), seq));
  const next: Record<AddressField, string> = { address1: current.address1, address2: current.address2, city: current.city, state: current.state, zip: current.zip };
  // A redraw only when the new street address happens to be the old one.
  for (let tries = 0; tries < 4 && next.address1 === current.address1; tries++) next.address1 = `${r.range(1, 9899)} ${r.pick(STREET_NAMES)} ${r.pick(STREET_SUFFIXES)}`;
  if (r.chance(0.3)) next.address2 = r.chance(0.5) ? r.pick(ADDRESS2) : '';
  if (r.chance(0.25)) {
    const [city, state, zip3] = r.pick(CITIES);
    Object.assign(next, { city, state, zip: `${zip3}${r.digits(2)}` });
  }
  const changed: Partial<Record<AddressField, string>> = {};
  for (const field of ADDRESS_FIELDS) if (next[field] !== current[field]) changed[field] = next[field];
  return changed;
}

/** Whether a contact's patch sets one of its address fields (an edit or an earlier move owns them). */
export function ownsAddress(patch: Record<string, unknown> | undefined): boolean {
  return patch !== undefined && ADDRESS_FIELDS.some((field) => field in patch);
}

const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * Appends to `out` what differs between two served versions of one order: its `status`, and each
 * recipient's `trackingCode`, `isDelivered` and `status` (recipients matched by `id`).
 */
export function orderChanges(before: SampleOrder, after: SampleOrder, out: SampleClockAdvance['orders']): void {
  if (!same(before.status, after.status)) out.push({ id: after.id, field: 'status', from: before.status, to: after.status });
  if (!Array.isArray(before.contacts) || !Array.isArray(after.contacts)) return;
  const earlier = new Map(before.contacts.map((recipient) => [recipient.id, recipient]));
  for (const recipient of after.contacts) {
    const was = earlier.get(recipient.id);
    if (!was) continue;
    for (const field of RECIPIENT_FIELDS) {
      if (!same(was[field], recipient[field])) out.push({ id: after.id, field, recipientId: recipient.id, from: was[field] as SampleFieldValue, to: recipient[field] as SampleFieldValue });
    }
  }
}
