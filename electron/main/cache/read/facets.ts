/**
 * Facet counts of the contact and order views: for each filter, its options with the number of
 * rows they would match given the other filters, the search and the saved view (the filter's own
 * selection left out). Read inside one read transaction, like every query of queries.ts.
 *
 * The filters the query does not set leave the view as it is, so their facets count the same
 * rows: one grouped scan of the view counts every combination of their values (and the records
 * kept as invalid), and each facet adds up its own column. The labels take a second scan, grouped
 * by each row's label list. A filter the query sets is counted on the view without it, one scan
 * each. A broad search thus reads its matches twice, not once per facet.
 */
import type Database from 'better-sqlite3';
import { RECORD_CHANGES, type ContactFacets, type ContactQuery, type DeliveredState, type FacetOption, type OrderFacets, type OrderQuery, type RecordChange, type VerifiedState } from '../../../../shared/query.ts';
import { read, stmt, str, type Row } from './rows.ts';
import { viewScope } from './listScope.ts';
import { contactViewSql, orderViewSql, type ViewScope, type ViewSql } from './list.ts';
import { keptFacets, withoutKept } from './kept.ts';
import { timesMailed } from './mailing.ts';
import { MAILED_AT_LEAST } from '../../../../shared/query.ts';
import { DELIVERED_SINCE_PRESETS, type DeliveredSincePreset } from '../../../../shared/keptFilters.ts';
import { hasHistory } from '../store/history.ts';
import { DUPLICATE_LEVELS_SHOWN, type DuplicateLevel } from '../../../../shared/duplicates.ts';

const DUPLICATE_LABELS: Record<DuplicateLevel, string> = { household: 'Same household', individual: 'Same person', address: 'Same address' };

/**
 * The possible-duplicates options: the view's contacts (the filter left out) in a group at each
 * level. Read from the groups' rows, which are few, each checked against the view; none before
 * the groups were first found.
 */
function duplicatesFacet(db: Database.Database, v: ViewSql): FacetOption<DuplicateLevel>[] {
  if (!stmt(db, 'SELECT EXISTS (SELECT 1 FROM contact_duplicates_state)').pluck().get()) return [];
  const rows = stmt(db, `SELECT d.level AS v, count(*) AS n FROM ${v.from} JOIN contact_duplicates d ON d.contact_id = c.id WHERE ${v.where} GROUP BY d.level`).all(v.params) as Row[];
  const counts = new Map(rows.map((r) => [str(r.v), Number(r.n)]));
  return DUPLICATE_LEVELS_SHOWN.map((level) => ({ value: level, label: DUPLICATE_LABELS[level], count: counts.get(level) ?? 0 }));
}

/** `query` without its kept selections (the rows the kept values' counts start from). */
function sansKept<Q extends { kept?: unknown }>(query: Q): Q {
  const { kept: _kept, ...rest } = query;
  return rest as Q;
}

/** Most options a facet lists. */
const FACET_LIMIT = 200;

/** The rows of a grouped scan: each combination of the grouped values, its rows and its invalid rows. */
interface Combination {
  values: unknown[];
  n: number;
  invalid: number;
}

/**
 * Counts the rows of view `v` per combination of `exprs` (SQL over the view's alias): one scan
 * of the view. With `invalidOf` (the alias) also how many of them were kept as invalid.
 */
function combinations(db: Database.Database, v: ViewSql, exprs: readonly string[], invalidOf?: string): Combination[] {
  const keys = exprs.map((e, i) => `${e} AS k${i}, `).join('');
  const groupBy = exprs.length ? ` GROUP BY ${exprs.map((_, i) => i + 1).join(', ')}` : '';
  const sql = `SELECT ${keys}count(*) AS n, ${invalidOf ? `count(${invalidOf}.invalid_reason)` : '0'} AS i FROM ${v.from} WHERE ${v.where}${groupBy}`;
  return (stmt(db, sql).raw(true).all(v.params) as unknown[][]).map((r) => ({ values: r.slice(0, exprs.length), n: Number(r[exprs.length]), invalid: Number(r[exprs.length + 1]) }));
}

