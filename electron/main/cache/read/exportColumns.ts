/**
 * The columns of the CSV exports: key, readable header and the SQL expression that reads the cell
 * from the cache tables (docs/cache-schema.md; aliases `c` = contacts, `o` = orders,
 * `r` = order_recipients, `t` = order_templates, `cm` = order_campaigns). They live with the cache
 * because they are SQL; exportRows.ts reads them.
 *
 * Keys are the service's field names (§2.2, §2.3) where one exists, so `--columns id,email,city`
 * reads naturally next to the API documentation. Booleans come out as `true` / `false` (empty when
 * the service sent null); JSON values (`meta`, `mergeVariables`) as compact JSON text; labels as
 * their titles joined by {@link LABEL_SEPARATOR} in the service's order. The default set
 * (`columns: null`) is every column but the opt-in ones: `raw`, the record as cached.
 */
import type { AnyExportKind, ExportColumn } from '../../../../shared/contract.ts';
import { LetterdeskError } from '../../../../shared/errors.ts';
import type { StatusNames } from '../../../../shared/statusNames.ts';
import { deliveredCount, firstSeenAt, mailingValue, timesMailed } from './mailing.ts';

/**
 * How the cell is typed. In CSV, `number` cells are never formula-neutralised (export/csv.ts) and
 * `date` cells are the service's text; in xlsx (export/xlsx.ts) each type is its own kind of cell.
 */
export type ExportCellType = 'text' | 'number' | 'boolean' | 'date';

/** What a column's SQL may depend on besides the tables: the export request's status names. */
export interface ColumnContext {
  /** Status code → name (the export request's `statusNames`; empty: every code reads "Status N"). */
  statusNames: StatusNames;
  /** The export's bound parameters; a column may add its own (named `__<key>…`). */
  params: Record<string, unknown>;
}

/** One export column: what the UI/CLI shows ({@link ExportColumn}) plus how to read it. */
export interface ExportColumnDef extends ExportColumn {
  /** SQL expression over the aliased cache tables, or one made for the request ({@link ColumnContext}). */
  sql: string | ((context: ColumnContext) => string);
  type: ExportCellType;
}

/** Between the label titles of a contact in the `labels` column. */
export const LABEL_SEPARATOR = '; ';

const bool = (expr: string): string => `CASE ${expr} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END`;
const text = (key: string, header: string, sql: string): ExportColumnDef => ({ key, header, sql, type: 'text', inDefault: true });
const flag = (key: string, header: string, expr: string): ExportColumnDef => ({ key, header, sql: bool(expr), type: 'boolean', inDefault: true });
const num = (key: string, header: string, sql: string): ExportColumnDef => ({ key, header, sql, type: 'number', inDefault: true });
/** A timestamp or day as the service or the cache has it (ISO 8601 text). */
const date = (key: string, header: string, sql: string): ExportColumnDef => ({ key, header, sql, type: 'date', inDefault: true });
/** The record as cached: opt-in (a wide cell; the CSV's other columns already hold its §2 fields). */
const raw = (sql: string): ExportColumnDef => ({ key: 'raw', header: 'Raw JSON', sql, type: 'text', inDefault: false });
/** How the record changed in the last sync of its resource (docs/cache-schema.md "What changed"). */
const change = (alias: string, table: string): ExportColumnDef => text('change', 'Change in the last sync', `(SELECT ch.change FROM ${table} ch WHERE ch.id = ${alias}.id)`);

/**
 * SQL of the name `names` gives the status code `expr` (code → name), else `otherwise`. Each named
 * code is two bound parameters of `params` (`__status<i>`, `__statusName<i>`), so names are never SQL.
 */
