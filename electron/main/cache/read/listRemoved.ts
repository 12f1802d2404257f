/**
 * The kept copies of removed records in a view (build/changes.ts): a query whose change filter asks for
 * `removed` shows, besides the mirror's rows it selects, the records the last sync removed, with
 * the same search, filters, saved view and sort. The view's SQL (list.ts) then unites the two
 * under the view's alias, and sorts by the ordering expressions the mirror's positions are built
 * from (store/positions.ts): the removed rows have no positions among the mirror's, and such a view is
 * small (what one sync changed), so the sort costs little.
 */
import type { ContactQuery, OrderQuery, SortDirection } from '../../../../shared/query.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CONTACT_STAGE_COLUMNS, ORDER_STAGE_COLUMNS, RECIPIENT_COLUMNS } from '../store/columns.ts';
import { CONTACT_DEFAULT_ORDER, ORDER_DEFAULT_ORDER, TIE, TIE_DESC, positionOrder, qualify, reverse } from '../store/positions.ts';
import { EXPRESSION_SORTS, sortKeys } from './sortOrder.ts';
import { CONTACT_SORT, ORDER_SORT, compileSearch, contactParts, orderConditions } from './listParts.ts';
import type { ViewScope, ViewSql } from './list.ts';

/** Rows of one table with their conditions. */
interface Branch {
  from: string;
  where: string[];
}

/** Whether `query` asks for the removed records' kept copies. */
export function wantsRemoved(query: ContactQuery | OrderQuery, omit: string | undefined): boolean {
  return omit !== 'changed' && (query.changed?.includes('removed') ?? false);
}

/**
 * ORDER BY of a sort as ordering expressions over alias `alias`: the same order as the mirror's
 * positions for that sort (store/positions.ts; ties by id), so a view sorts its mirror rows and the
 * removed rows among each other as the mirror sorts its own, empty values last in both directions.
 * Several keys (sortOrder.ts) order by each key's expression in turn, then by id in the last key's
 * direction.
 */
export function expressionOrder(kind: Resource, alias: string, keys: readonly { column: string; direction: SortDirection }[]): string {
  const defaultOrder = kind === 'contacts' ? CONTACT_DEFAULT_ORDER : ORDER_DEFAULT_ORDER;
  if (keys.length === 0) return qualify(defaultOrder, alias);
  const parts = keys.map((key, i) => {
    const last = i === keys.length - 1;
    const expression = EXPRESSION_SORTS[key.column]?.(alias);
    if (expression) {
      // The empty flag stays ascending: empty values last both ways.
      const ascending = `${expression.terms.join(', ')}${last ? `, ${qualify(TIE, alias)}` : ''}`;
      return `${expression.flag ? `${expression.flag}, ` : ''}${key.direction === 'desc' ? reverse(ascending) : ascending}`;
    }
    const column = (kind === 'contacts' ? CONTACT_SORT : ORDER_SORT)[key.column] ?? 'rowid';
    if (column === 'rowid') {
      // Newest first is the default order; a rowid key before the last orders by its value alone.
      const byValue = last ? defaultOrder : kind === 'contacts' ? 'created_at DESC' : TIE_DESC;
      return qualify(key.direction === 'desc' ? byValue : reverse(byValue), alias);
    }
    return qualify(positionOrder(column, key.direction, last), alias);
  });
  return parts.join(', ');
}

/** Limits `alias`'s rows to a saved view's members by id (removed records are kept by id only). */
function memberCondition(alias: string, scope: ViewScope, params: Record<string, unknown>): string[] {
  if (scope.kind === 'all') return [];
  if (scope.key === null) return ['0'];
  params.vkey = scope.key;
  return [`${alias}.id IN (SELECT id FROM view_members WHERE member_key = :vkey)`];
}

/** The removed contacts `query` selects (its filters but the change filter, its search, its saved view). */
function removedContacts(query: ContactQuery, omit: keyof ContactQuery | undefined, scope: ViewScope, params: Record<string, unknown>): Branch {
  const { changed: _changed, ...rest } = query;
  const match = compileSearch(query.search);
  const p = contactParts(rest, omit, params, match !== null, 'record');
  const where = [...p.conditions, ...memberCondition('c', scope, params)];
  if (match === null) return { from: 'removed_contacts c', where };
  params.rsearch = [`(- {f} : (${match}))`, ...p.tokens].join(' AND ');
  return { from: 'removed_contacts_fts JOIN removed_contacts c ON c.rowid = removed_contacts_fts.rowid', where: ['removed_contacts_fts MATCH :rsearch', ...where] };
}

/** The removed orders `query` selects. */
function removedOrders(query: OrderQuery, omit: keyof OrderQuery | undefined, scope: ViewScope, params: Record<string, unknown>): Branch {
  const { changed: _changed, ...rest } = query;
  const match = compileSearch(query.search);
  const where = [...orderConditions(rest, omit, params, 'removed_order_recipients'), ...memberCondition('o', scope, params)];
  if (match === null) return { from: 'removed_orders o', where };
  params.rsearch = match;
  return { from: 'removed_orders_fts JOIN removed_orders o ON o.rowid = removed_orders_fts.rowid', where: ['removed_orders_fts MATCH :rsearch', ...where] };
}

/**
 * `base` (the mirror's rows of the view, its change condition keeping the added and changed ones)
 * united with the removed records the query selects: one subquery under the view's alias with the
 * mirror's columns, `rowid` (NULL for a removed row) and `outside` (1 for a row that is not the
 * mirror's: removed, or a saved view's member newer than the mirror).
 */
function unite(kind: Resource, base: ViewSql, removed: Branch, keys: readonly { column: string; direction: SortDirection }[]): ViewSql {
  const alias = kind === 'contacts' ? 'c' : 'o';
  const columns = (kind === 'contacts' ? CONTACT_STAGE_COLUMNS : ORDER_STAGE_COLUMNS).map((c) => `${alias}.${c}`).join(', ');
  const where = removed.where.length ? removed.where.join(' AND ') : '1';
  const from = `(SELECT ${alias}.rowid AS rowid, ${base.outside ?? '0'} AS outside, ${columns} FROM ${base.from} WHERE ${base.where}
    UNION ALL SELECT NULL AS rowid, 1 AS outside, ${columns} FROM ${removed.from} WHERE ${where}) ${alias}`;
  const rcols = RECIPIENT_COLUMNS.join(', ');
  return {
    from, where: '1', orderBy: expressionOrder(kind, alias, keys), params: base.params, all: false, outside: `${alias}.outside = 1`,
    recipients: kind === 'contacts' ? base.recipients : `(SELECT ${rcols} FROM ${base.recipients} UNION ALL SELECT ${rcols} FROM removed_order_recipients)`,
  };
}

/** The contact view `base` with the removed contacts `query` asks for. */
export function withRemovedContacts(base: ViewSql, query: ContactQuery, omit: keyof ContactQuery | undefined, scope: ViewScope): ViewSql {
  return unite('contacts', base, removedContacts(query, omit, scope, base.params), sortKeys(query));
}

/** The order view `base` with the removed orders `query` asks for. */
export function withRemovedOrders(base: ViewSql, query: OrderQuery, omit: keyof OrderQuery | undefined, scope: ViewScope): ViewSql {
  return unite('orders', base, removedOrders(query, omit, scope, base.params), sortKeys(query));
}
