/**
 * Migration 6: what changed in the last sync, records kept as invalid, and the templates and
 * campaigns of the cached orders (docs/cache-schema.md). The cached records stay as they are.
 *
 *  - `contact_changes` / `order_changes`: the ids the last sync of each resource added, changed
 *    (raw JSON differs) or removed, compared with the copy it replaced; `removed_contacts`,
 *    `removed_orders`, `removed_order_recipients`: the last cached copy of each removed record,
 *    with search indexes of their own (`removed_contacts_fts`, `removed_orders_fts`). All are part
 *    of the visible snapshot: each sync that publishes a resource replaces them. Empty here: the
 *    next sync fills them.
 *  - `sync_runs` gains `added`, `changed`, `removed` (NULL for runs recorded before, and for runs
 *    that did not publish or had nothing to compare with).
 *  - `contacts_invalid`, `orders_invalid`: partial indexes of the records kept as invalid, so that
 *    they are counted and filtered without reading every row.
 *  - `orders_template`, `orders_campaign`: indexes for a template's or a campaign's orders.
 *  - `order_templates`, `order_campaigns` (with `_fts` search indexes): the orders grouped by
 *    `template.id` and by `campaign.id`, described by each group's newest order; filled here from
 *    the cached orders (one pass over them), rebuilt by every sync of orders.
 *
 * Append-only: never edit this file once released. The summaries' SQL is a frozen copy of what
 * cache/read/summaries.ts builds when this migration was added.
 */
import type { Migration } from './index.ts';

const FTS_OPTIONS = `content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'`;

const CONTACT_COLUMNS = `
  id TEXT NOT NULL PRIMARY KEY,
  first_name TEXT, last_name TEXT, full_name TEXT, company_name TEXT,
  address1 TEXT, address2 TEXT, city TEXT, state TEXT, zip TEXT,
  phone_no TEXT, extension TEXT, website_url TEXT, org_id TEXT, email TEXT,
  is_verified INTEGER, is_live_mode INTEGER, created_at TEXT,
  labels TEXT NOT NULL DEFAULT '[]',
  label_list TEXT NOT NULL DEFAULT '[]',
  phone_digits TEXT NOT NULL DEFAULT '',
  raw TEXT NOT NULL,
  invalid_reason TEXT`;

const ORDER_COLUMNS = `
  id TEXT NOT NULL PRIMARY KEY,
  org_id TEXT, file_url TEXT, status INTEGER, is_live_mode INTEGER,
  meta TEXT, merge_variables TEXT,
  campaign_id TEXT, campaign_name TEXT, campaign_description TEXT, campaign_schedule_type TEXT,
  campaign_use_type TEXT, campaign_delivery_date TEXT, campaign_type TEXT,
  product_id TEXT, product_name TEXT, product_type TEXT, product_paper_type TEXT, product_paper_size TEXT,
  product_delivery_type TEXT, product_envelope_type TEXT, product_postage_type TEXT, product_meta TEXT,
  template_id TEXT, template_title TEXT, template_url TEXT, template_type TEXT, template_thumbnail_url TEXT,
  template_creator_id TEXT, template_creator_name TEXT,
  recipients INTEGER NOT NULL DEFAULT 0,
  delivered INTEGER NOT NULL DEFAULT 0,
  raw TEXT NOT NULL,
  invalid_reason TEXT`;

const RECIPIENT_COLUMNS = `
  order_id TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL,
  contact_id TEXT, first_name TEXT, last_name TEXT, full_name TEXT, company_name TEXT, email TEXT,
  phone_no TEXT, address1 TEXT, address2 TEXT, city TEXT, zip TEXT, website_url TEXT,
  tracking_code TEXT, is_delivered INTEGER, status TEXT, meta TEXT`;

const CHANGE = `change TEXT NOT NULL CHECK (change IN ('added', 'changed', 'removed'))`;