export function statusCaseSql(expr: string, names: Readonly<Record<string, string>>, params: Record<string, unknown>, otherwise: string): string {
  const whens = Object.entries(names)
    .filter(([code]) => /^-?\d+$/.test(code))
    .map(([code, name], i) => {
      params[`__status${i}`] = Number(code);
      params[`__statusName${i}`] = name;
      return `WHEN :__status${i} THEN :__statusName${i}`;
    });
  return whens.length === 0 ? otherwise : `CASE ${expr} ${whens.join(' ')} ELSE ${otherwise} END`;
}

/** The status name of the status code `expr`: the request's name for it, else "Status N" (empty when there is no code). */
function statusNameSql(expr: string, { statusNames, params }: ColumnContext): string {
  const names = Object.fromEntries(Object.entries(statusNames).map(([code, named]) => [code, named.name]));
  return statusCaseSql(expr, names, params, `'Status ' || ${expr}`);
}
const statusName = (key: string, header: string, expr: string): ExportColumnDef => ({ key, header, sql: (context) => statusNameSql(expr, context), type: 'text', inDefault: true });

/** §2.2: every contact field, labels joined in one column. */
const CONTACT_COLUMNS: readonly ExportColumnDef[] = [
  text('id', 'Contact ID', 'c.id'),
  text('firstName', 'First name', 'c.first_name'),
  text('lastName', 'Last name', 'c.last_name'),
  text('fullName', 'Full name', 'c.full_name'),
  text('companyName', 'Company', 'c.company_name'),
  text('address1', 'Address', 'c.address1'),
  text('address2', 'Line 2', 'c.address2'),
  text('city', 'City', 'c.city'),
  text('state', 'State', 'c.state'),
  text('zip', 'ZIP', 'c.zip'),
  text('phoneNo', 'Phone', 'c.phone_no'),
  text('extension', 'Extension', 'c.extension'),
  text('websiteUrl', 'Website', 'c.website_url'),
  text('orgId', 'Organisation ID', 'c.org_id'),
  text('email', 'Email', 'c.email'),
  flag('isVerified', 'Verified', 'c.is_verified'),
  flag('isLiveMode', 'Live mode', 'c.is_live_mode'),
  text(
    'labels',
    'Labels',
    `CASE WHEN c.labels = '[]' THEN '' ELSE (SELECT group_concat(j.value, '${LABEL_SEPARATOR}') FROM json_each(c.labels) j) END`,
  ),
  date('createdAt', 'Created at (UTC)', 'c.created_at'),
  text('invalidReason', 'Kept as invalid because', 'c.invalid_reason'),
  change('c', 'contact_changes'),
  num('timesMailed', 'Times mailed', timesMailed('c')),
  num('deliveredCount', 'Delivered', deliveredCount('c')),
  date('lastOrderSeenAt', 'Last order first seen (UTC)', mailingValue('c', 'last_order_seen_at')),
  raw('c.raw'),
];

