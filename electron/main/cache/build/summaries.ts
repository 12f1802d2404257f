/**
 * The templates and campaigns of the cached orders (shared/summaries.ts; docs/cache-schema.md
 * `order_templates`, `order_campaigns`), built from the new mirror each time a sync publishes the
 * orders (publish.ts) and published with it; read/summaries.ts lists and reads them.
 */
import type Database from 'better-sqlite3';

/** The template and campaign lists of the snapshot (built beside it as `_next`, published with it). */
export const SUMMARY_TABLES = ['order_templates', 'order_templates_fts', 'order_campaigns', 'order_campaigns_fts'] as const;

/** The groups of `orders` (or `orders_next`) by `key`: count and sums over each, and the rowid of its newest order. */
function groups(orders: string, key: string): string {
  return `(SELECT coalesce(${key}, '') AS k, min(rowid) AS newest, count(*) AS orders, sum(recipients) AS recipients, sum(delivered) AS delivered,
    max(campaign_delivery_date) AS last_delivery FROM ${orders} GROUP BY 1) g JOIN ${orders} o ON o.rowid = g.newest`;
}

/**
 * Fills `order_templates_next`, `order_campaigns_next` and their search indexes (created empty by
 * the build) from the new mirror `orders_next`: one row per `template.id` and per `campaign.id`,
 * described by the newest order of the group. Reads every order once per list.
 */
export function buildSummariesNext(db: Database.Database): void {
  db.exec(`INSERT INTO order_templates_next (template_id, title, template_type, template_url, thumbnail_url, creator_id, creator_name, orders, recipients, delivered, last_order_id, last_delivery_date)
    SELECT g.k, o.template_title, o.template_type, o.template_url, o.template_thumbnail_url, o.template_creator_id, o.template_creator_name,
      g.orders, g.recipients, g.delivered, o.id, g.last_delivery FROM ${groups('orders_next', 'template_id')}`);
  db.exec(`INSERT INTO order_templates_fts_next (rowid, id, title, kind, creator)
    SELECT rowid, template_id, title, template_type, creator_name FROM order_templates_next`);
  db.exec(`INSERT INTO order_campaigns_next (campaign_id, name, description, campaign_type, schedule_type, use_type, orders, recipients, delivered, last_order_id, last_delivery_date)
    SELECT g.k, o.campaign_name, o.campaign_description, o.campaign_type, o.campaign_schedule_type, o.campaign_use_type,
      g.orders, g.recipients, g.delivered, o.id, g.last_delivery FROM ${groups('orders_next', 'campaign_id')}`);
  db.exec(`INSERT INTO order_campaigns_fts_next (rowid, id, name, description, kind)
    SELECT rowid, campaign_id, name, description, concat_ws(' ', campaign_type, schedule_type, use_type) FROM order_campaigns_next`);
}