/** SQLite's BINARY order of two texts (their UTF-8 bytes), which JavaScript's `<` is not. */
function binaryOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * The rows per value of column `index` of `rows`, most first (ties by the value's text), at most
 * {@link FACET_LIMIT}: a facet's options before they are named.
 */
function tally(rows: readonly Combination[], index: number): { value: unknown; n: number }[] {
  const byValue = new Map<unknown, number>();
  for (const r of rows) byValue.set(r.values[index], (byValue.get(r.values[index]) ?? 0) + r.n);
  return [...byValue].map(([value, n]) => ({ value, n })).sort((a, b) => b.n - a.n || binaryOrder(str(a.value), str(b.value))).slice(0, FACET_LIMIT);
}

/** A facet's counts, as {@link tally} gives them. */
type Tally = ReturnType<typeof tally>;

function named<V>(counts: Tally, map: (value: unknown, n: number) => FacetOption<V> | null): FacetOption<V>[] {
  return counts.map((c) => map(c.value, c.n)).filter((x): x is FacetOption<V> => x !== null);
}

/**
 * One facet: from the shared scan when the query leaves its filter unset, else from a scan of the
 * view without that filter.
 */
function facetCounts(db: Database.Database, shared: readonly Combination[], index: number, set: boolean, own: () => ViewSql, expr: string): Tally {
  return set ? tally(combinations(db, own(), [expr]), 0) : tally(shared, index);
}

const liveOption = (v: unknown, n: number): FacetOption<'live' | 'test'> | null =>
  v === 1 ? { value: 'live', label: 'Live', count: n } : v === 0 ? { value: 'test', label: 'Test', count: n } : null;

const CHANGE_LABELS: Record<RecordChange, string> = { added: 'Added', changed: 'Changed', removed: 'Removed' };

/**
 * The change filter's options: the view's records (the change filter left out) of each kind of
 * change in the last sync, the removed ones counted from their kept copies. The view with every
 * kind asked holds exactly the changed records, each with its kind in the change table. Nothing
 * is read when the last sync recorded no change.
 */
function changeFacet(db: Database.Database, kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, scope: ViewScope): FacetOption<RecordChange>[] {
  const table = kind === 'contacts' ? 'contact_changes' : 'order_changes';
  const removed = kind === 'contacts' ? 'removed_contacts' : 'removed_orders';
  if (!stmt(db, `SELECT EXISTS (SELECT 1 FROM ${table}) OR EXISTS (SELECT 1 FROM ${removed})`).pluck().get()) return [];
  const all = { ...query, changed: [...RECORD_CHANGES] };
  const v = kind === 'contacts' ? contactViewSql(all as ContactQuery, undefined, scope) : orderViewSql(all as OrderQuery, undefined, scope);
  const alias = kind === 'contacts' ? 'c' : 'o';
  const sql = `SELECT (SELECT ch.change FROM ${table} ch WHERE ch.id = ${alias}.id) AS v, count(*) AS n FROM ${v.from} WHERE ${v.where} GROUP BY 1`;
  return (stmt(db, sql).all(v.params) as Row[])
    .flatMap((r): FacetOption<RecordChange>[] => (r.v === 'added' || r.v === 'changed' || r.v === 'removed' ? [{ value: r.v, label: CHANGE_LABELS[r.v], count: Number(r.n) }] : []))
    .sort((a, b) => RECORD_CHANGES.indexOf(a.value) - RECORD_CHANGES.indexOf(b.value));
}

/**
 * The label options of a view: each label counted once per row that lists it in its own
 * `label_list` (what the mirror's label tables are built from, so rows outside the mirror, such
 * as members newer than it and removed contacts' kept copies, count the same way), named as the
 * mirror names it (`labels`), or, for a label only such rows carry, by the largest title they
 * give it. Most first, then by title. The whole mirror is counted from its label table instead.
 * @param lists the view's rows grouped by `label_list` (undefined: `v` is the whole mirror)
 */
function labelOptions(db: Database.Database, lists: readonly { list: unknown; n: number }[] | undefined): FacetOption<string>[] {
  if (!lists) {
    return (stmt(db, `SELECT l.id AS v, l.title AS t, count(*) AS n FROM contact_labels cl JOIN labels l ON l.id = cl.label_id GROUP BY l.id ORDER BY n DESC, t LIMIT ${FACET_LIMIT}`).all() as Row[])
      .map((r) => ({ value: str(r.v), label: str(r.t), count: Number(r.n) }));
  }
  const titles = new Map((stmt(db, 'SELECT id AS v, title AS t FROM labels').all() as Row[]).map((r) => [str(r.v), str(r.t)]));
  const counts = new Map<string, { title: string; n: number }>();
  for (const { list, n } of lists) {
    if (typeof list !== 'string') continue;
    const own = new Map<string, string>();
    for (const label of JSON.parse(list) as { id: string; title: string }[]) {
      const before = own.get(label.id);
      if (before === undefined || binaryOrder(label.title, before) > 0) own.set(label.id, label.title);
    }
    for (const [id, title] of own) {
      const seen = counts.get(id);
      if (!seen) counts.set(id, { title, n });
      else {
        seen.n += n;
        if (binaryOrder(title, seen.title) > 0) seen.title = title;
      }
    }
  }
  return [...counts]
    .map(([id, c]) => ({ value: id, label: titles.get(id) ?? c.title, count: c.n }))
    .sort((a, b) => b.count - a.count || binaryOrder(a.label, b.label))
    .slice(0, FACET_LIMIT);
}

/** The rows of a view grouped by `label_list`, or undefined for the whole mirror (see {@link labelOptions}). */
function labelLists(db: Database.Database, v: ViewSql): { list: unknown; n: number }[] | undefined {
  return v.all ? undefined : combinations(db, v, ['c.label_list']).map((r) => ({ list: r.values[0], n: r.n }));
}

/**
 * Records kept as invalid: from the shared scan, or for the whole table from its index of them
 * (a scan of every row would cost more than the count).
 */
function invalidCount(db: Database.Database, base: ViewSql, shared: readonly Combination[], table: 'contacts' | 'orders'): number {
  if (base.all) return Number(stmt(db, `SELECT count(*) FROM ${table} WHERE invalid_reason IS NOT NULL`).pluck().get() ?? 0);
  return shared.reduce((sum, r) => sum + r.invalid, 0);
}

/** The grouped values of a contacts scan, in this order (a set filter's column is left out of the scan). */
const CONTACT_GROUPS = [
  { filter: 'states', expr: "coalesce(c.state, '')" },
  { filter: 'verified', expr: 'c.is_verified' },
  { filter: 'liveMode', expr: 'c.is_live_mode' },
  // Times mailed, capped at the largest "at least" option.
  { filter: 'timesMailed', expr: `min(${timesMailed('c')}, ${MAILED_AT_LEAST.at(-1)})` },
] as const;

/**
 * The times-mailed filter's options: "never mailed" and "at least N times" for each N, each
 * counted from the rows per capped count (the filter left out).
 */
function mailedOptions(counts: Tally): FacetOption<string>[] {
  const rows = counts.map((c) => ({ times: Number(c.value), n: c.n }));
  const atLeast = (min: number) => rows.reduce((sum, r) => sum + (r.times >= min ? r.n : 0), 0);
  return [
    { value: 'never', label: 'Never mailed', count: rows.reduce((sum, r) => sum + (r.times === 0 ? r.n : 0), 0) },
    ...MAILED_AT_LEAST.map((min) => ({ value: String(min), label: min === 1 ? 'At least once' : `At least ${min} times`, count: atLeast(min) })),
  ];
}

/**
 * Facet counts of the contacts view. With `labelsMode: 'all'` the label options count the rows of
 * the view itself (each ticked label counts them all); with `any`, what ticking a label would add
 * (the label filter left out). For the whole mirror the states and labels are counted from their
 * indexes, which is cheaper than a scan of every row.
 */
export function contactFacets(db: Database.Database, query: ContactQuery): ContactFacets {
  return read(db, () => {
    const scope = viewScope(db, 'contacts', query.view);
    const base = contactViewSql(query, undefined, scope);
    const own = (filter: keyof ContactQuery) => () => contactViewSql(query, filter, scope);
    const isSet = (filter: (typeof CONTACT_GROUPS)[number]['filter']) => (filter === 'timesMailed' ? query.timesMailed !== undefined : (query[filter]?.length ?? 0) > 0);
    const labelsShared = query.labelsMode === 'all' || !query.labels?.length;
    // The whole mirror's states are read from their index, by the states facet's own scan.
    const inShared = (g: (typeof CONTACT_GROUPS)[number]) => !isSet(g.filter) && !(base.all && g.filter === 'states');
    const shared = combinations(db, base, CONTACT_GROUPS.map((g) => (inShared(g) ? g.expr : 'NULL')), base.all ? undefined : 'c');
    const [states, verified, live, mailed] = CONTACT_GROUPS.map((g, i) => facetCounts(db, shared, i, !inShared(g), own(g.filter), g.expr)) as [Tally, Tally, Tally, Tally];
    // Labels by a scan of their own: grouped with the other values, the label lists would
    // multiply the groups (thousands of lists by every state) and the memory they take.
    const lists = labelLists(db, labelsShared ? base : own('labels')());
    return {
      labels: labelOptions(db, lists),
      states: named(states, (v, n) => ({ value: str(v), label: str(v) || '(none)', count: n })),
      verified: named<VerifiedState>(verified, (v, n) =>
        v === 1 ? { value: 'yes', label: 'Verified', count: n } : v === 0 ? { value: 'no', label: 'Not verified', count: n } : { value: 'unknown', label: 'Unknown', count: n },
      ),
      liveMode: named(live, liveOption),
      timesMailed: mailedOptions(mailed),
      duplicates: duplicatesFacet(db, query.duplicates ? own('duplicates')() : base),
      changed: changeFacet(db, 'contacts', query, scope),
      invalid: invalidCount(db, base, shared, 'contacts'),
      kept: keptFacets(db, 'contacts', query.kept, (param) => contactViewSql({ ...query, kept: withoutKept(query.kept, param) }, undefined, scope), () => contactViewSql(sansKept(query), undefined, scope)),
    };
  });
}

const DELIVERED_EXPR = "CASE WHEN o.recipients > 0 AND o.delivered = o.recipients THEN 'all' WHEN o.delivered > 0 THEN 'some' ELSE 'none' END";
const DELIVERED_LABELS: Record<DeliveredState, string> = { all: 'All delivered', some: 'Some delivered', none: 'None delivered' };

/** The grouped values of an orders scan, in this order. */
const ORDER_GROUPS = [
  { filter: 'statuses', expr: 'o.status' },
  { filter: 'productTypes', expr: 'o.product_type' },
  { filter: 'campaignTypes', expr: 'o.campaign_type' },
  { filter: 'scheduleTypes', expr: 'o.campaign_schedule_type' },
  { filter: 'liveMode', expr: 'o.is_live_mode' },
  { filter: 'delivered', expr: DELIVERED_EXPR },
] as const;

const DELIVERED_SINCE_LABELS: Record<DeliveredSincePreset, string> = { '7d': 'In the last 7 days', '30d': 'In the last 30 days' };

/**
 * The "delivered since" options: the orders of the view (that filter left out) a sync saw
 * delivered in the last 7 and 30 local days. None without an observed history.
 */
function deliveredSinceOptions(db: Database.Database, query: OrderQuery, scope: ViewScope): FacetOption<DeliveredSincePreset>[] {
  if (!hasHistory(db)) return DELIVERED_SINCE_PRESETS.map((p) => ({ value: p, label: DELIVERED_SINCE_LABELS[p], count: 0 }));
  return DELIVERED_SINCE_PRESETS.map((preset) => {
    const view = orderViewSql({ ...query, deliveredSince: preset }, undefined, scope);
    const n = (stmt(db, `SELECT count(*) AS n FROM ${view.from} WHERE ${view.where}`).get(view.params) as { n: number }).n;
    return { value: preset, label: DELIVERED_SINCE_LABELS[preset], count: n };
  });
}

/** Facet counts of the orders view (see {@link contactFacets}). */
export function orderFacets(db: Database.Database, query: OrderQuery): OrderFacets {
  return read(db, () => {
    const scope = viewScope(db, 'orders', query.view);
    const base = orderViewSql(query, undefined, scope);
    const isSet = (filter: (typeof ORDER_GROUPS)[number]['filter']) => (query[filter]?.length ?? 0) > 0;
    const shared = combinations(db, base, ORDER_GROUPS.map((g) => (isSet(g.filter) ? 'NULL' : g.expr)), base.all ? undefined : 'o');
    const [statuses, productTypes, campaignTypes, scheduleTypes, live, delivered] = ORDER_GROUPS.map((g, i) =>
      facetCounts(db, shared, i, isSet(g.filter), () => orderViewSql(query, g.filter, scope), g.expr),
    ) as [Tally, Tally, Tally, Tally, Tally, Tally];
    const text = (v: unknown, n: number): FacetOption<string> => ({ value: str(v), label: str(v) || '(none)', count: n });
    return {
      statuses: named(statuses, (v, n) => (typeof v === 'number' ? { value: v, label: String(v), count: n } : null)),
      productTypes: named(productTypes, text),
      campaignTypes: named(campaignTypes, text),
      scheduleTypes: named(scheduleTypes, text),
      liveMode: named(live, liveOption),
      delivered: named<DeliveredState>(delivered, (v, n) => {
        const d = str(v) as DeliveredState;
        return { value: d, label: DELIVERED_LABELS[d], count: n };
      }),
      deliveredSince: deliveredSinceOptions(db, query, scope),
      changed: changeFacet(db, 'orders', query, scope),
      invalid: invalidCount(db, base, shared, 'orders'),
      kept: keptFacets(db, 'orders', query.kept, (param) => orderViewSql({ ...query, kept: withoutKept(query.kept, param) }, undefined, scope), () => orderViewSql(sansKept(query), undefined, scope)),
    };
  });
}
