/**
 * Sorts by several keys (shared/query.ts `sort` then `thenBy`) and by the contact columns no sort
 * position answers ({@link EXPRESSION_SORTS}: last name, address lines, mailings). Over the mirror's rows (and a saved view's members newer than the
 * mirror, which carry positions too) a key before the last one orders by its group — the first
 * position among the rows with the same value, `min(pos) OVER (PARTITION BY value)`, so equal
 * values stay together in the position's (locale) order — and the last key by its unique position,
 * which also breaks ties by id. An expression sort orders by its terms (a last name by the locale
 * keys of the last, then the first name: store/collation.ts), empty values last. Empty values stay last in both directions: a
 * descending key keeps its empty flag (store/positions.ts) ascending before its reversed order. Windows
 * of such a sort over the whole mirror read a materialized order (queries.ts), built once per
 * snapshot and sort.
 */
import type { Resource } from '../../../../shared/serviceRecords.ts';
import type { SortDirection } from '../../../../shared/query.ts';
import { LOCALE_KEY_FUNCTION } from '../store/collation.ts';
import { emptyFlag, qualify } from '../store/positions.ts';
import { CONTACT_SORT, ORDER_SORT, orderClause } from './listParts.ts';
import { deliveredCount, mailingValue, timesMailed } from './mailing.ts';

/** One sort key of a query. */
export interface SortKey {
  column: string;
  direction: SortDirection;
}

/** The sort keys of a query: `sort`, then each `thenBy` key whose column is not sorted already. */
export function sortKeys(query: { sort?: SortKey; thenBy?: SortKey[] }): SortKey[] {
  const keys = query.sort ? [query.sort, ...(query.thenBy ?? [])] : [];
  return keys.filter((k, i) => keys.findIndex((x) => x.column === k.column) === i);
}

/** The sort is one key a position column (or the default order) answers: windows are ranges of it. */
export function isSimpleSort(query: { sort?: SortKey; thenBy?: SortKey[] }): boolean {
  const keys = sortKeys(query);
  return keys.length <= 1 && !(keys[0] && keys[0].column in EXPRESSION_SORTS);
}

/** The raw value each position column orders (its group: rows with equal values). */
const POSITION_VALUE: Record<string, string> = {
  pos_name: 'full_name', pos_company: 'company_name', pos_email: 'email', pos_phone: 'phone_digits', pos_city: 'city', pos_state: 'state',
  pos_zip: 'zip', pos_labels: 'labels', pos_verified: 'is_verified',
  pos_campaign: 'campaign_name', pos_product: 'product_name', pos_template: 'template_title', pos_status: 'status', pos_recipients: 'recipients',
  pos_delivered: 'delivered', pos_live_mode: 'is_live_mode', pos_schedule_type: 'campaign_schedule_type', pos_delivery_date: 'campaign_delivery_date',
};

/** An order no position column holds: its empty flag (empty values last both ways) and its ascending terms. */
export interface ExpressionSort {
  flag?: string;
  terms: string[];
}

const textSort = (a: string, column: string): ExpressionSort => ({ flag: `(coalesce(${a}.${column}, '') = '')`, terms: [`${LOCALE_KEY_FUNCTION}(${a}.${column})`] });

/**
 * The contact sorts that no sort position answers, each over alias `a`: the last name (last, then
 * first name), the address lines (locale order) and the mailing columns (read/mailing.ts; a
 * contact never mailed has 0 mailings and no last order). Over the whole mirror they read a
 * materialized order (materializedOrder.ts), built on first use: a position column each would
 * cost every sync its sort.
 */
export const EXPRESSION_SORTS: Record<string, (a: string) => ExpressionSort> = {
  lastName: (a) => ({ flag: `(coalesce(${a}.last_name, '') = '')`, terms: [`${LOCALE_KEY_FUNCTION}(${a}.last_name)`, `${LOCALE_KEY_FUNCTION}(${a}.first_name)`] }),
  address: (a) => textSort(a, 'address1'),
  line2: (a) => textSort(a, 'address2'),
  timesMailed: (a) => ({ terms: [timesMailed(a)] }),
  deliveredCount: (a) => ({ terms: [deliveredCount(a)] }),
  lastOrder: (a) => ({ flag: `(${mailingValue(a, 'last_order_seen_at')} IS NULL)`, terms: [mailingValue(a, 'last_order_seen_at')] }),
};

const dir = (d: SortDirection): string => (d === 'desc' ? ' DESC' : '');

/**
 * ORDER BY of a sort that is not simple ({@link isSimpleSort}) over alias `a`, whose rows have the
 * mirror's position columns.
 * @param base the default order's expression (see listParts.ts `orderClause`)
 */
export function multiOrder(kind: Resource, a: string, base: string, keys: readonly SortKey[]): string {
  const map = kind === 'contacts' ? CONTACT_SORT : ORDER_SORT;
  const terms: string[] = [];
  keys.forEach((key, i) => {
    const last = i === keys.length - 1;
    const expression = EXPRESSION_SORTS[key.column]?.(a);
    if (expression) {
      // The empty flag stays ascending: empty values last both ways.
      if (expression.flag) terms.push(expression.flag);
      terms.push(...expression.terms.map((t) => t + dir(key.direction)));
      if (last) terms.push(`length(${a}.id)${dir(key.direction)}`, `${a}.id${dir(key.direction)}`);
      return;
    }
    const pos = map[key.column] ?? 'rowid';
    if (last) terms.push(orderClause(a, base, key, map));
    else if (pos === 'rowid') {
      // The default order's key: contacts' createdAt (newest first), orders' id (numeric).
      terms.push(...(kind === 'contacts' ? [`${a}.created_at${dir(key.direction)}`] : [`length(${a}.id)${dir(key.direction)}`, `${a}.id${dir(key.direction)}`]));
    } else {
      // Descending keeps the groups of empty values last (store/positions.ts).
      const flag = key.direction === 'desc' ? emptyFlag(pos) : undefined;
      if (flag) terms.push(qualify(flag, a));
      terms.push(`min(${a}.${pos}) OVER (PARTITION BY ${a}.${POSITION_VALUE[pos] ?? pos})${dir(key.direction)}`);
    }
  });
  return terms.join(', ');
}
