/**
 * Facet counts of the contact and order views: for each filter, its options with the number of
 * rows they would match given the other filters, the search and the saved view (the filter's own
 * selection left out). Read inside one read transaction, like every query of queries.ts.
 */
import type Database from 'better-sqlite3';
import { RECORD_CHANGES, type ContactFacets, type ContactQuery, type DeliveredState, type FacetOption, type OrderFacets, type OrderQuery, type RecordChange, type VerifiedState } from '../../../shared/query.ts';
import { read, stmt, str, type Row } from './rows.ts';
import { viewScope } from './viewScope.ts';
import { contactViewSql, orderViewSql, type ViewScope } from './views.ts';

/** Most options a facet lists. */
const FACET_LIMIT = 200;

function facet<V>(db: Database.Database, sql: string, params: Record<string, unknown>, map: (r: Row) => FacetOption<V> | null): FacetOption<V>[] {
  return (stmt(db, sql).all(params) as Row[]).map(map).filter((x): x is FacetOption<V> => x !== null);
}

const liveFacet = (r: Row): FacetOption<'live' | 'test'> | null =>
  r.v === 1 ? { value: 'live', label: 'Live', count: Number(r.n) } : r.v === 0 ? { value: 'test', label: 'Test', count: Number(r.n) } : null;

const CHANGE_LABELS: Record<RecordChange, string> = { added: 'Added', changed: 'Changed', removed: 'Removed' };

/**
 * The change filter's options: the view's records (the change filter left out) of each kind of
 * change in the last sync, the removed ones counted from their kept copies. The view with every
 * kind asked holds exactly the changed records, each with its kind in the change table.
 */
function changeFacet(db: Database.Database, kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, scope: ViewScope): FacetOption<RecordChange>[] {
  const all = { ...query, changed: [...RECORD_CHANGES] };
  const v = kind === 'contacts' ? contactViewSql(all as ContactQuery, undefined, scope) : orderViewSql(all as OrderQuery, undefined, scope);
  const alias = kind === 'contacts' ? 'c' : 'o';
  const table = kind === 'contacts' ? 'contact_changes' : 'order_changes';
  const sql = `SELECT (SELECT ch.change FROM ${table} ch WHERE ch.id = ${alias}.id) AS v, count(*) AS n FROM ${v.from} WHERE ${v.where} GROUP BY 1`;
  return facet<RecordChange>(db, sql, v.params, (r) => (r.v === 'added' || r.v === 'changed' || r.v === 'removed' ? { value: r.v, label: CHANGE_LABELS[r.v], count: Number(r.n) } : null))
    .sort((a, b) => RECORD_CHANGES.indexOf(a.value) - RECORD_CHANGES.indexOf(b.value));
}

/** "Only records kept as invalid": how many of the view's records (that filter left out) were kept as invalid. */
function invalidCount(db: Database.Database, kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, scope: ViewScope): number {
  const only = { ...query, invalidOnly: true };
  const v = kind === 'contacts' ? contactViewSql(only as ContactQuery, undefined, scope) : orderViewSql(only as OrderQuery, undefined, scope);
  return Number(stmt(db, `SELECT count(*) FROM ${v.from} WHERE ${v.where}`).pluck().get(v.params) ?? 0);
}

/**
 * Facet counts of the contacts view. With `labelsMode: 'all'` the label options count the rows of
 * the view itself (each ticked label counts them all). The labels of rows that are not the mirror's (members newer
 * than the mirror, removed contacts' kept copies) are read from their own records (a label id and
 * title the mirror knows is named as the mirror names it).
 */