/** §2.3: one row per order. */
const ORDER_COLUMNS: readonly ExportColumnDef[] = [
  text('id', 'Order ID', 'o.id'),
  num('status', 'Status', 'o.status'),
  statusName('statusName', 'Status name', 'o.status'),
  flag('isLiveMode', 'Live mode', 'o.is_live_mode'),
  text('campaignId', 'Campaign ID', 'o.campaign_id'),
  text('campaignName', 'Campaign', 'o.campaign_name'),
  text('campaignDescription', 'Campaign description', 'o.campaign_description'),
  text('campaignType', 'Campaign type', 'o.campaign_type'),
  text('scheduleType', 'Schedule type', 'o.campaign_schedule_type'),
  text('useType', 'Use type', 'o.campaign_use_type'),
  date('deliveryDate', 'Delivery date', 'o.campaign_delivery_date'),
  text('productId', 'Product ID', 'o.product_id'),
  text('productName', 'Product', 'o.product_name'),
  text('productType', 'Product type', 'o.product_type'),
  text('paperType', 'Paper type', 'o.product_paper_type'),
  text('paperSize', 'Paper size', 'o.product_paper_size'),
  text('deliveryType', 'Delivery type', 'o.product_delivery_type'),
  text('envelopeType', 'Envelope type', 'o.product_envelope_type'),
  text('postageType', 'Postage type', 'o.product_postage_type'),
  text('productMeta', 'Product meta (JSON)', 'o.product_meta'),
  text('templateId', 'Template ID', 'o.template_id'),
  text('templateTitle', 'Template', 'o.template_title'),
  text('templateType', 'Template type', 'o.template_type'),
  text('templateUrl', 'Template URL', 'o.template_url'),
  text('thumbnailUrl', 'Thumbnail URL', 'o.template_thumbnail_url'),
  text('templateCreatorId', 'Template creator ID', 'o.template_creator_id'),
  text('templateCreatorName', 'Template creator', 'o.template_creator_name'),
  num('recipients', 'Recipients', 'o.recipients'),
  num('delivered', 'Delivered', 'o.delivered'),
  text('meta', 'Meta (JSON)', 'o.meta'),
  text('orgId', 'Organisation ID', 'o.org_id'),
  text('fileUrl', 'File URL', 'o.file_url'),
  text('mergeVariables', 'Merge variables (JSON)', 'o.merge_variables'),
  text('invalidReason', 'Kept as invalid because', 'o.invalid_reason'),
  change('o', 'order_changes'),
  date('firstSeenAt', 'First seen (UTC)', firstSeenAt('o')),
  raw('o.raw'),
];

/** §2.3 OrderContact: one row per order recipient. */
const RECIPIENT_COLUMNS: readonly ExportColumnDef[] = [
  text('orderId', 'Order ID', 'r.order_id'),
  num('orderStatus', 'Order status', 'o.status'),
  statusName('orderStatusName', 'Order status name', 'o.status'),
  text('campaignName', 'Campaign', 'o.campaign_name'),
  text('id', 'Recipient entry ID', 'r.id'),
  text('contactId', 'Contact ID', 'r.contact_id'),
  text('firstName', 'First name', 'r.first_name'),
  text('lastName', 'Last name', 'r.last_name'),
  text('fullName', 'Full name', 'r.full_name'),
  text('companyName', 'Company', 'r.company_name'),
  text('email', 'Email', 'r.email'),
  text('phoneNo', 'Phone', 'r.phone_no'),
  text('address1', 'Address', 'r.address1'),
  text('address2', 'Line 2', 'r.address2'),
  text('city', 'City', 'r.city'),
  text('zip', 'ZIP', 'r.zip'),
  text('websiteUrl', 'Website', 'r.website_url'),
  text('trackingCode', 'Tracking code', 'r.tracking_code'),
  flag('isDelivered', 'Delivered', 'r.is_delivered'),
  text('status', 'Status', 'r.status'),
  text('meta', 'Meta (JSON)', 'r.meta'),
  // The entry as the order's cached JSON holds it (its position there is the recipient's).
  raw("o.raw -> ('$.contacts[' || r.position || ']')"),
];

/** The templates of the cached orders (summaries.ts). */
const TEMPLATE_COLUMNS: readonly ExportColumnDef[] = [
  text('id', 'Template ID', 't.template_id'),
  text('title', 'Template', 't.title'),
  text('templateType', 'Template type', 't.template_type'),
  text('templateUrl', 'Template URL', 't.template_url'),
  text('thumbnailUrl', 'Thumbnail URL', 't.thumbnail_url'),
  text('creatorId', 'Creator ID', 't.creator_id'),
  text('creatorName', 'Creator', 't.creator_name'),
  num('orders', 'Orders', 't.orders'),
  num('recipients', 'Recipients', 't.recipients'),
  num('delivered', 'Delivered', 't.delivered'),
  text('lastOrderId', 'Last order ID', 't.last_order_id'),
  date('lastDeliveryDate', 'Last delivery date', 't.last_delivery_date'),
];

