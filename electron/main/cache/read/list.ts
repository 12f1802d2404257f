/**
 * The SQL of the contact and order views (shared/query.ts → SQL): search, filters, sort, and the
 * saved view whose members a query is limited to. Used by the query functions (queries.ts,
 * facets.ts), the export's rows (exportRows.ts) and the records job (records.ts), so "export the
 * current view" selects exactly the rows of the view, in view order:
 *
 *   SELECT <columns> FROM ${from} WHERE ${where} ORDER BY ${orderBy}   -- with `params` bound
 *
 * Aliases: `c` = contacts, `o` = orders; with a search the FTS table is joined under its own name.
 * Limited to a saved view's members (a {@link ViewScope} from listScope.ts), the rows are read from
 * the mirror through the members' rowids or their own search index (`view_contact_rows`,
 * `view_contacts_fts`), and, when some members are newer than the mirror, united with those
 * (`view_newer_contacts`): the alias then names that union, which has the mirror's columns, a
 * `rowid` between the mirror's and a `newer` flag. Table and column names: docs/cache-schema.md.
 */
import type { ContactQuery, OrderQuery } from '../../../../shared/query.ts';
import { CONTACT_POSITIONS, ORDER_POSITIONS, emptyFlag } from '../store/positions.ts';
import { CONTACT_STAGE_COLUMNS, ORDER_STAGE_COLUMNS, RECIPIENT_COLUMNS } from '../store/columns.ts';
import { CONTACT_SORT, ORDER_SORT, compileSearch, contactParts, isDefaultOrder, orderClause, orderConditions } from './listParts.ts';
import { isSimpleSort, multiOrder, sortKeys } from './sortOrder.ts';
import { wantsRemoved, withRemovedContacts, withRemovedOrders } from './listRemoved.ts';

export { CONTACT_FILTER_TOKENS, compileSearch } from './listParts.ts';
export { FILTER_TOKEN_MARK } from '../store/searchIndex.ts';

/** A view as SQL fragments; `where` is a full boolean expression ('1' when there is no filter). */
export interface ViewSql {
  from: string;
  where: string;
  orderBy: string;
  params: Record<string, unknown>;
  /** The view is the whole table, unfiltered: a window is a range of sort positions. */
  all: boolean;
  /**
   * The view is exactly the matches of a search index, in that index's rowid order when the view's
   * order is the default one: counts and the typeahead read the index alone. `row` maps the index's
   * `rowid` to the table's.
   */
  index?: { from: string; where: string; row: string };
  /** The number of rows, when known without reading them (a saved view's members, unfiltered). */
  known?: number;
  /**
   * The view is a saved view's members, unfiltered, all held by the mirror: a window is a range of
   * their positions among the members (`pos_row`, `pos_*`) in `table` under `:vkey`.
   */
  ranked?: { table: string };
  /** The recipients of the view's orders, as a table or a parenthesised subquery (exports). */
  recipients: string;
  /**
   * Set when some rows are not the mirror's (a saved view's members newer than the mirror, removed
   * records' kept copies): the condition on the alias that is true for those rows, whose labels are
   * read from their own `label_list` (facets.ts).
   */
  outside?: string;
  /**
   * Set when every row is the mirror's (no `outside`) and the order is one descending sort position
   * with an empty flag (store/positions.ts): the order is then the rows before the position's first empty
   * row, then the others, each by the position descending, which emptyOrder.ts reads as two parts
   * (an index walk each, or for a search a sort by the position alone) instead of by `orderBy`.
   */
  split?: EmptySplit;
}

/** The mirror table, its alias and the descending position column of a {@link ViewSql} `split`. */
export interface EmptySplit {
  table: 'contacts' | 'orders';
  alias: string;
  position: string;
}

/** `view` with its {@link EmptySplit} when its order has one. */
function withSplit(kind: 'contacts' | 'orders', view: ViewSql, query: ContactQuery | OrderQuery): ViewSql {
  const alias = kind === 'contacts' ? 'c' : 'o';
  const sort = query.sort;
  if (!isSimpleSort(query) || sort?.direction !== 'desc' || view.outside !== undefined) return view;
  const position = sortPositionColumn(kind, sort);
  return emptyFlag(position) ? { ...view, split: { table: kind, alias, position } } : view;
}

