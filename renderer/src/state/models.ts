/**
 * The two list views' sources: contract calls plugged into {@link ListModel}.
 */
import type { ContactFacets, ContactQuery, ContactRow, ContactSortColumn, OrderFacets, OrderQuery, OrderRow, OrderSortColumn } from '../../../shared/query.ts';
import { call } from '../lib/api.ts';
import { ListModel, type FilterProblem } from './listModel.svelte.ts';

export type ContactFilters = Omit<ContactQuery, 'search' | 'sort'>;
export type OrderFilters = Omit<OrderQuery, 'search' | 'sort'>;
export type ContactsModel = ListModel<ContactRow, ContactFilters, ContactSortColumn, ContactFacets>;
export type OrdersModel = ListModel<OrderRow, OrderFilters, OrderSortColumn, OrderFacets>;

/** Where local day `day` (YYYY-MM-DD) plus `plusDays` begins, as an ISO instant (DST included). */
function localDayStart(day: string, plusDays: number): string {
  const [y = 1970, m = 1, d = 1] = day.split('-').map(Number);
  const start = new Date(y, m - 1, d + plusDays);
  start.setFullYear(y, m - 1, d + plusDays); // years 0–99 too (the constructor maps them to 19xx)
  return start.toISOString();
}

/**
 * A contact query as the app sends it: the Created filter's days are the person's own days, as the
 * table and the detail show createdAt in local time, so they become the instants where those days
 * begin and end here (`createdAfter`/`createdBefore`) instead of the contract's UTC days. The view
 * keeps the days (the date inputs show them); views, counts, facets and exports all send this.
 */
export function withLocalCreatedDays(query: ContactQuery): ContactQuery {
  const { createdFrom, createdTo, ...rest } = query;
  const out: ContactQuery = { ...rest };
  if (createdFrom) out.createdAfter = localDayStart(createdFrom, 0);
  if (createdTo) out.createdBefore = localDayStart(createdTo, 1);
  return out;
}

/**
 * A Created range whose first day is after its last matches nothing by its nature: the person
 * swapped the dates or is still picking them. The range is left out of the query until it is fixed.
 */
export function checkContactFilters(filters: ContactFilters): FilterProblem<ContactFilters> | null {
  const { createdFrom, createdTo } = filters;
  if (createdFrom && createdTo && createdFrom > createdTo) {
    return { message: 'The Created range starts after it ends: choose a “From” day on or before the “To” day.', drop: ['createdFrom', 'createdTo'] };
  }
  return null;
}

/** A contacts list model backed by `queryContacts` / `countContacts` / `contactFacets`. */
export function createContactsModel(): ContactsModel {
  return new ListModel<ContactRow, ContactFilters, ContactSortColumn, ContactFacets>({
    name: 'contacts',
    page: (query, window) => call('queryContacts', { query: withLocalCreatedDays(query), window }),
    count: (query) => call('countContacts', { query: withLocalCreatedDays(query) }),
    facets: (query) => call('contactFacets', { query: withLocalCreatedDays(query) }),
    check: checkContactFilters,
    modeKeys: ['labelsMode'],
    filterKeys: ['labels', 'labelsMode', 'states', 'verified', 'liveMode', 'createdFrom', 'createdTo', 'createdAfter', 'createdBefore', 'changed', 'invalidOnly', 'kept', 'timesMailed', 'duplicates'],
    // ContactsView's columns: the second address line and the deliveries are in the Columns menu.
    defaultHidden: ['line2', 'deliveredCount'],
  });
}

/** An orders list model backed by `queryOrders` / `countOrders` / `orderFacets`. */
export function createOrdersModel(): OrdersModel {
  return new ListModel<OrderRow, OrderFilters, OrderSortColumn, OrderFacets>({
    name: 'orders',
    page: (query, window) => call('queryOrders', { query, window }),
    count: (query) => call('countOrders', { query }),
    facets: (query) => call('orderFacets', { query }),
    filterKeys: ['statuses', 'productTypes', 'envelopeTypes', 'postageTypes', 'campaignTypes', 'scheduleTypes', 'liveMode', 'delivered', 'deliveredSince', 'deliveredBetween', 'firstSeenBetween', 'contactId', 'templateId', 'campaignId', 'changed', 'invalidOnly', 'kept'],
    // OrdersView's columns: "Delivered" already says how many recipients, and the mode and the
    // schedule are in the filters; without them the rest fit beside the filters at 1360 px.
    defaultHidden: ['recipients', 'liveMode', 'schedule'],
  });
}
