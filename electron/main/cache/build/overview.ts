/**
 * The record numbers of the Overview (shared/contract.ts `Overview`; docs/cache-schema.md
 * `contact_overview`, `order_overview`), built from the new mirror each time a sync publishes a
 * resource (publish.ts) and published with it, so that opening the Overview reads one row per
 * resource instead of grouping a million records. read/overview.ts turns them into the `Overview`:
 * USPS codes, status names and local days are applied there, at read time.
 *
 * Each table holds one row: `part`, a JSON object, and `computed_at` (ISO 8601 UTC). A contact
 * part is `{ total, invalid, states: [[state as spelled ('' : none), contacts], …] }`; an order
 * part is `{ total, invalid, recipients, delivered, statuses: [[code | null, orders], …],
 * productTypes, envelopes, postages: [[value ('' : none), orders], …], firstSeen: [[first-seen
 * time, orders], …], campaigns: [[id, name, recipients, delivered], …], templates: [[id, title,
 * orders, recipients], …] }`, the campaigns most delivered first and the templates most used first,
 * {@link OVERVIEW_TOP} of each: the sample's million contacts have tens of thousands of campaigns,
 * which the page would wait for.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { OVERVIEW_TABLES } from '../store/columns.ts';

export { OVERVIEW_TABLES } from '../store/columns.ts';

/** The campaigns and templates an order part lists, the first in their order. */
export const OVERVIEW_TOP = 100;

/**
 * The SELECT of a contact part and `computedAt` (an SQL expression) from the mirror `contacts` (a
 * table name): the count, the invalid ones, and the contacts per state as spelled (through the
 * state index: NULL and '' are two groups, both written '').
 */
export function contactPartSelect(contacts: string, computedAt: string): string {
  return `SELECT json_object(
    'total', (SELECT count(*) FROM ${contacts}),
    'invalid', (SELECT count(*) FROM ${contacts} WHERE invalid_reason IS NOT NULL),
    'states', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT coalesce(state, '') AS v, count(*) AS n FROM ${contacts} GROUP BY state)))), ${computedAt}`;
}

/**
 * The SELECT of an order part and `computedAt` (an SQL expression) from the mirror `orders`, its
 * first-seen times `firstSeen`, and its `campaigns` and `templates` (build/summaries.ts; table
 * names): one grouped pass over the orders, whose few groups each list is summed from, one over
 * the first-seen times, and the first of the campaigns and templates.
 */
export function orderPartSelect(orders: string, firstSeen: string, campaigns: string, templates: string, computedAt: string): string {
  const list = (column: string) => `json((SELECT json_group_array(json_array(v, n)) FROM (SELECT ${column} AS v, sum(n) AS n FROM g GROUP BY 1)))`;
  return `WITH g AS MATERIALIZED (SELECT status, coalesce(product_type, '') AS product_type, coalesce(product_envelope_type, '') AS envelope,
      coalesce(product_postage_type, '') AS postage, count(*) AS n, count(invalid_reason) AS invalid, sum(recipients) AS recipients, sum(delivered) AS delivered
      FROM ${orders} GROUP BY 1, 2, 3, 4)
    SELECT json_object(
      'total', (SELECT coalesce(sum(n), 0) FROM g),
      'invalid', (SELECT coalesce(sum(invalid), 0) FROM g),
      'recipients', (SELECT coalesce(sum(recipients), 0) FROM g),
      'delivered', (SELECT coalesce(sum(delivered), 0) FROM g),
      'statuses', ${list('status')},
      'productTypes', ${list('product_type')},
      'envelopes', ${list('envelope')},
      'postages', ${list('postage')},
      'firstSeen', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT first_seen_at AS v, count(*) AS n FROM ${firstSeen} GROUP BY 1))),
      'campaigns', json((SELECT json_group_array(json_array(campaign_id, coalesce(name, ''), recipients, delivered) ORDER BY delivered DESC, recipients DESC, campaign_id)
        FROM (SELECT * FROM ${campaigns} ORDER BY delivered DESC, recipients DESC, campaign_id LIMIT ${OVERVIEW_TOP}))),
      'templates', json((SELECT json_group_array(json_array(template_id, coalesce(title, ''), orders, recipients) ORDER BY orders DESC, recipients DESC, template_id)
        FROM (SELECT * FROM ${templates} ORDER BY orders DESC, recipients DESC, template_id LIMIT ${OVERVIEW_TOP})))), ${computedAt}`;
}

/**
 * Fills the overview table `<table>_next` of `resource` (created empty by the build) from the new
 * mirror: `contacts_next`, or `orders_next` with `order_first_seen_next`, `order_campaigns_next`
 * and `order_templates_next` (build those first).
 * @param computedAt ISO 8601 UTC instant recorded as the part's computed time
 */
export function buildOverviewNext(db: Database.Database, resource: Resource, computedAt: string): void {
  const table = `${OVERVIEW_TABLES[resource]}_next`;
  const select = resource === 'contacts' ? contactPartSelect('contacts_next', '?') : orderPartSelect('orders_next', 'order_first_seen_next', 'order_campaigns_next', 'order_templates_next', '?');
  db.prepare(`INSERT INTO ${table} (part, computed_at) ${select}`).run(computedAt);
}
