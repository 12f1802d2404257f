/**
 * Migration 1: the first cache schema (issue 4, DESIGN.md "Cache"; column names in docs/cache-schema.md).
 *
 * Visible snapshot: contacts, labels, contact_labels, contacts_fts, orders, order_recipients,
 * orders_fts. Staging (the sync writes pages here): stage_contacts, stage_orders,
 * stage_order_recipients. Bookkeeping: sync_runs, sync_state, sync_pages, resource_state.
 *
 * Append-only: never edit this file once released; add `002_*.ts` instead.
 */
import type { Migration } from './index.ts';

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

const FTS_OPTIONS = `content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'`;

export const migration: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE contacts (${CONTACT_COLUMNS},
  pos_name INTEGER, pos_company INTEGER, pos_email INTEGER, pos_phone INTEGER, pos_city INTEGER,
  pos_state INTEGER, pos_zip INTEGER, pos_labels INTEGER, pos_verified INTEGER);
CREATE INDEX contacts_pos_name ON contacts(pos_name);
CREATE INDEX contacts_pos_company ON contacts(pos_company);
CREATE INDEX contacts_pos_email ON contacts(pos_email);
CREATE INDEX contacts_pos_phone ON contacts(pos_phone);
CREATE INDEX contacts_pos_city ON contacts(pos_city);
CREATE INDEX contacts_pos_state ON contacts(pos_state);
CREATE INDEX contacts_pos_zip ON contacts(pos_zip);
CREATE INDEX contacts_pos_labels ON contacts(pos_labels);
CREATE INDEX contacts_pos_verified ON contacts(pos_verified);
CREATE INDEX contacts_state ON contacts(state);
CREATE INDEX contacts_created_at ON contacts(created_at);

CREATE TABLE labels (id TEXT NOT NULL PRIMARY KEY, title TEXT NOT NULL);
CREATE TABLE contact_labels (contact_id TEXT NOT NULL, label_id TEXT NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (contact_id, label_id)) WITHOUT ROWID;
CREATE INDEX contact_labels_label ON contact_labels(label_id, contact_id);

CREATE VIRTUAL TABLE contacts_fts USING fts5(name, company, email, phone, address, city, state, zip, labels, ${FTS_OPTIONS});

CREATE TABLE orders (${ORDER_COLUMNS},
  pos_id INTEGER, pos_campaign INTEGER, pos_product INTEGER, pos_template INTEGER, pos_status INTEGER,
  pos_recipients INTEGER, pos_delivered INTEGER, pos_live_mode INTEGER, pos_schedule_type INTEGER,
  pos_delivery_date INTEGER);
CREATE INDEX orders_pos_id ON orders(pos_id);
CREATE INDEX orders_pos_campaign ON orders(pos_campaign);
CREATE INDEX orders_pos_product ON orders(pos_product);
CREATE INDEX orders_pos_template ON orders(pos_template);
CREATE INDEX orders_pos_status ON orders(pos_status);
CREATE INDEX orders_pos_recipients ON orders(pos_recipients);
CREATE INDEX orders_pos_delivered ON orders(pos_delivered);
CREATE INDEX orders_pos_live_mode ON orders(pos_live_mode);
CREATE INDEX orders_pos_schedule_type ON orders(pos_schedule_type);
CREATE INDEX orders_pos_delivery_date ON orders(pos_delivery_date);

CREATE TABLE order_recipients (${RECIPIENT_COLUMNS}, PRIMARY KEY (order_id, id)) WITHOUT ROWID;
CREATE INDEX order_recipients_contact ON order_recipients(contact_id, order_id);

CREATE VIRTUAL TABLE orders_fts USING fts5(id, campaign, product, template, recipients, ${FTS_OPTIONS});

CREATE TABLE stage_contacts (${CONTACT_COLUMNS}, pass INTEGER NOT NULL);
CREATE TABLE stage_orders (${ORDER_COLUMNS}, pass INTEGER NOT NULL);
CREATE TABLE stage_order_recipients (${RECIPIENT_COLUMNS}, PRIMARY KEY (order_id, id)) WITHOUT ROWID;

CREATE TABLE sync_runs (
  run_id TEXT NOT NULL, resource TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT,
  outcome TEXT NOT NULL, rows INTEGER NOT NULL DEFAULT 0, invalid_records INTEGER NOT NULL DEFAULT 0,
  error_code TEXT, error_message TEXT, PRIMARY KEY (run_id, resource));
CREATE INDEX sync_runs_started ON sync_runs(started_at);

CREATE TABLE sync_state (
  resource TEXT NOT NULL PRIMARY KEY, run_id TEXT NOT NULL, page_size INTEGER NOT NULL,
  server_count INTEGER NOT NULL, pass INTEGER NOT NULL, account_id TEXT, updated_at TEXT NOT NULL);
CREATE TABLE sync_pages (
  resource TEXT NOT NULL, pass INTEGER NOT NULL, page INTEGER NOT NULL, rows INTEGER NOT NULL,
  server_count INTEGER NOT NULL, PRIMARY KEY (resource, pass, page)) WITHOUT ROWID;

CREATE TABLE resource_state (
  resource TEXT NOT NULL PRIMARY KEY, rows INTEGER NOT NULL DEFAULT 0, last_synced_at TEXT,
  last_error_code TEXT, last_error_message TEXT);
INSERT INTO resource_state(resource) VALUES ('contacts'), ('orders');
`,
};
