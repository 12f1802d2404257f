/**
 * Migration 5: saved views and the memberships of their service queries (DESIGN.md "Views";
 * columns in docs/cache-schema.md). Nothing that exists changes.
 *
 *  - `saved_views`: one row per view (resource, name unique per resource without regard to case
 *    through `name_key`, the service query and the local settings as JSON, the last refresh error).
 *  - `view_memberships`: the published membership of a view: which `member_key` holds it, the
 *    request that read it, when, and its counts. The member data below is keyed by `member_key`, a
 *    number taken from `view_sequence` for each read (never reused), so a new membership is written
 *    beside the one readers see and made visible by changing one row; a duplicated view shares it.
 *  - `view_members`: the ids the service returned, in its order; `view_contact_rows` /
 *    `view_order_rows`: the rowids in the mirror of those the mirror holds, with their positions
 *    among the members in each sort (rebuilt with the mirror);
 *    `view_contacts_fts` / `view_orders_fts`: the mirror's search index restricted to them, rowid =
 *    member_key · 2^32 + the mirror's rowid (contentless, rows deletable);
 *  - `view_newer_*`: the members the mirror did not hold when they were read, as the service
 *    returned them (columns as the mirror's, positions between the mirror's rows), with their own
 *    search index;
 *  - `view_refresh_state`, `view_stage`, `view_stage_pages`: a refresh being read (its run, its
 *    pages), continued only by the same run.
 *
 * Append-only: never edit this file once released.
 */
import type { Migration } from './index.ts';

const FTS_OPTIONS = `tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'`;

const CONTACT_COLUMNS = `
  id TEXT NOT NULL,
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
  id TEXT NOT NULL,
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

export const migration: Migration = {
  version: 5,
  name: 'saved_views',
  sql: `
