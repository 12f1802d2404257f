/**
 * The overview of a profile's cache (issue "The mailing at a glance"; the Overview page and
 * `letterdesk overview`): the record numbers each publish computed (build/overview.ts) with the
 * first templates and campaigns (build/summaries.ts), the kept filters' counts, and the deliveries
 * observed per local day (the observed history's per-run counts, store/history.ts). Reads a few
 * small tables only, so it stays quick at a million records; nothing here groups the records.
 */
import type Database from 'better-sqlite3';
import type { Overview, OverviewCount, OverviewDay } from '../../../../shared/contract.ts';
import { localDay } from '../../../../shared/keptFilters.ts';
import { uspsStateCode } from '../../../../shared/usStates.ts';
import { OVERVIEW_TABLES } from '../store/columns.ts';
import { OBSERVED_DELIVERED, hasDeliveredCounts } from '../store/history.ts';
import { listKeptFilters } from './kept.ts';
import { read, stmt } from './rows.ts';
import { historyReadable } from './timeline.ts';

/** The key of the contacts whose state is not a US state or territory (or is empty). */
export const OTHER_STATE = 'other';

/** A contact part as build/overview.ts stores it. */
interface ContactPart {
  total: number;
  invalid: number;
  states: [string, number][];
}

/** An order part as build/overview.ts stores it. */
interface OrderPart {
  total: number;
  invalid: number;
  recipients: number;
  delivered: number;
  statuses: [number | null, number][];
  productTypes: [string, number][];
  envelopes: [string, number][];
  postages: [string, number][];
  firstSeen: [string, number][];
  campaigns: [string, string, number, number][];
  templates: [string, string, number, number][];
}

const NO_CONTACTS: ContactPart = { total: 0, invalid: 0, states: [] };
const NO_ORDERS: OrderPart = { total: 0, invalid: 0, recipients: 0, delivered: 0, statuses: [], productTypes: [], envelopes: [], postages: [], firstSeen: [], campaigns: [], templates: [] };

/** The stored part of `table` and its computed time; none before the resource's first sync. */
function partOf<T>(db: Database.Database, table: string): { part: T; computedAt: string } | null {
  const row = stmt(db, `SELECT part, computed_at FROM ${table} LIMIT 1`).get() as { part: string; computed_at: string } | undefined;
  return row ? { part: JSON.parse(row.part) as T, computedAt: row.computed_at } : null;
}

/** Sums of `pairs` per value, most first (then by value). */
function mostFirst(pairs: readonly [string, number][]): OverviewCount[] {
  const sums = new Map<string, number>();
  for (const [value, count] of pairs) sums.set(value, (sums.get(value) ?? 0) + count);
  return [...sums].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/** Sums of `pairs` (an ISO 8601 UTC instant, a count) per local day of the instant, oldest first. */
function byLocalDay(pairs: Iterable<readonly [string, number]>): OverviewDay[] {
  const days = new Map<string, number>();
  for (const [at, count] of pairs) {
    const day = localDay(new Date(at));
    days.set(day, (days.get(day) ?? 0) + count);
  }
  return [...days].filter(([, count]) => count > 0).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, count]) => ({ day, count }));
}

/**
 * The contacts' numbers: per USPS code, and the spellings of each code most used first (what the
 * contacts' `states` filter takes: '' also opens those that carry none).
 */
function contactsOf(part: ContactPart): Overview['contacts'] {
  const byState: Record<string, number> = {};
  const spellings = new Map<string, OverviewCount[]>();
  for (const { value, count } of mostFirst(part.states)) {
    const code = uspsStateCode(value) ?? OTHER_STATE;
    byState[code] = (byState[code] ?? 0) + count;
    spellings.set(code, [...(spellings.get(code) ?? []), { value, count }]);
  }
  const stateValues = Object.fromEntries([...spellings].map(([code, values]) => [code, values.map((v) => v.value)]));
  return { total: part.total, byState, stateValues, invalid: part.invalid };
}

/**
 * Recipients observed delivered per local day of the read that saw them, from the per-run counts;
 * a history a version 1 file without them (a reader before any writer opened it) is grouped from
 * its observations instead. Empty when no history is attached.
 */
function deliveriesByDay(db: Database.Database): OverviewDay[] {
  if (!historyReadable(db)) return [];
  const rows = hasDeliveredCounts(db)
    ? (stmt(db, `SELECT r.at_or_before AS at, d.delivered AS n FROM history.observation_runs r JOIN history.delivered_counts d ON d.run = r.run
        WHERE r.resource = 'orders' AND d.delivered > 0`).all() as { at: string; n: number }[])
    : (stmt(db, `SELECT r.at_or_before AS at, count(*) AS n FROM history.observation_runs r JOIN history.observations o ON o.run = r.run
        WHERE r.resource = 'orders' AND ${OBSERVED_DELIVERED} GROUP BY r.run`).all() as { at: string; n: number }[]);
  return byLocalDay(rows.map((r) => [r.at, r.n] as const));
}

/**
 * The overview's numbers (shared/contract.ts {@link Overview}) in one read of the visible snapshot:
 * the parts the last publishes stored, named and grouped by local day here, and the small tables
 * beside them. Local days are this process's time zone's.
 * @param statusNames the name of each order status code known (the profile's and the learned ones), by code
 * @returns zeros and empty lists, `computedAt` null, before the first sync
 */
export function overview(db: Database.Database, statusNames: Readonly<Record<string, string>> = {}): Overview {
  // Attached outside the read transaction: SQLite cannot attach inside one.
  historyReadable(db);
  return read(db, () => {
    const contacts = partOf<ContactPart>(db, OVERVIEW_TABLES.contacts);
    const orders = partOf<OrderPart>(db, OVERVIEW_TABLES.orders);
    const o = orders?.part ?? NO_ORDERS;
    const statuses = new Map<number | null, number>();
    for (const [code, count] of o.statuses) statuses.set(code, (statuses.get(code) ?? 0) + count);
    const byStatus = [...statuses]
      .sort((a, b) => b[1] - a[1] || (a[0] ?? -1) - (b[0] ?? -1))
      .map(([code, count]) => ({ code, name: code === null ? null : (statusNames[String(code)] ?? null), count }));
    const kept = listKeptFilters(db).flatMap((k) => (k.readAt !== null && k.members !== null ? [{ resource: k.resource, param: k.param, value: k.value, members: k.members, readAt: k.readAt }] : []));
    const times = [contacts?.computedAt, orders?.computedAt].filter((t): t is string => t !== undefined).sort();
    return {
      computedAt: times.at(-1) ?? null,
      contacts: contactsOf(contacts?.part ?? NO_CONTACTS),
      orders: {
        total: o.total, byStatus,
        byProductType: mostFirst(o.productTypes), byEnvelope: mostFirst(o.envelopes), byPostage: mostFirst(o.postages),
        firstSeenByDay: byLocalDay(o.firstSeen), invalid: o.invalid,
      },
      recipients: { total: o.recipients, delivered: o.delivered },
      deliveriesByDay: deliveriesByDay(db),
      campaigns: o.campaigns.map(([id, name, recipients, delivered]) => ({ id, name, recipients, delivered })),
      templates: o.templates.map(([id, title, orders, recipients]) => ({ id, title, orders, recipients })),
      kept,
    };
  });
}
