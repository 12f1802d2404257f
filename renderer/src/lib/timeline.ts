/**
 * The observed history (shared/contract.ts `Observation`) in a mailer's words: "Scheduled →
 * Mailed", "Ava García delivered", "Street: 1 Oak St → 12 New Road", each with the span the sync
 * saw it in ("between Dec 1, 18:02 and Dec 2, 09:14"), since the service never says when.
 */
import type { Observation } from '../../../shared/contract.ts';
import { statusName } from '../../../shared/statusCodes.ts';
import type { StatusNames } from '../../../shared/statusNames.ts';
import { formatWhen } from './format.ts';

/** A contact's observed fields in words. */
const CONTACT_FIELDS: Readonly<Record<string, string>> = {
  address1: 'Address', address2: 'Line 2', city: 'City', state: 'State', zip: 'ZIP', ContactLabels: 'Labels',
};

/** What an observation is read with: the order status names, and a recipient's name by its id. */
export interface TimelineContext {
  statusNames?: StatusNames | undefined;
  recipientName?: (recipientId: string) => string | null;
}

/** One observation in words. */
export interface TimelineEntry {
  /** What changed ("Scheduled → Mailed"). */
  what: string;
  /** When, as the sync saw it ("between Dec 1, 18:02 and Dec 2, 09:14"). */
  between: string;
  /** The span's end (ISO), to sort and group by. */
  atOrBefore: string;
}

/** A JSON value as a person reads it: text as it is, a list of labels by their titles, empty as "—". */
function valueText(value: Observation['from']): string {
  if (value === null || value === '') return '—';
  if (Array.isArray(value)) return value.map((v) => (v && typeof v === 'object' && !Array.isArray(v) && typeof v.title === 'string' ? v.title : JSON.stringify(v))).join(', ') || 'none';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** "between <after> and <atOrBefore>", each as a short local time. */
export function spanText(o: Pick<Observation, 'after' | 'atOrBefore'>): string {
  return `between ${formatWhen(o.after)} and ${formatWhen(o.atOrBefore)}`;
}

/** One observation of a contact or an order in words (see the module comment). */
export function describeObservation(o: Observation, context: TimelineContext = {}): TimelineEntry {
  const between = spanText(o);
  const who = o.recipientId === undefined ? null : (context.recipientName?.(o.recipientId) ?? `Recipient #${o.recipientId}`);
  let what: string;
  if (o.field === 'record') what = o.to === 'present' ? 'Listed by the service' : 'No longer listed by the service';
  else if (who !== null && o.field === 'isDelivered') what = o.to === true ? `${who} delivered` : `${who} no longer shown delivered`;
  else if (who !== null && o.field === 'trackingCode') what = o.from === null ? `${who}: tracking code ${valueText(o.to)}` : `${who}: tracking code ${valueText(o.from)} → ${valueText(o.to)}`;
  else if (who !== null) what = `${who}: ${o.field} ${valueText(o.from)} → ${valueText(o.to)}`;
  else if (o.field === 'status' && typeof o.from === 'number' && typeof o.to === 'number') what = `${statusName(o.from, context.statusNames)} → ${statusName(o.to, context.statusNames)}`;
  else what = `${CONTACT_FIELDS[o.field] ?? o.field}: ${valueText(o.from)} → ${valueText(o.to)}`;
  return { what, between, atOrBefore: o.atOrBefore };
}

/** A contact's address fields, in the order an address is written. */
const ADDRESS_FIELDS = ['address1', 'address2', 'city', 'state', 'zip'] as const;

/**
 * A record's timeline in words, newest sync first: the address fields one sync saw change become
 * one "Moved" entry ("Moved: 1 Oak St · Springfield → 12 New Road · Chicago"), in the order an
 * address is written; every other observation is one entry ({@link describeObservation}).
 */
export function describeTimeline(timeline: readonly Observation[], context: TimelineContext = {}): TimelineEntry[] {
  const bySync = new Map<string, Observation[]>();
  for (const o of timeline) {
    const key = `${o.after}|${o.atOrBefore}`;
    bySync.set(key, [...(bySync.get(key) ?? []), o]);
  }
  const entries: TimelineEntry[] = [];
  for (const group of [...bySync.values()].reverse()) {
    const moved = ADDRESS_FIELDS.flatMap((f) => group.filter((o) => o.field === f && o.recipientId === undefined));
    if (moved.length > 1) {
      const side = (which: 'from' | 'to') => moved.map((o) => valueText(o[which])).join(' · ');
      entries.push({ what: `Moved: ${side('from')} → ${side('to')}`, between: spanText(group[0]!), atOrBefore: group[0]!.atOrBefore });
    }
    for (const o of group) if (moved.length <= 1 || !moved.includes(o)) entries.push(describeObservation(o, context));
  }
  return entries;
}

/** The newest observation of `field` for each recipient id ("when was this recipient seen delivered"). */
export function latestByRecipient(timeline: readonly Observation[], field: string): Map<string, Observation> {
  const out = new Map<string, Observation>();
  for (const o of timeline) if (o.field === field && o.recipientId !== undefined) out.set(o.recipientId, o);
  return out;
}
