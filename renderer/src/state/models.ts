/**
 * The two list views' sources: contract calls plugged into {@link ListModel}.
 */
import type { ContactFacets, ContactQuery, ContactRow, ContactSortColumn, OrderFacets, OrderQuery, OrderRow, OrderSortColumn } from '../../../shared/query.ts';
import { call } from '../lib/api.ts';
import { ListModel } from './listModel.svelte.ts';

export type ContactFilters = Omit<ContactQuery, 'search' | 'sort'>;
export type OrderFilters = Omit<OrderQuery, 'search' | 'sort'>;
export type ContactsModel = ListModel<ContactRow, ContactFilters, ContactSortColumn, ContactFacets>;
export type OrdersModel = ListModel<OrderRow, OrderFilters, OrderSortColumn, OrderFacets>;

/** A contacts list model backed by `queryContacts` / `countContacts` / `contactFacets`. */
export function createContactsModel(): ContactsModel {
  return new ListModel<ContactRow, ContactFilters, ContactSortColumn, ContactFacets>({
    name: 'contacts',
    page: (query, window) => call('queryContacts', { query, window }),
    count: (query) => call('countContacts', { query }),
    facets: (query) => call('contactFacets', { query }),
  });
}

/** An orders list model backed by `queryOrders` / `countOrders` / `orderFacets`. */
export function createOrdersModel(): OrdersModel {
  return new ListModel<OrderRow, OrderFilters, OrderSortColumn, OrderFacets>({
    name: 'orders',
    page: (query, window) => call('queryOrders', { query, window }),
    count: (query) => call('countOrders', { query }),
    facets: (query) => call('orderFacets', { query }),
  });
}
