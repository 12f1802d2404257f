/**
 * Each contact's mailings as the contacts table shows them (build/mailing.ts builds
 * `contact_mailing` with the orders): SQL over a contact alias that looks the contact up by id, so
 * the mirror's rows, a saved view's newer members and removed contacts' kept copies read them alike.
 */

/** The mailing columns of `contact_mailing`. */
export type MailingColumn = 'times_mailed' | 'delivered' | 'last_order_seen_at';

/** `column` of the contact `alias` in `contact_mailing`: NULL for a contact no cached order lists. */
export function mailingValue(alias: string, column: MailingColumn): string {
  return `(SELECT m.${column} FROM contact_mailing m WHERE m.contact_id = ${alias}.id)`;
}

/** How many cached orders list the contact `alias` (0 when none). */
export function timesMailed(alias: string): string {
  return `coalesce(${mailingValue(alias, 'times_mailed')}, 0)`;
}

/** In how many cached orders the contact `alias`'s recipient is delivered (0 when none). */
export function deliveredCount(alias: string): string {
  return `coalesce(${mailingValue(alias, 'delivered')}, 0)`;
}

/** The columns a contact row reads of its mailings, as `times_mailed`, `mailed_delivered` and `last_order_seen_at`. */
export function mailingRowColumns(alias: string): string {
  return `${mailingValue(alias, 'times_mailed')} AS times_mailed, ${mailingValue(alias, 'delivered')} AS mailed_delivered, ${mailingValue(alias, 'last_order_seen_at')} AS last_order_seen_at`;
}

/** The first-seen time of the order `alias` (build/mailing.ts): NULL for a copy outside the mirror. */
export function firstSeenAt(alias: string): string {
  return `(SELECT f.first_seen_at FROM order_first_seen f WHERE f.id = ${alias}.id)`;
}

/** {@link firstSeenAt} as the column `first_seen_at`. */
export function firstSeenColumn(alias: string): string {
  return `${firstSeenAt(alias)} AS first_seen_at`;
}
