/**
 * What the database worker offers: the methods (one table; client.ts derives its async methods
 * from it) and the jobs' signatures (their implementations are registered by the worker entry,
 * which `satisfies` {@link CacheJobs}). Adding a query is one entry in {@link CACHE_METHODS}. The
 * saved views' methods include writes: they run on the worker's connection like the reads.
 */
import type { ExportRequest } from '../../../../shared/contract.ts';
import type { Job, MethodTable } from './protocol.ts';
import { learnedStatusNames, listKeptFilters } from '../read/kept.ts';
import { setKeptValues } from '../savedViews/keptValues.ts';
import { readPreview } from '../read/previews.ts';
import type { RecordsArgs } from '../read/records.ts';
import { createView, deleteView, duplicateView, getView, listViews, renameView, updateView, viewNewerIds, viewsNamed } from '../savedViews/savedViews.ts';
import { contactFacets, countContacts, countOrders, getContact, getOrder, orderFacets, queryContacts, queryOrders, resourceStates, syncHistory } from '../read/queries.ts';
import { labelAddresses } from '../read/labels.ts';
import { duplicateGroupIds, duplicateGroups } from '../read/duplicates.ts';
import { overview } from '../read/overview.ts';
import { recordTimeline } from '../read/timeline.ts';
import { getCampaign, getTemplate, queryCampaigns, queryTemplates } from '../read/summaries.ts';

/** The methods of the database worker (name → function of the connection). */
export const CACHE_METHODS = {
  queryContacts,
  countContacts,
  contactFacets,
  getContact,
  queryOrders,
  countOrders,
  orderFacets,
  getOrder,
  queryTemplates,
  getTemplate,
  queryCampaigns,
  getCampaign,
  resourceStates,
  syncHistory,
  recordTimeline,
  overview,
  duplicateGroups,
  duplicateGroupIds,
  labelAddresses,
  readPreview,
  listKeptFilters,
  setKeptValues,
  learnedStatusNames,
  listViews,
  getView,
  viewsNamed,
  viewNewerIds,
  createView,
  renameView,
  updateView,
  duplicateView,
  deleteView,
} satisfies MethodTable;

/** The methods' table type. */
export type CacheMethods = typeof CACHE_METHODS;

/** A read method's name. */
export type CacheMethodName = keyof CacheMethods;

/**
 * Methods a startup reader (store/db.ts `openStartupReader`) may answer on the main thread while the
 * database worker starts: the ones bounded by a page or a capped count, quick on any size of cache.
 * Exact counts and facets scan and always wait for the worker.
 */
export const STARTUP_READ_METHODS: ReadonlySet<CacheMethodName> = new Set<CacheMethodName>([
  'queryContacts', 'queryOrders', 'getContact', 'getOrder', 'resourceStates', 'syncHistory', 'listKeptFilters', 'learnedStatusNames', 'listViews', 'getView', 'viewsNamed',
  'queryTemplates', 'getTemplate', 'queryCampaigns', 'getCampaign', 'overview', 'duplicateGroups',
]);

/**
 * Methods that scan a whole view (facet counts: seconds at a million rows for a broad search).
 * The client answers them on a second connection in a worker thread of its own, so that a query
 * asked meanwhile, a keystroke's, never waits behind them (client.ts).
 */
export const SCAN_METHODS: ReadonlySet<CacheMethodName> = new Set<CacheMethodName>(['contactFacets', 'orderFacets']);

/** Progress of a CSV export. */
export interface ExportProgressValue {
  rowsDone: number;
  rowsTotal: number;
}

export type { RecordsArgs } from '../read/records.ts';

/**
 * The jobs of the database worker. The cache declares them so that the client is typed; the
 * worker entry registers an implementation of each (`satisfies CacheJobs`).
 */
export type CacheJobs = {
  /** A CSV file of a view at `path`, written atomically; progress in rows (export/write.ts). */
  exportFile: Job<{ request: ExportRequest; path: string }, ExportProgressValue, { rows: number; sheets?: string[] }>;
  /** The raw JSON of a view's records in view order; each progress value is a chunk of them (read/records.ts). */
  records: Job<RecordsArgs, string[], { rows: number }>;
};
