/**
 * The orders the mirror's rows are kept in (publish.ts writes them; docs/cache-schema.md): the
 * default order, which is the rowid, and one sort position column per sortable column, each an
 * ordering expression with ties broken by id. Members newer than the mirror get positions between
 * the mirror's by the same expressions (viewNewer.ts).
 */

/** Ties by id, shorter (numerically smaller digit strings) first. */
export const TIE = 'length(id), id';
const TIE_DESC = 'length(id) DESC, id DESC';

/** Sort position column → ordering expression (ascending; descending is the exact reverse). */
export const CONTACT_POSITIONS: Record<string, string> = {
  pos_name: 'full_name COLLATE NOCASE',
  pos_company: 'company_name COLLATE NOCASE',
  pos_email: 'email COLLATE NOCASE',
  pos_phone: 'phone_digits',
  pos_city: 'city COLLATE NOCASE',
  pos_state: 'state COLLATE NOCASE',
  pos_zip: 'zip',
  pos_labels: 'labels COLLATE NOCASE',
  pos_verified: 'is_verified',
};

export const ORDER_POSITIONS: Record<string, string> = {
  pos_id: '0',
  pos_campaign: 'campaign_name COLLATE NOCASE',
  pos_product: 'product_name COLLATE NOCASE',
  pos_template: 'template_title COLLATE NOCASE',
  pos_status: 'status',
  pos_recipients: 'recipients',
  pos_delivered: 'delivered',
  pos_live_mode: 'is_live_mode',
  pos_schedule_type: 'campaign_schedule_type COLLATE NOCASE',
  pos_delivery_date: 'campaign_delivery_date',
};

/** Default order (rowid 1, 2, …): contacts newest first, orders by id descending (numeric). */
export const CONTACT_DEFAULT_ORDER = `created_at DESC, ${TIE_DESC}`;
export const ORDER_DEFAULT_ORDER = TIE_DESC;