CREATE TABLE saved_views (
  id TEXT NOT NULL PRIMARY KEY,
  resource TEXT NOT NULL CHECK (resource IN ('contacts', 'orders')),
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  service_query TEXT CHECK (service_query IS NULL OR json_type(service_query) = 'object'),
  settings TEXT NOT NULL DEFAULT '{}' CHECK (json_type(settings) = 'object'),
  refresh_after_sync INTEGER NOT NULL DEFAULT 1 CHECK (refresh_after_sync IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  error_code TEXT,
  error_message TEXT,
  error_at TEXT,
  UNIQUE (resource, name_key)
);

CREATE TABLE view_sequence (next_key INTEGER NOT NULL);
INSERT INTO view_sequence (next_key) VALUES (1);

CREATE TABLE view_memberships (
  view_id TEXT NOT NULL PRIMARY KEY,
  member_key INTEGER NOT NULL,
  request TEXT NOT NULL,
  read_at TEXT NOT NULL,
  server_count INTEGER NOT NULL,
  in_mirror INTEGER NOT NULL,
  newer INTEGER NOT NULL
);
CREATE INDEX view_memberships_key ON view_memberships(member_key);

CREATE TABLE view_members (member_key INTEGER NOT NULL, position INTEGER NOT NULL, id TEXT NOT NULL,
  PRIMARY KEY (member_key, position)) WITHOUT ROWID;
CREATE TABLE view_contact_rows (member_key INTEGER NOT NULL, row INTEGER NOT NULL,
  pos_row INTEGER NOT NULL, pos_name INTEGER NOT NULL, pos_company INTEGER NOT NULL, pos_email INTEGER NOT NULL, pos_phone INTEGER NOT NULL,
  pos_city INTEGER NOT NULL, pos_state INTEGER NOT NULL, pos_zip INTEGER NOT NULL, pos_labels INTEGER NOT NULL, pos_verified INTEGER NOT NULL,
  PRIMARY KEY (member_key, row)) WITHOUT ROWID;
${['row', 'name', 'company', 'email', 'phone', 'city', 'state', 'zip', 'labels', 'verified'].map((c) => `CREATE INDEX view_contact_rows_${c} ON view_contact_rows(member_key, pos_${c});`).join('\n')}
CREATE TABLE view_order_rows (member_key INTEGER NOT NULL, row INTEGER NOT NULL,
  pos_row INTEGER NOT NULL, pos_campaign INTEGER NOT NULL, pos_product INTEGER NOT NULL, pos_template INTEGER NOT NULL, pos_status INTEGER NOT NULL,
  pos_recipients INTEGER NOT NULL, pos_delivered INTEGER NOT NULL, pos_live_mode INTEGER NOT NULL, pos_schedule_type INTEGER NOT NULL, pos_delivery_date INTEGER NOT NULL,
  PRIMARY KEY (member_key, row)) WITHOUT ROWID;
${['row', 'campaign', 'product', 'template', 'status', 'recipients', 'delivered', 'live_mode', 'schedule_type', 'delivery_date'].map((c) => `CREATE INDEX view_order_rows_${c} ON view_order_rows(member_key, pos_${c});`).join('\n')}
CREATE VIRTUAL TABLE view_contacts_fts USING fts5(name, company, email, phone, address, city, state, zip, labels, f,
  content='', contentless_delete=1, ${FTS_OPTIONS});
CREATE VIRTUAL TABLE view_orders_fts USING fts5(id, campaign, product, template, recipients,
  content='', contentless_delete=1, ${FTS_OPTIONS});

CREATE TABLE view_newer_contacts (member_key INTEGER NOT NULL, ${CONTACT_COLUMNS},
  row_key REAL NOT NULL,
  pos_name REAL, pos_company REAL, pos_email REAL, pos_phone REAL, pos_city REAL,
  pos_state REAL, pos_zip REAL, pos_labels REAL, pos_verified REAL,
  UNIQUE (member_key, id));
CREATE INDEX view_newer_contacts_id ON view_newer_contacts(id);
CREATE VIRTUAL TABLE view_newer_contacts_fts USING fts5(name, company, email, phone, address, city, state, zip, labels, f, ${FTS_OPTIONS});

CREATE TABLE view_newer_orders (member_key INTEGER NOT NULL, ${ORDER_COLUMNS},
  row_key REAL NOT NULL,
  pos_id REAL, pos_campaign REAL, pos_product REAL, pos_template REAL, pos_status REAL,
  pos_recipients REAL, pos_delivered REAL, pos_live_mode REAL, pos_schedule_type REAL,
  pos_delivery_date REAL,
  UNIQUE (member_key, id));
CREATE INDEX view_newer_orders_id ON view_newer_orders(id);
CREATE TABLE view_newer_order_recipients (member_key INTEGER NOT NULL, ${RECIPIENT_COLUMNS},
  PRIMARY KEY (member_key, order_id, id)) WITHOUT ROWID;
CREATE INDEX view_newer_order_recipients_contact ON view_newer_order_recipients(contact_id, member_key, order_id);
CREATE VIRTUAL TABLE view_newer_orders_fts USING fts5(id, campaign, product, template, recipients, ${FTS_OPTIONS});

CREATE TABLE view_refresh_state (
  view_id TEXT NOT NULL PRIMARY KEY,
  run_id TEXT NOT NULL,
  member_key INTEGER NOT NULL,
  query TEXT NOT NULL,
  account_id TEXT,
  page_size INTEGER NOT NULL,
  server_count INTEGER NOT NULL,
  pass INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE view_stage (view_id TEXT NOT NULL, id TEXT NOT NULL, pass INTEGER NOT NULL, position INTEGER NOT NULL,
  raw TEXT, invalid_reason TEXT, PRIMARY KEY (view_id, id)) WITHOUT ROWID;
CREATE TABLE view_stage_pages (view_id TEXT NOT NULL, pass INTEGER NOT NULL, page INTEGER NOT NULL, rows INTEGER NOT NULL,
  server_count INTEGER NOT NULL, PRIMARY KEY (view_id, pass, page)) WITHOUT ROWID;
`,
};
