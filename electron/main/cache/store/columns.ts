/**
 * The columns of the mirror's tables as the sync writes them and every read selects them
 * (docs/cache-schema.md): the staged and published contacts and orders, and the orders'
 * recipients, in the order build/ingest.ts computes their values; and the digits a phone number is
 * kept and searched by.
 */

/**
 * The national digits of a phone number, for digits-only search and for sorting by phone
 * ("(555) 123-4567" → "5551234567"). A North American number's country code is dropped
 * ("+1 404 894 6866" → "4048946866"), so it is found by the ten digits people type and sorts among
 * the numbers written without it.
 */
export function phoneDigits(phone: string | null): string {
  return nationalDigits(phone ? phone.replace(/\D+/g, '') : '');
}

/** `digits` without the North American country code 1 (eleven digits that start with 1), else as is. */
export function nationalDigits(digits: string): string {
  return digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
}

/** The columns of a contact row (`stage_contacts`, `contacts`), in value order. */
export const CONTACT_STAGE_COLUMNS = [
  'id', 'first_name', 'last_name', 'full_name', 'company_name', 'address1', 'address2', 'city', 'state', 'zip',
  'phone_no', 'extension', 'website_url', 'org_id', 'email', 'is_verified', 'is_live_mode', 'created_at',
  'labels', 'label_list', 'phone_digits', 'raw', 'invalid_reason',
] as const;

/** The columns of an order row (`stage_orders`, `orders`), in value order. */
export const ORDER_STAGE_COLUMNS = [
  'id', 'org_id', 'file_url', 'status', 'is_live_mode', 'meta', 'merge_variables',
  'campaign_id', 'campaign_name', 'campaign_description', 'campaign_schedule_type', 'campaign_use_type', 'campaign_delivery_date', 'campaign_type',
  'product_id', 'product_name', 'product_type', 'product_paper_type', 'product_paper_size', 'product_delivery_type', 'product_envelope_type', 'product_postage_type', 'product_meta',
  'template_id', 'template_title', 'template_url', 'template_type', 'template_thumbnail_url', 'template_creator_id', 'template_creator_name',
  'recipients', 'delivered', 'raw', 'invalid_reason',
] as const;

/** The columns of an order's recipient row (`stage_order_recipients`, `order_recipients`), in value order. */
export const RECIPIENT_COLUMNS = [
  'order_id', 'id', 'position', 'contact_id', 'first_name', 'last_name', 'full_name', 'company_name', 'email',
  'phone_no', 'address1', 'address2', 'city', 'zip', 'website_url', 'tracking_code', 'is_delivered', 'status', 'meta',
] as const;

/**
 * The Overview's table of each resource's snapshot (migration 10; one row: `part` JSON and
 * `computed_at`), built by build/overview.ts and read by read/overview.ts.
 */
export const OVERVIEW_TABLES = { contacts: 'contact_overview', orders: 'order_overview' } as const;
