/**
 * What a record's row in a search index holds (docs/cache-schema.md `contacts_fts`, `orders_fts`),
 * as SQL over its table row: one definition for the mirror's indexes (build/publish.ts), a saved view's
 * members' index and the index of members newer than the mirror (savedViews/mirror.ts, savedViews/newer.ts), so
 * a search finds the same records in each.
 */

/**
 * First character of every filter token: U+E000, a private-use character. unicode61 keeps it as a
 * token character (default categories L*, N*, Co), nobody types it (compileSearch drops it), and so
 * no prefix a person types shares its doclist with the filter tokens (migration 003: with a
 * letter as the mark, typing that letter read every contact's filter tokens).
 */
export const FILTER_TOKEN_MARK = '\uE000';

/** The columns of a contacts search index, in order. */
export const CONTACT_FTS_COLUMNS = 'name, company, email, phone, address, city, state, zip, labels, f';
/** The columns of an orders search index, in order. */
export const ORDER_FTS_COLUMNS = 'id, campaign, product, template, recipients';

const MARK = `char(${FILTER_TOKEN_MARK.codePointAt(0)})`;

/** The state, verified and live-mode filter tokens of contact row `c` (read/listParts.ts `CONTACT_FILTER_TOKENS`). */
function ownTokensSql(c: string): string {
  return `${MARK} || 's' || hex(${c}.state),
    CASE WHEN ${c}.is_verified = 1 THEN ${MARK} || 'v1' WHEN ${c}.is_verified = 0 THEN ${MARK} || 'v0' WHEN ${c}.is_verified IS NULL THEN ${MARK} || 'vn' END,
    CASE WHEN ${c}.is_live_mode = 1 THEN ${MARK} || 'l1' WHEN ${c}.is_live_mode = 0 THEN ${MARK} || 'l0' END`;
}

/**
 * SQL expression of a contact's filter tokens (the `f` column of `contacts_fts`), the SQL side of
 * read/listParts.ts `CONTACT_FILTER_TOKENS`: hex() of the same UTF-8 bytes, the same prefixes; a NULL state
 * gives the token of '' (hex(NULL) is ''), the one "(none)" state; NULL live mode gives no token.
 * The labels' tokens come in the contact's order of its labels, as in {@link recordFilterTokensSql}.
 * @param c alias of the contact row
 * @param contactLabels, labels the contact–label link table and the label table to read
 */
export function contactFilterTokensSql(c: string, contactLabels: string, labels: string): string {
  return `concat_ws(' ', ${ownTokensSql(c)},
    (SELECT group_concat(${MARK} || 'b' || hex(l.id) || ' ' || ${MARK} || 't' || hex(l.title), ' ' ORDER BY cl.position) FROM ${contactLabels} cl JOIN ${labels} l ON l.id = cl.label_id WHERE cl.contact_id = ${c}.id))`;
}

/**
 * The same filter tokens with the labels read from the row's own `label_list` (members newer than
 * the mirror, the search index filled while pages are staged): the same text as
 * {@link contactFilterTokensSql} when each label has one title and no contact lists a label twice.
 */
export function recordFilterTokensSql(c: string): string {
  return `concat_ws(' ', ${ownTokensSql(c)},
    (SELECT group_concat(${MARK} || 'b' || hex(j.value ->> 'id') || ' ' || ${MARK} || 't' || hex(j.value ->> 'title'), ' ' ORDER BY j.key) FROM json_each(${c}.label_list) j))`;
}

/**
 * SQL of a contact's `phone` text in the search index: the number as written, its national digits
 * (build/ingest.ts `phoneDigits`, what is sorted by and what "4048946866" finds), and for ten national
 * digits also the eleven with a leading 1 — the digits of "+1 404 894 6866" as typed from the start
 * ("+1404894"), and of an eleven-digit number that only looked North American ("138 0013 8000",
 * whose national form dropped its 1) — so a prefix of the digits as written always finds it.
 * @param c alias of the contact row
 */
export function contactPhoneSearchSql(c: string): string {
  return `concat_ws(' ', ${c}.phone_no, ${c}.phone_digits, CASE WHEN length(${c}.phone_digits) = 10 THEN '1' || ${c}.phone_digits END)`;
}

/**
 * SQL of a contact's `name` text in the search index: the full name, and the first and last names
 * unless the full name is exactly those two (the usual case, where they would add the same words
 * again and cost the index their entries twice).
 * @param c alias of the contact row
 */
export function contactNameSearchSql(c: string): string {
  return `CASE WHEN ${c}.full_name = ${c}.first_name || ' ' || ${c}.last_name THEN ${c}.full_name
    ELSE concat_ws(' ', ${c}.full_name, ${c}.first_name, ${c}.last_name) END`;
}

/**
 * The values of contact row `c`'s search-index row, in {@link CONTACT_FTS_COLUMNS} order.
 * @param filterTokens its filter tokens ({@link contactFilterTokensSql} or {@link recordFilterTokensSql})
 */
export function contactFtsValuesSql(c: string, filterTokens: string): string {
  return `${contactNameSearchSql(c)}, ${c}.company_name, ${c}.email, ${contactPhoneSearchSql(c)},
    concat_ws(' ', ${c}.address1, ${c}.address2), ${c}.city, ${c}.state, ${c}.zip, (SELECT group_concat(value, ' ') FROM json_each(${c}.labels)),
    ${filterTokens}`;
}

/**
 * The values of order row `o`'s search-index row, in {@link ORDER_FTS_COLUMNS} order: its recipients'
 * names, emails and cities from `recipients` (alias r, matched by `order_id`, and `also` when given).
 */
export function orderFtsValuesSql(o: string, recipients: string, also = ''): string {
  return `${o}.id, ${o}.campaign_name, ${o}.product_name, ${o}.template_title,
    (SELECT group_concat(concat_ws(' ', r.full_name, r.email, r.city), ' ') FROM ${recipients} r WHERE r.order_id = ${o}.id${also ? ` AND ${also}` : ''})`;
}
