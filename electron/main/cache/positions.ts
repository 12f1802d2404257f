/**
 * The orders the mirror's rows are kept in (publish.ts writes them; docs/cache-schema.md): the
 * default order, which is the rowid, and one sort position column per sortable column, each an
 * ordering expression with ties broken by id. Members newer than the mirror get positions between
 * the mirror's by the same expressions (viewNewer.ts). Text sorts in the person's locale order
 * (`locale_key`, collation.ts) with empty values last.
 */
import { LOCALE_KEY_FUNCTION } from './collation.ts';

/** A text column in locale order, empty (or NULL) values after the others. */
function text(column: string, empty = "''"): string {
  return `(coalesce(${column}, ${empty}) IN ('', ${empty})), ${LOCALE_KEY_FUNCTION}(${column})`;
}

/** Ties by id, shorter (numerically smaller digit strings) first. */
export const TIE = 'length(id), id';
export const TIE_DESC = 'length(id) DESC, id DESC';

/** Sort position column → ordering expression (ascending; descending is the exact reverse). */
export const CONTACT_POSITIONS: Record<string, string> = {
  pos_name: text('full_name'),
  pos_company: text('company_name'),
  pos_email: text('email'),
  pos_phone: 'phone_digits',
  pos_city: text('city'),
  pos_state: text('state'),
  pos_zip: 'zip',
  // An empty label list is '[]' (JSON).
  pos_labels: text('labels', "'[]'"),
  pos_verified: 'is_verified',
};

export const ORDER_POSITIONS: Record<string, string> = {
  pos_id: '0',
  pos_campaign: text('campaign_name'),
  pos_product: text('product_name'),
  pos_template: text('template_title'),
  pos_status: 'status',
  pos_recipients: 'recipients',
  pos_delivered: 'delivered',
  pos_live_mode: 'is_live_mode',
  pos_schedule_type: text('campaign_schedule_type'),
  pos_delivery_date: 'campaign_delivery_date',
};

/** Default order (rowid 1, 2, …): contacts newest first, orders by id descending (numeric). */
export const CONTACT_DEFAULT_ORDER = `created_at DESC, ${TIE_DESC}`;
export const ORDER_DEFAULT_ORDER = TIE_DESC;