export const migration: Migration = {
  version: 6,
  name: 'changes_and_summaries',
  sql: `
CREATE TABLE contact_changes (id TEXT NOT NULL PRIMARY KEY, ${CHANGE}) WITHOUT ROWID;
CREATE TABLE order_changes (id TEXT NOT NULL PRIMARY KEY, ${CHANGE}) WITHOUT ROWID;

CREATE TABLE removed_contacts (${CONTACT_COLUMNS});
CREATE VIRTUAL TABLE removed_contacts_fts USING fts5(name, company, email, phone, address, city, state, zip, labels, f, ${FTS_OPTIONS});
CREATE TABLE removed_orders (${ORDER_COLUMNS});
CREATE TABLE removed_order_recipients (${RECIPIENT_COLUMNS}, PRIMARY KEY (order_id, id)) WITHOUT ROWID;
CREATE INDEX removed_order_recipients_contact ON removed_order_recipients(contact_id, order_id);
CREATE VIRTUAL TABLE removed_orders_fts USING fts5(id, campaign, product, template, recipients, ${FTS_OPTIONS});

ALTER TABLE sync_runs ADD COLUMN added INTEGER;
ALTER TABLE sync_runs ADD COLUMN changed INTEGER;
ALTER TABLE sync_runs ADD COLUMN removed INTEGER;

CREATE INDEX contacts_invalid ON contacts(id) WHERE invalid_reason IS NOT NULL;
CREATE INDEX orders_invalid ON orders(id) WHERE invalid_reason IS NOT NULL;
CREATE INDEX orders_template ON orders(template_id);
CREATE INDEX orders_campaign ON orders(campaign_id);

CREATE TABLE order_templates (
  template_id TEXT NOT NULL PRIMARY KEY,
  title TEXT, template_type TEXT, template_url TEXT, thumbnail_url TEXT, creator_id TEXT, creator_name TEXT,
  orders INTEGER NOT NULL, recipients INTEGER NOT NULL, delivered INTEGER NOT NULL,
  last_order_id TEXT NOT NULL, last_delivery_date TEXT);
CREATE VIRTUAL TABLE order_templates_fts USING fts5(id, title, kind, creator, ${FTS_OPTIONS});
CREATE TABLE order_campaigns (
  campaign_id TEXT NOT NULL PRIMARY KEY,
  name TEXT, description TEXT, campaign_type TEXT, schedule_type TEXT, use_type TEXT,
  orders INTEGER NOT NULL, recipients INTEGER NOT NULL, delivered INTEGER NOT NULL,
  last_order_id TEXT NOT NULL, last_delivery_date TEXT);
CREATE VIRTUAL TABLE order_campaigns_fts USING fts5(id, name, description, kind, ${FTS_OPTIONS});

INSERT INTO order_templates (template_id, title, template_type, template_url, thumbnail_url, creator_id, creator_name, orders, recipients, delivered, last_order_id, last_delivery_date)
  SELECT g.k, o.template_title, o.template_type, o.template_url, o.template_thumbnail_url, o.template_creator_id, o.template_creator_name,
    g.orders, g.recipients, g.delivered, o.id, g.last_delivery
  FROM (SELECT coalesce(template_id, '') AS k, min(rowid) AS newest, count(*) AS orders, sum(recipients) AS recipients, sum(delivered) AS delivered,
      max(campaign_delivery_date) AS last_delivery FROM orders GROUP BY 1) g
  JOIN orders o ON o.rowid = g.newest;
INSERT INTO order_templates_fts (rowid, id, title, kind, creator) SELECT rowid, template_id, title, template_type, creator_name FROM order_templates;
INSERT INTO order_campaigns (campaign_id, name, description, campaign_type, schedule_type, use_type, orders, recipients, delivered, last_order_id, last_delivery_date)
  SELECT g.k, o.campaign_name, o.campaign_description, o.campaign_type, o.campaign_schedule_type, o.campaign_use_type,
    g.orders, g.recipients, g.delivered, o.id, g.last_delivery
  FROM (SELECT coalesce(campaign_id, '') AS k, min(rowid) AS newest, count(*) AS orders, sum(recipients) AS recipients, sum(delivered) AS delivered,
      max(campaign_delivery_date) AS last_delivery FROM orders GROUP BY 1) g
  JOIN orders o ON o.rowid = g.newest;
INSERT INTO order_campaigns_fts (rowid, id, name, description, kind)
  SELECT rowid, campaign_id, name, description, concat_ws(' ', campaign_type, schedule_type, use_type) FROM order_campaigns;
`,
};