/**
 * Which records a query may show: all of them, or the members of a saved view with a service query
 * (`key` = its membership's member key, null before its first read; `inMirror` and `newer` its counts).
 */
export type ViewScope = { kind: 'all' } | { kind: 'members'; viewId: string; key: number | null; inMirror: number; newer: number };

/** ORDER BY of a view: one position column, or several keys (sortOrder.ts). */
function viewOrder(kind: 'contacts' | 'orders', alias: string, base: string, query: ContactQuery | OrderQuery): string {
  if (isSimpleSort(query)) return orderClause(alias, base, query.sort, kind === 'contacts' ? CONTACT_SORT : ORDER_SORT);
  return multiOrder(kind, alias, base, sortKeys(query));
}

/** Every record (no saved view, or one without a service query). */
export const ALL_RECORDS: ViewScope = { kind: 'all' };

/** A member key's rows in a view index: rowid = key · 2^32 + the mirror's rowid. */
export const MEMBER_KEY_SPAN = 2 ** 32;

const CONTACT_UNION_COLUMNS = [...CONTACT_STAGE_COLUMNS, ...Object.keys(CONTACT_POSITIONS)];
const ORDER_UNION_COLUMNS = [...ORDER_STAGE_COLUMNS, ...Object.keys(ORDER_POSITIONS)];

interface Branch {
  from: string;
  where: string[];
}

function joined(where: readonly string[]): string {
  return where.length ? where.join(' AND ') : '1';
}

/** Binds a member key's parameters: `:vkey`, and `:vbase` … `:vtop` of its rows in a view index. */
function bindKey(params: Record<string, unknown>, key: number): void {
  params.vkey = key;
  params.vbase = key * MEMBER_KEY_SPAN;
  params.vtop = key * MEMBER_KEY_SPAN + (MEMBER_KEY_SPAN - 1);
}

/** The members and the newer rows as one subquery aliased `alias`, in the mirror's columns. */
function union(alias: string, columns: readonly string[], mirror: Branch, newer: Branch): string {
  const cols = columns.map((c) => `${alias}.${c}`).join(', ');
  return `(SELECT ${alias}.rowid AS rowid, 0 AS newer, ${cols} FROM ${mirror.from} WHERE ${joined(mirror.where)}
    UNION ALL SELECT ${alias}.row_key AS rowid, 1 AS newer, ${cols} FROM ${newer.from} WHERE ${joined(newer.where)}) ${alias}`;
}

/**
 * SQL of a contact view; `omit` leaves one filter out (facet counts of that filter's options).
 * With a search, the label, state, verified and live mode filters become filter tokens of the same
 * MATCH (listParts.ts `CONTACT_FILTER_TOKENS`); without one they are row conditions that use the
 * indexes — except over a saved view's members, where any of them is matched in the members' own
 * search index. A change filter with `removed` adds the removed contacts' kept copies (listRemoved.ts).
 * @param scope the records the query may show (listScope.ts resolves `query.view`); default all
 */
export function contactViewSql(query: ContactQuery, omit?: keyof ContactQuery, scope: ViewScope = ALL_RECORDS): ViewSql {
  const base = contactMirrorViewSql(query, omit, scope);
  return wantsRemoved(query, omit) ? withRemovedContacts(base, query, omit, scope) : withSplit('contacts', base, query);
}

/** SQL of an order view; `omit` and `scope` as in {@link contactViewSql}. */
export function orderViewSql(query: OrderQuery, omit?: keyof OrderQuery, scope: ViewScope = ALL_RECORDS): ViewSql {
  const base = orderMirrorViewSql(query, omit, scope);
  return wantsRemoved(query, omit) ? withRemovedOrders(base, query, omit, scope) : withSplit('orders', base, query);
}

