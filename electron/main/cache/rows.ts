/**
 * What every read of the cache shares: prepared statements cached per connection, one read
 * transaction per call, and the mapping of table rows to the row shapes of shared/query.ts.
 */
import type Database from 'better-sqlite3';
import type { ContactRow, OrderRow, RecipientRow } from '../../../shared/query.ts';

const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** The prepared statement of `sql` on `db`, prepared once (a few hundred are kept per connection). */
export function stmt(db: Database.Database, sql: string): Database.Statement {
  let map = statementCache.get(db);
  if (!map) {
    map = new Map();
    statementCache.set(db, map);
  }
  let s = map.get(sql);
  if (!s) {
    s = db.prepare(sql);
    if (map.size > 500) map.clear();
    map.set(sql, s);
  }
  return s;
}

/** Runs `fn` inside one read transaction (or the caller's), so all it reads is one snapshot. */
export function read<T>(db: Database.Database, fn: () => T): T {
  return db.inTransaction ? fn() : db.transaction(fn).deferred();
}

/** The columns a {@link ContactRow} is made from (alias `c`). */
export const CONTACT_ROW_COLUMNS =
  'c.id, c.full_name, c.first_name, c.last_name, c.company_name, c.email, c.phone_no, c.extension, c.city, c.state, c.zip, c.labels, c.is_verified, c.is_live_mode, c.created_at';
/** The columns an {@link OrderRow} is made from (alias `o`). */
export const ORDER_ROW_COLUMNS =
  'o.id, o.status, o.is_live_mode, o.campaign_name, o.campaign_type, o.campaign_schedule_type, o.campaign_delivery_date, o.product_name, o.product_type, o.template_title, o.recipients, o.delivered';

/** A row as better-sqlite3 returns it. */
export type Row = Record<string, unknown>;
/** Text of a column, '' for NULL. */
export const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const boolOrNull = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === 1);

export function toContactRow(r: Row): ContactRow {
  let labels: string[];
  try {
    labels = JSON.parse(str(r.labels) || '[]') as string[];
  } catch {
    labels = [];
  }
  return {
    id: str(r.id), fullName: str(r.full_name), firstName: str(r.first_name), lastName: str(r.last_name), companyName: str(r.company_name),
    email: str(r.email), phoneNo: str(r.phone_no), extension: str(r.extension), city: str(r.city), state: str(r.state), zip: str(r.zip),
    labels, isVerified: boolOrNull(r.is_verified), isLiveMode: r.is_live_mode === 1, createdAt: str(r.created_at),
  };
}

export function toOrderRow(r: Row): OrderRow {
  return {
    id: str(r.id), status: typeof r.status === 'number' ? r.status : 0, isLiveMode: r.is_live_mode === 1, campaignName: str(r.campaign_name),
    campaignType: str(r.campaign_type), scheduleType: str(r.campaign_schedule_type),
    deliveryDate: r.campaign_delivery_date === null || r.campaign_delivery_date === undefined ? null : str(r.campaign_delivery_date),
    productName: str(r.product_name), productType: str(r.product_type), templateTitle: str(r.template_title),
    recipients: Number(r.recipients ?? 0), delivered: Number(r.delivered ?? 0),
  };
}

export function toRecipientRow(r: Row): RecipientRow {
  return {
    id: str(r.id), orderId: str(r.order_id), contactId: str(r.contact_id), fullName: str(r.full_name), companyName: str(r.company_name),
    email: str(r.email), phoneNo: str(r.phone_no), address1: str(r.address1), address2: str(r.address2), city: str(r.city), zip: str(r.zip),
    trackingCode: r.tracking_code === null || r.tracking_code === undefined ? null : str(r.tracking_code), isDelivered: r.is_delivered === 1,
    status: r.status === null || r.status === undefined ? null : str(r.status),
  };
}
