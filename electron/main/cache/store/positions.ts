/**
 * The orders the mirror's rows are kept in (build/publish.ts writes them; docs/cache-schema.md): the
 * default order, which is the rowid, and one sort position column per sortable column, each an
 * ordering expression with ties broken by id. Members newer than the mirror get positions between
 * the mirror's by the same expressions (savedViews/newer.ts). Text sorts in the person's locale order
 * (`locale_key`, collation.ts).
 *
 * Empty values (NULL, '', an empty label list) sort after the others in BOTH directions: each
 * ordering expression that can meet one begins with its empty flag (0 for a value, 1 for an
 * empty one), so the ascending positions hold the non-empty rows first (0 … E-1) and the empty
 * ones after (E … N-1). Descending keeps the flag ascending and reverses everything after it:
 * the non-empty rows in the exact reverse order, then the empty rows, also in reverse of their
 * ascending order (by id descending). read/emptyOrder.ts reads such a descending order by position.
 */
import { LOCALE_KEY_FUNCTION } from './collation.ts';

/** An ordering: its empty flag (absent when the column cannot be empty) and the order after it. */
export interface Sortable {
  empty?: string;
  order: string;
}

/**
 * A text column in locale order, empty (or NULL) values after the others.
 * @param empty the SQL of the column's other empty value besides '' (an empty label list is '[]')
 */
export function text(column: string, empty = "''"): Sortable {
  return { empty: `(coalesce(${column}, ${empty}) IN ('', ${empty}))`, order: `${LOCALE_KEY_FUNCTION}(${column})` };
}

/** A column in SQLite's own order (numbers, digit strings, dates), NULL or '' after the others. */
export function value(column: string): Sortable {
  return { empty: `(coalesce(${column}, '') = '')`, order: column };
}

/**
 * Text columns whose values are nearly all distinct: sorted by their locale keys directly rather
 * than through a table of ranks of their distinct values (collation.ts `withLocaleRanks`).
 */
export const DISTINCT_TEXT_COLUMNS: ReadonlySet<string> = new Set(['email', 'address1']);

/** Ties by id, shorter (numerically smaller digit strings) first. */
export const TIE = 'length(id), id';
export const TIE_DESC = 'length(id) DESC, id DESC';

const CONTACT_SORTABLE: Record<string, Sortable> = {
  pos_name: text('full_name'),
  pos_company: text('company_name'),
  pos_email: text('email'),
  pos_phone: value('phone_digits'),
  pos_city: text('city'),
  pos_state: text('state'),
  pos_zip: value('zip'),
  // An empty label list is '[]' (JSON).
  pos_labels: text('labels', "'[]'"),
  // Unknown (NULL) is the empty value.
  pos_verified: value('is_verified'),
};

const ORDER_SORTABLE: Record<string, Sortable> = {
  pos_id: { order: '0' },
  pos_campaign: text('campaign_name'),
  pos_product: text('product_name'),
  pos_template: text('template_title'),
  pos_status: value('status'),
  pos_recipients: { order: 'recipients' },
  pos_delivered: { order: 'delivered' },
  pos_live_mode: value('is_live_mode'),
  pos_schedule_type: text('campaign_schedule_type'),
  pos_delivery_date: value('campaign_delivery_date'),
};

function expressions(sortable: Record<string, Sortable>): Record<string, string> {
  return Object.fromEntries(Object.entries(sortable).map(([k, s]) => [k, s.empty ? `${s.empty}, ${s.order}` : s.order]));
}

function flags(sortable: Record<string, Sortable>): Record<string, string> {
  return Object.fromEntries(Object.entries(sortable).flatMap(([k, s]) => (s.empty ? [[k, s.empty]] : [])));
}

/** Sort position column → ordering expression (ascending; its empty flag first where it has one). */
export const CONTACT_POSITIONS: Record<string, string> = expressions(CONTACT_SORTABLE);
export const ORDER_POSITIONS: Record<string, string> = expressions(ORDER_SORTABLE);

/** Sort position column → its empty flag (1 for an empty value), for the columns that have one. */
export const CONTACT_EMPTY: Record<string, string> = flags(CONTACT_SORTABLE);
export const ORDER_EMPTY: Record<string, string> = flags(ORDER_SORTABLE);

/** The empty flag of a position column of either table (the names do not overlap), or undefined. */
export function emptyFlag(position: string): string | undefined {
  return CONTACT_EMPTY[position] ?? ORDER_EMPTY[position];
}

/**
 * ORDER BY of a position column's ordering expression (unqualified): ascending, or descending
 * with the empty flag kept ascending (empty values last both ways).
 * @param tie end with the ties by id (the last sort key)
 */
export function positionOrder(position: string, direction: 'asc' | 'desc', tie = true): string {
  const s = CONTACT_SORTABLE[position] ?? ORDER_SORTABLE[position];
  if (!s) throw new Error(`no sort position ${position}`);
  // A constant expression (orders' pos_id) orders by the tie alone; `ORDER BY 0` would name a column.
  const rest = /^\d+$/.test(s.order) ? TIE : tie ? `${s.order}, ${TIE}` : s.order;
  if (direction === 'asc') return s.empty ? `${s.empty}, ${rest}` : rest;
  return s.empty ? `${s.empty}, ${reverse(rest)}` : reverse(rest);
}

/** Each lower-case identifier of `expr` that is not a function name, qualified with `alias`. */
export function qualify(expr: string, alias: string): string {
  return expr.replace(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g, `${alias}.$1`);
}

/** The terms of an ORDER BY list: split at the commas outside parentheses and quotes. */
function terms(order: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < order.length; i++) {
    const ch = order[i];
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    else if (!quoted && depth === 0 && ch === ',') {
      out.push(order.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(order.slice(start).trim());
  return out;
}

/** The exact reverse of an ORDER BY list: each term's direction flipped. */
export function reverse(order: string): string {
  return terms(order)
    .map((term) => (term.endsWith(' DESC') ? term.slice(0, -5) : `${term} DESC`))
    .join(', ');
}

/** Default order (rowid 1, 2, …): contacts newest first, orders by id descending (numeric). */
export const CONTACT_DEFAULT_ORDER = `created_at DESC, ${TIE_DESC}`;
export const ORDER_DEFAULT_ORDER = TIE_DESC;