/** The mirror's rows of a contact view (and a saved view's members newer than the mirror). */
function contactMirrorViewSql(query: ContactQuery, omit: keyof ContactQuery | undefined, scope: ViewScope): ViewSql {
  const params: Record<string, unknown> = {};
  if (scope.kind === 'all') {
    const p = contactParts(query, omit, params, compileSearch(query.search) !== null, 'mirror');
    if (p.match === null) return { from: 'contacts c', where: joined(p.conditions), orderBy: viewOrder('contacts', 'c', 'c.rowid', query), params, all: p.conditions.length === 0, recipients: 'order_recipients' };
    params.search = [`(- {f} : (${p.match}))`, ...p.tokens].join(' AND ');
    return {
      from: 'contacts_fts JOIN contacts c ON c.rowid = contacts_fts.rowid',
      where: joined(['contacts_fts MATCH :search', ...p.conditions]),
      orderBy: viewOrder('contacts', 'c', 'contacts_fts.rowid', query),
      params, all: false, recipients: 'order_recipients',
      ...(p.conditions.length === 0 ? { index: { from: 'contacts_fts', where: 'contacts_fts MATCH :search', row: 'rowid' } } : {}),
    };
  }
  if (scope.key === null) return { from: 'contacts c', where: '0', orderBy: 'c.rowid', params, all: false, known: 0, recipients: 'order_recipients' };
  bindKey(params, scope.key);
  const hasTokenFilters = contactParts(query, omit, {}, true, 'mirror').tokens.length > 0;
  const p = contactParts(query, omit, params, compileSearch(query.search) !== null || hasTokenFilters, 'mirror');
  let members: Branch;
  let orderBy: string;
  let index: ViewSql['index'];
  if (p.match !== null || p.tokens.length > 0) {
    params.search = [...(p.match === null ? [] : [`(- {f} : (${p.match}))`]), ...p.tokens].join(' AND ');
    const range = 'view_contacts_fts MATCH :search AND view_contacts_fts.rowid BETWEEN :vbase AND :vtop';
    members = { from: 'view_contacts_fts JOIN contacts c ON c.rowid = view_contacts_fts.rowid - :vbase', where: [range, ...p.conditions] };
    orderBy = viewOrder('contacts', 'c', 'view_contacts_fts.rowid', query);
    if (p.conditions.length === 0) index = { from: 'view_contacts_fts', where: range, row: 'rowid - :vbase' };
  } else if (isDefaultOrder(query.sort, CONTACT_SORT)) {
    // Newest first: walk the members' rowids in order, each a lookup in the mirror.
    members = { from: 'view_contact_rows vm CROSS JOIN contacts c ON c.rowid = vm.row', where: ['vm.member_key = :vkey', ...p.conditions] };
    orderBy = viewOrder('contacts', 'c', 'vm.row', query);
  } else {
    // Another sort: walk the mirror's sort positions, keeping the members.
    members = { from: 'contacts c', where: ['EXISTS (SELECT 1 FROM view_contact_rows vm WHERE vm.member_key = :vkey AND vm.row = c.rowid)', ...p.conditions] };
    orderBy = viewOrder('contacts', 'c', 'c.rowid', query);
  }
  const unfiltered = p.match === null && p.tokens.length === 0 && p.conditions.length === 0;
  const known = unfiltered ? { known: scope.inMirror + scope.newer } : {};
  if (scope.newer === 0) {
    const ranked = unfiltered && isSimpleSort(query) ? { ranked: { table: 'view_contact_rows' } } : {};
    return { from: members.from, where: joined(members.where), orderBy, params, all: false, recipients: 'order_recipients', ...known, ...ranked, ...(index ? { index } : {}) };
  }
  const n = contactParts(query, omit, params, p.match !== null, 'record');
  const newer: Branch = p.match === null
    ? { from: 'view_newer_contacts c', where: ['c.member_key = :vkey', ...n.conditions] }
    : { from: 'view_newer_contacts_fts JOIN view_newer_contacts c ON c.rowid = view_newer_contacts_fts.rowid', where: ['view_newer_contacts_fts MATCH :search', 'c.member_key = :vkey', ...n.conditions] };
  return {
    from: union('c', CONTACT_UNION_COLUMNS, members, newer), where: '1', orderBy: viewOrder('contacts', 'c', 'c.rowid', query), params, all: false,
    recipients: 'order_recipients', outside: 'c.newer = 1', ...known,
  };
}