export function contactFacets(db: Database.Database, query: ContactQuery): ContactFacets {
  return read(db, () => {
    const scope = viewScope(db, 'contacts', query.view);
    // Any: a label's count is what ticking it would add (the label filter left out); all: what
    // ticking it would narrow the view to (the ticked labels kept).
    const lv = contactViewSql(query, query.labelsMode === 'all' ? undefined : 'labels', scope);
    const mirrorLabels = `SELECT cl.label_id AS v FROM contact_labels cl WHERE cl.contact_id IN (SELECT c.id FROM ${lv.from} WHERE ${lv.where})`;
    const labelsSql = lv.all
      ? `SELECT l.id AS v, l.title AS t, count(*) AS n FROM contact_labels cl JOIN labels l ON l.id = cl.label_id GROUP BY l.id ORDER BY n DESC, t LIMIT ${FACET_LIMIT}`
      : lv.outside !== undefined
        ? `SELECT v, coalesce((SELECT title FROM labels WHERE id = v), max(t)) AS t, count(*) AS n FROM (
             SELECT m.v, NULL AS t FROM (${mirrorLabels}) m
             UNION ALL SELECT j.value ->> 'id' AS v, max(j.value ->> 'title') AS t FROM ${lv.from}, json_each(c.label_list) j
               WHERE (${lv.where}) AND ${lv.outside} GROUP BY c.id, v)
           GROUP BY v ORDER BY n DESC, t LIMIT ${FACET_LIMIT}`
        : `SELECT l.id AS v, l.title AS t, count(*) AS n FROM contact_labels cl JOIN labels l ON l.id = cl.label_id
           WHERE cl.contact_id IN (SELECT c.id FROM ${lv.from} WHERE ${lv.where}) GROUP BY l.id ORDER BY n DESC, t LIMIT ${FACET_LIMIT}`;
    const group = (omit: keyof ContactQuery, expr: string) => {
      const v = contactViewSql(query, omit, scope);
      return { sql: `SELECT ${expr} AS v, count(*) AS n FROM ${v.from} WHERE ${v.where} GROUP BY 1 ORDER BY n DESC LIMIT ${FACET_LIMIT}`, params: v.params };
    };
    // No state, '' or NULL, is one option, "(none)" (viewParts.ts matches it as '' or NULL).
    const states = group('states', "coalesce(c.state, '')");
    const verified = group('verified', 'c.is_verified');
    const live = group('liveMode', 'c.is_live_mode');
    return {
      labels: facet(db, labelsSql, lv.params, (r) => ({ value: str(r.v), label: str(r.t), count: Number(r.n) })),
      states: facet(db, states.sql, states.params, (r) => ({ value: str(r.v), label: str(r.v) || '(none)', count: Number(r.n) })),
      verified: facet<VerifiedState>(db, verified.sql, verified.params, (r) =>
        r.v === 1 ? { value: 'yes', label: 'Verified', count: Number(r.n) } : r.v === 0 ? { value: 'no', label: 'Not verified', count: Number(r.n) } : { value: 'unknown', label: 'Unknown', count: Number(r.n) },
      ),
      liveMode: facet(db, live.sql, live.params, liveFacet),
      changed: changeFacet(db, 'contacts', query, scope),
      invalid: invalidCount(db, 'contacts', query, scope),
    };
  });
}

const DELIVERED_EXPR = "CASE WHEN o.recipients > 0 AND o.delivered = o.recipients THEN 'all' WHEN o.delivered > 0 THEN 'some' ELSE 'none' END";
const DELIVERED_LABELS: Record<DeliveredState, string> = { all: 'All delivered', some: 'Some delivered', none: 'None delivered' };

/** Facet counts of the orders view (see {@link contactFacets}). */
export function orderFacets(db: Database.Database, query: OrderQuery): OrderFacets {
  return read(db, () => {
    const scope = viewScope(db, 'orders', query.view);
    const group = (omit: keyof OrderQuery, expr: string) => {
      const v = orderViewSql(query, omit, scope);
      return [`SELECT ${expr} AS v, count(*) AS n FROM ${v.from} WHERE ${v.where} GROUP BY 1 ORDER BY n DESC LIMIT ${FACET_LIMIT}`, v.params] as const;
    };
    const text = (r: Row): FacetOption<string> => ({ value: str(r.v), label: str(r.v) || '(none)', count: Number(r.n) });
    return {
      statuses: facet(db, ...group('statuses', 'o.status'), (r) => (typeof r.v === 'number' ? { value: r.v, label: String(r.v), count: Number(r.n) } : null)),
      productTypes: facet(db, ...group('productTypes', 'o.product_type'), text),
      campaignTypes: facet(db, ...group('campaignTypes', 'o.campaign_type'), text),
      scheduleTypes: facet(db, ...group('scheduleTypes', 'o.campaign_schedule_type'), text),
      liveMode: facet(db, ...group('liveMode', 'o.is_live_mode'), liveFacet),
      delivered: facet<DeliveredState>(db, ...group('delivered', DELIVERED_EXPR), (r) => {
        const v = str(r.v) as DeliveredState;
        return { value: v, label: DELIVERED_LABELS[v], count: Number(r.n) };
      }),
      changed: changeFacet(db, 'orders', query, scope),
      invalid: invalidCount(db, 'orders', query, scope),
    };
  });
}
