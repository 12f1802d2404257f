/**
 * Migration 10: the Overview's record numbers (docs/cache-schema.md `contact_overview`,
 * `order_overview`; build/overview.ts). Nothing that exists changes.
 *
 *  - `contact_overview`, `order_overview`: one row each, the numbers of the resource's published
 *    mirror as a JSON object (`part`) and when they were computed (`computed_at`). Part of each
 *    resource's visible snapshot: every build computes its row, every publish shows it; the order
 *    part also lists the first 100 campaigns (most delivered) and templates (most used). Filled
 *    here for a resource that has been synced, so an existing cache shows its numbers at once.
 *
 * Append-only: never edit this file once released. The fill is a frozen copy of what
 * build/overview.ts builds when this migration was added.
 */
import type { Migration } from './index.ts';

export const migration: Migration = {
  version: 10,
  name: 'overview',
  sql: `
CREATE TABLE contact_overview (part TEXT NOT NULL, computed_at TEXT NOT NULL);
CREATE TABLE order_overview (part TEXT NOT NULL, computed_at TEXT NOT NULL);
INSERT INTO contact_overview (part, computed_at)
  SELECT json_object(
    'total', (SELECT count(*) FROM contacts),
    'invalid', (SELECT count(*) FROM contacts WHERE invalid_reason IS NOT NULL),
    'states', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT coalesce(state, '') AS v, count(*) AS n FROM contacts GROUP BY state)))),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  WHERE (SELECT last_synced_at FROM resource_state WHERE resource = 'contacts') IS NOT NULL;
INSERT INTO order_overview (part, computed_at)
  WITH g AS MATERIALIZED (SELECT status, coalesce(product_type, '') AS product_type, coalesce(product_envelope_type, '') AS envelope,
      coalesce(product_postage_type, '') AS postage, count(*) AS n, count(invalid_reason) AS invalid, sum(recipients) AS recipients, sum(delivered) AS delivered
      FROM orders GROUP BY 1, 2, 3, 4)
    SELECT json_object(
      'total', (SELECT coalesce(sum(n), 0) FROM g),
      'invalid', (SELECT coalesce(sum(invalid), 0) FROM g),
      'recipients', (SELECT coalesce(sum(recipients), 0) FROM g),
      'delivered', (SELECT coalesce(sum(delivered), 0) FROM g),
      'statuses', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT status AS v, sum(n) AS n FROM g GROUP BY 1))),
      'productTypes', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT product_type AS v, sum(n) AS n FROM g GROUP BY 1))),
      'envelopes', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT envelope AS v, sum(n) AS n FROM g GROUP BY 1))),
      'postages', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT postage AS v, sum(n) AS n FROM g GROUP BY 1))),
      'firstSeen', json((SELECT json_group_array(json_array(v, n)) FROM (SELECT first_seen_at AS v, count(*) AS n FROM order_first_seen GROUP BY 1))),
      'campaigns', json((SELECT json_group_array(json_array(campaign_id, coalesce(name, ''), recipients, delivered) ORDER BY delivered DESC, recipients DESC, campaign_id)
        FROM (SELECT * FROM order_campaigns ORDER BY delivered DESC, recipients DESC, campaign_id LIMIT 100))),
      'templates', json((SELECT json_group_array(json_array(template_id, coalesce(title, ''), orders, recipients) ORDER BY orders DESC, recipients DESC, template_id)
        FROM (SELECT * FROM order_templates ORDER BY orders DESC, recipients DESC, template_id LIMIT 100)))),
      strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    WHERE (SELECT last_synced_at FROM resource_state WHERE resource = 'orders') IS NOT NULL;
`,
};