/** The mirror's rows of an order view (and a saved view's members newer than the mirror). */
function orderMirrorViewSql(query: OrderQuery, omit: keyof OrderQuery | undefined, scope: ViewScope): ViewSql {
  const params: Record<string, unknown> = {};
  const match = compileSearch(query.search);
  if (scope.kind === 'all') {
    const conditions = orderConditions(query, omit, params, 'order_recipients');
    const orderBy = viewOrder('orders', 'o', match ? 'orders_fts.rowid' : 'o.rowid', query);
    if (match === null) return { from: 'orders o', where: joined(conditions), orderBy, params, all: conditions.length === 0, recipients: 'order_recipients' };
    params.search = match;
    return {
      from: 'orders_fts JOIN orders o ON o.rowid = orders_fts.rowid', where: joined(['orders_fts MATCH :search', ...conditions]), orderBy, params, all: false, recipients: 'order_recipients',
      ...(conditions.length === 0 ? { index: { from: 'orders_fts', where: 'orders_fts MATCH :search', row: 'rowid' } } : {}),
    };
  }
  if (scope.key === null) return { from: 'orders o', where: '0', orderBy: 'o.rowid', params, all: false, known: 0, recipients: 'order_recipients' };
  bindKey(params, scope.key);
  if (match !== null) params.search = match;
  const conditions = orderConditions(query, omit, params, 'order_recipients');
  let members: Branch;
  let orderBy: string;
  let index: ViewSql['index'];
  if (match !== null) {
    const range = 'view_orders_fts MATCH :search AND view_orders_fts.rowid BETWEEN :vbase AND :vtop';
    members = { from: 'view_orders_fts JOIN orders o ON o.rowid = view_orders_fts.rowid - :vbase', where: [range, ...conditions] };
    orderBy = viewOrder('orders', 'o', 'view_orders_fts.rowid', query);
    if (conditions.length === 0) index = { from: 'view_orders_fts', where: range, row: 'rowid - :vbase' };
  } else if (isDefaultOrder(query.sort, ORDER_SORT)) {
    members = { from: 'view_order_rows vm CROSS JOIN orders o ON o.rowid = vm.row', where: ['vm.member_key = :vkey', ...conditions] };
    orderBy = viewOrder('orders', 'o', 'vm.row', query);
  } else {
    members = { from: 'orders o', where: ['EXISTS (SELECT 1 FROM view_order_rows vm WHERE vm.member_key = :vkey AND vm.row = o.rowid)', ...conditions] };
    orderBy = viewOrder('orders', 'o', 'o.rowid', query);
  }
  const unfiltered = match === null && conditions.length === 0;
  const known = unfiltered ? { known: scope.inMirror + scope.newer } : {};
  if (scope.newer === 0) {
    const ranked = unfiltered && isSimpleSort(query) ? { ranked: { table: 'view_order_rows' } } : {};
    return { from: members.from, where: joined(members.where), orderBy, params, all: false, recipients: 'order_recipients', ...known, ...ranked, ...(index ? { index } : {}) };
  }
  const newerRecipients = '(SELECT * FROM view_newer_order_recipients WHERE member_key = :vkey)';
  const n = orderConditions(query, omit, params, newerRecipients);
  const newer: Branch = match === null
    ? { from: 'view_newer_orders o', where: ['o.member_key = :vkey', ...n] }
    : { from: 'view_newer_orders_fts JOIN view_newer_orders o ON o.rowid = view_newer_orders_fts.rowid', where: ['view_newer_orders_fts MATCH :search', 'o.member_key = :vkey', ...n] };
  const rcols = RECIPIENT_COLUMNS.join(', ');
  return {
    from: union('o', ORDER_UNION_COLUMNS, members, newer), where: '1', orderBy: viewOrder('orders', 'o', 'o.rowid', query), params, all: false, ...known,
    outside: 'o.newer = 1',
    recipients: `(SELECT ${rcols} FROM order_recipients UNION ALL SELECT ${rcols} FROM view_newer_order_recipients WHERE member_key = :vkey)`,
  };
}

/** The position column a sort uses, for direct window lookups on unfiltered views (null: rowid). */
export function sortPositionColumn(kind: 'contacts' | 'orders', sort: { column: string } | undefined): string {
  if (!sort) return 'rowid';
  return (kind === 'contacts' ? CONTACT_SORT : ORDER_SORT)[sort.column] ?? 'rowid';
}
