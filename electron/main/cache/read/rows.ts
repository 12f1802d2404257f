/**
 * What every read of the cache shares: prepared statements cached per connection, one read
 * transaction per call, and the mapping of table rows to the row shapes of shared/query.ts.
 */
import type Database from 'better-sqlite3';
import { firstSeenColumn, mailingRowColumns } from './mailing.ts';
import { inDuplicateGroup } from './duplicates.ts';
import { DEFAULT_DUPLICATE_LEVEL } from '../../../../shared/duplicates.ts';
import { ADDRESS_FIELDS, SNAPSHOT_FIELDS, type ContactRow, type OrderRow, type RecipientRow, type RecordChange, type SnapshotField } from '../../../../shared/query.ts';

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

/**
 * The columns a {@link ContactRow} is made from (alias `c`): its change (build/changes.ts) and its
 * mailings (read/mailing.ts) are looked up by id.
 */
export const CONTACT_ROW_COLUMNS =
  'c.id, c.full_name, c.first_name, c.last_name, c.company_name, c.email, c.phone_no, c.extension, c.address1, c.address2, c.city, c.state, c.zip, c.labels, ' +
  `c.is_verified, c.is_live_mode, c.created_at, c.invalid_reason, (SELECT ch.change FROM contact_changes ch WHERE ch.id = c.id) AS change, ${mailingRowColumns('c')}, ` +
  `${inDuplicateGroup('c', `'${DEFAULT_DUPLICATE_LEVEL}'`)} AS possible_duplicate`;
/** The columns an {@link OrderRow} is made from (alias `o`). */
export const ORDER_ROW_COLUMNS =
  'o.id, o.status, o.is_live_mode, o.campaign_name, o.campaign_type, o.campaign_schedule_type, o.campaign_delivery_date, o.product_name, o.product_type, o.template_title, o.recipients, o.delivered, ' +
  `o.invalid_reason, (SELECT ch.change FROM order_changes ch WHERE ch.id = o.id) AS change, ${firstSeenColumn('o')}`;

/** The contacts table's column of each snapshot field (§2.3 OrderContact.contact names the §2.2 fields). */
const SNAPSHOT_COLUMN: Record<SnapshotField, string> = {
  firstName: 'first_name', lastName: 'last_name', fullName: 'full_name', companyName: 'company_name', email: 'email', phoneNo: 'phone_no',
  address1: 'address1', address2: 'address2', city: 'city', zip: 'zip', websiteUrl: 'website_url',
};

/**
 * The current fields of a recipient's contact, next to the snapshot (alias `r`): the contact row
 * joined as alias `k` (`LEFT JOIN contacts k ON k.id = r.contact_id`), its columns as `k_<column>`.
 */
export const RECIPIENT_CONTACT_COLUMNS = ['k.id AS k_id', ...SNAPSHOT_FIELDS.map((f) => `k.${SNAPSHOT_COLUMN[f]} AS k_${SNAPSHOT_COLUMN[f]}`)].join(', ');

/** A row as better-sqlite3 returns it. */
export type Row = Record<string, unknown>;
/** Text of a column, '' for NULL. */
export const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const boolOrNull = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === 1);
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const changeOf = (v: unknown): RecordChange | null => (v === 'added' || v === 'changed' || v === 'removed' ? v : null);

export function toContactRow(r: Row): ContactRow {
  let labels: string[];
  try {
    labels = JSON.parse(str(r.labels) || '[]') as string[];
  } catch {
    labels = [];
  }
  return {
    id: str(r.id), fullName: str(r.full_name), firstName: str(r.first_name), lastName: str(r.last_name), companyName: str(r.company_name),
    email: str(r.email), phoneNo: str(r.phone_no), extension: str(r.extension), address1: str(r.address1), address2: str(r.address2),
    city: str(r.city), state: str(r.state), zip: str(r.zip),
    labels, isVerified: boolOrNull(r.is_verified), isLiveMode: r.is_live_mode === 1, createdAt: str(r.created_at),
    invalidReason: textOrNull(r.invalid_reason), change: changeOf(r.change),
    timesMailed: Number(r.times_mailed ?? 0), deliveredCount: Number(r.mailed_delivered ?? 0), lastOrderSeenAt: textOrNull(r.last_order_seen_at),
    possibleDuplicate: r.possible_duplicate === 1,
  };
}

export function toOrderRow(r: Row): OrderRow {
  return {
    id: str(r.id), status: typeof r.status === 'number' ? r.status : 0, isLiveMode: r.is_live_mode === 1, campaignName: str(r.campaign_name),
    campaignType: str(r.campaign_type), scheduleType: str(r.campaign_schedule_type),
    deliveryDate: r.campaign_delivery_date === null || r.campaign_delivery_date === undefined ? null : str(r.campaign_delivery_date),
    productName: str(r.product_name), productType: str(r.product_type), templateTitle: str(r.template_title),
    recipients: Number(r.recipients ?? 0), delivered: Number(r.delivered ?? 0),
    invalidReason: textOrNull(r.invalid_reason), change: changeOf(r.change), firstSeenAt: textOrNull(r.first_seen_at),
  };
}

/** A field's value as compared: trimmed, runs of blanks as one, case folded; missing as ''. */
const comparable = (v: unknown): string => str(v).normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();

/**
 * A recipient row (alias `r`, with {@link RECIPIENT_CONTACT_COLUMNS} when its contact was joined):
 * the snapshot, and which of its fields differ from the contact's current ones.
 */
export function toRecipientRow(r: Row): RecipientRow {
  const contactInCache = r.k_id !== null && r.k_id !== undefined;
  const changedSinceOrder = contactInCache ? SNAPSHOT_FIELDS.filter((f) => comparable(r[SNAPSHOT_COLUMN[f]]) !== comparable(r[`k_${SNAPSHOT_COLUMN[f]}`])) : [];
  return {
    id: str(r.id), orderId: str(r.order_id), contactId: str(r.contact_id), firstName: str(r.first_name), lastName: str(r.last_name), fullName: str(r.full_name),
    companyName: str(r.company_name), email: str(r.email), phoneNo: str(r.phone_no), address1: str(r.address1), address2: str(r.address2), city: str(r.city),
    zip: str(r.zip), trackingCode: textOrNull(r.tracking_code), isDelivered: r.is_delivered === 1, status: textOrNull(r.status), websiteUrl: str(r.website_url),
    contactInCache, changedSinceOrder, addressChanged: changedSinceOrder.some((f) => (ADDRESS_FIELDS as readonly string[]).includes(f)),
  };
}