/** The campaigns of the cached orders (summaries.ts). */
const CAMPAIGN_COLUMNS: readonly ExportColumnDef[] = [
  text('id', 'Campaign ID', 'cm.campaign_id'),
  text('name', 'Campaign', 'cm.name'),
  text('description', 'Description', 'cm.description'),
  text('campaignType', 'Campaign type', 'cm.campaign_type'),
  text('scheduleType', 'Schedule type', 'cm.schedule_type'),
  text('useType', 'Use type', 'cm.use_type'),
  num('orders', 'Orders', 'cm.orders'),
  num('recipients', 'Recipients', 'cm.recipients'),
  num('delivered', 'Delivered', 'cm.delivered'),
  num('deliveredShare', 'Delivered share', 'CASE WHEN cm.recipients > 0 THEN round(CAST(cm.delivered AS REAL) / cm.recipients, 4) END'),
  text('lastOrderId', 'Last order ID', 'cm.last_order_id'),
  date('lastDeliveryDate', 'Scheduled delivery date', 'cm.last_delivery_date'),
];

/** The members of the duplicate groups (alias `d` = contact_duplicates), each with its group, then its contact's columns. */
const DUPLICATE_COLUMNS: readonly ExportColumnDef[] = [
  text('group', 'Duplicate group', 'd.group_key'),
  text('level', 'Match level', 'd.level'),
  num('groupSize', 'Group size', '(SELECT count(*) FROM contact_duplicates g JOIN contacts gc ON gc.id = g.contact_id WHERE g.level = d.level AND g.group_key = d.group_key)'),
  ...CONTACT_COLUMNS,
];

const COLUMNS: Record<AnyExportKind, readonly ExportColumnDef[]> = {
  contacts: CONTACT_COLUMNS,
  orders: ORDER_COLUMNS,
  recipients: RECIPIENT_COLUMNS,
  templates: TEMPLATE_COLUMNS,
  campaigns: CAMPAIGN_COLUMNS,
  duplicates: DUPLICATE_COLUMNS,
};

/**
 * Every column an export offers: the default ones in the default order, then the opt-in ones.
 * @param kind contacts | orders | recipients | templates | campaigns
 */
export function exportColumns(kind: AnyExportKind): readonly ExportColumnDef[] {
  return COLUMNS[kind];
}

/**
 * The columns of one export, in the order asked for.
 * @param kind the export
 * @param keys column keys in the wanted order, or null for the default columns in the default order
 * @throws LetterdeskError VALIDATION for an unknown or repeated key (the message lists the valid keys),
 *   or an empty list
 */
export function resolveColumns(kind: AnyExportKind, keys: readonly string[] | null): ExportColumnDef[] {
  const all = COLUMNS[kind];
  if (keys === null) return all.filter((c) => c.inDefault);
  if (keys.length === 0) throw new LetterdeskError('VALIDATION', `Choose at least one column to export. Columns of ${kind}: ${all.map((c) => c.key).join(', ')}.`);
  const byKey = new Map(all.map((c) => [c.key, c]));
  const seen = new Set<string>();
  return keys.map((key) => {
    const column = byKey.get(key);
    if (!column) {
      throw new LetterdeskError('VALIDATION', `Unknown column "${key.slice(0, 64)}" for a ${kind} export. Columns of ${kind}: ${all.map((c) => c.key).join(', ')}.`);
    }
    if (seen.has(key)) throw new LetterdeskError('VALIDATION', `Column "${key}" is listed twice; list each column once.`);
    seen.add(key);
    return column;
  });
}

/**
 * A column's header in a workbook: its dates are shown in the user's time zone there, so
 * "Created at (UTC)" reads "Created at".
 */
export function workbookHeader(column: Pick<ExportColumnDef, 'header' | 'type'>): string {
  return column.type === 'date' ? column.header.replace(/ \(UTC\)$/, '') : column.header;
}
