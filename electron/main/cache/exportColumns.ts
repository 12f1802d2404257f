/**
 * The columns of the three CSV exports: key, readable header and the SQL expression that reads the
 * cell from the cache tables (docs/cache-schema.md; aliases `c` = contacts, `o` = orders,
 * `r` = order_recipients). They live with the cache because they are SQL; exportRows.ts reads them.
 *
 * Keys are the service's field names (§2.2, §2.3) where one exists, so `--columns id,email,city`
 * reads naturally next to the API documentation. Booleans come out as `true` / `false` (empty when
 * the service sent null); JSON values (`meta`) as compact JSON text; labels as their titles joined
 * by {@link LABEL_SEPARATOR} in the service's order.
 */
import type { ExportColumn, ExportKind } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';

/** How the cell is typed: `number` cells are never formula-neutralised (export/csv.ts). */
export type ExportCellType = 'text' | 'number' | 'boolean';

/** One export column: what the UI/CLI shows ({@link ExportColumn}) plus how to read it. */
export interface ExportColumnDef extends ExportColumn {
  /** SQL expression over the aliased cache tables. */
  sql: string;
  type: ExportCellType;
}

/** Between the label titles of a contact in the `labels` column. */
export const LABEL_SEPARATOR = '; ';

const bool = (expr: string): string => `CASE ${expr} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END`;
const text = (key: string, header: string, sql: string): ExportColumnDef => ({ key, header, sql, type: 'text' });
const flag = (key: string, header: string, expr: string): ExportColumnDef => ({ key, header, sql: bool(expr), type: 'boolean' });
const num = (key: string, header: string, sql: string): ExportColumnDef => ({ key, header, sql, type: 'number' });

/** §2.2: every contact field, labels joined in one column. */
const CONTACT_COLUMNS: readonly ExportColumnDef[] = [
  text('id', 'Contact ID', 'c.id'),
  text('firstName', 'First name', 'c.first_name'),
  text('lastName', 'Last name', 'c.last_name'),
  text('fullName', 'Full name', 'c.full_name'),
  text('companyName', 'Company', 'c.company_name'),
  text('address1', 'Address line 1', 'c.address1'),
  text('address2', 'Address line 2', 'c.address2'),
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
  text('createdAt', 'Created at (UTC)', 'c.created_at'),
];

/** §2.3: one row per order. */
const ORDER_COLUMNS: readonly ExportColumnDef[] = [
  text('id', 'Order ID', 'o.id'),
  num('status', 'Status', 'o.status'),
  flag('isLiveMode', 'Live mode', 'o.is_live_mode'),
  text('campaignId', 'Campaign ID', 'o.campaign_id'),
  text('campaignName', 'Campaign', 'o.campaign_name'),
  text('campaignDescription', 'Campaign description', 'o.campaign_description'),
  text('campaignType', 'Campaign type', 'o.campaign_type'),
  text('scheduleType', 'Schedule type', 'o.campaign_schedule_type'),
  text('useType', 'Use type', 'o.campaign_use_type'),
  text('deliveryDate', 'Delivery date', 'o.campaign_delivery_date'),
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
];

/** §2.3 OrderContact: one row per order recipient. */
const RECIPIENT_COLUMNS: readonly ExportColumnDef[] = [
  text('orderId', 'Order ID', 'r.order_id'),
  text('campaignName', 'Campaign', 'o.campaign_name'),
  text('id', 'Recipient entry ID', 'r.id'),
  text('contactId', 'Contact ID', 'r.contact_id'),
  text('firstName', 'First name', 'r.first_name'),
  text('lastName', 'Last name', 'r.last_name'),
  text('fullName', 'Full name', 'r.full_name'),
  text('companyName', 'Company', 'r.company_name'),
  text('email', 'Email', 'r.email'),
  text('phoneNo', 'Phone', 'r.phone_no'),
  text('address1', 'Address line 1', 'r.address1'),
  text('address2', 'Address line 2', 'r.address2'),
  text('city', 'City', 'r.city'),
  text('zip', 'ZIP', 'r.zip'),
  text('websiteUrl', 'Website', 'r.website_url'),
  text('trackingCode', 'Tracking code', 'r.tracking_code'),
  flag('isDelivered', 'Delivered', 'r.is_delivered'),
  text('status', 'Status', 'r.status'),
];

const COLUMNS: Record<ExportKind, readonly ExportColumnDef[]> = {
  contacts: CONTACT_COLUMNS,
  orders: ORDER_COLUMNS,
  recipients: RECIPIENT_COLUMNS,
};

/**
 * Every column an export offers, in the default order.
 * @param kind contacts | orders | recipients
 */
export function exportColumns(kind: ExportKind): readonly ExportColumnDef[] {
  return COLUMNS[kind];
}

/**
 * The columns of one export, in the order asked for.
 * @param kind the export
 * @param keys column keys in the wanted order, or null for every column in the default order
 * @throws LetterdeskError VALIDATION for an unknown or repeated key (the message lists the valid keys),
 *   or an empty list
 */
export function resolveColumns(kind: ExportKind, keys: readonly string[] | null): ExportColumnDef[] {
  const all = COLUMNS[kind];
  if (keys === null) return [...all];
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
