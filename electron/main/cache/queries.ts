/**
 * The view queries over the visible snapshot: windows of rows, counts, facets, details, sync
 * status. Synchronous better-sqlite3 calls; the database worker serves them (methods.ts) off the
 * main thread. Each public call reads inside one read transaction, so rows and totals come
 * from the same snapshot even while a sync publishes.
 */
import type Database from 'better-sqlite3';
import type { ContactDetail, OrderDetail, ResourceState, SyncRun } from '../../../shared/contract.ts';
import type {
  ContactFacets,
  ContactQuery,
  ContactRow,
  DeliveredState,
  FacetOption,
  OrderFacets,
  OrderQuery,
  OrderRow,
  RecipientRow,
  RowCount,
  RowPage,
  RowWindow,
  VerifiedState,
} from '../../../shared/query.ts';
import type { Contact, Order, Resource } from '../../../shared/serviceRecords.ts';
import { contactViewSql, orderViewSql, sortPositionColumn, type ViewSql } from './views.ts';

/** Counts above this are answered as a lower bound (`exact: false`, "10,000+") by the window calls. */
export const COUNT_CAP = 10_000;
/** Most options a facet lists. */
const FACET_LIMIT = 200;

const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function stmt(db: Database.Database, sql: string): Database.Statement {
  let map = statementCache.get(db);
  if (!map) {
    map = new Map();
    statementCache.set(db, map);
  }
  let s = map.get(sql);
  if (!s) {
    s = db.prepare(sql);
    if (map.size > 500) map.clear();
    map.set(sql, s);
  }
  return s;
}

function read<T>(db: Database.Database, fn: () => T): T {
  return db.inTransaction ? fn() : db.transaction(fn).deferred();
}

const CONTACT_ROW_COLUMNS =
  'c.id, c.full_name, c.first_name, c.last_name, c.company_name, c.email, c.phone_no, c.extension, c.city, c.state, c.zip, c.labels, c.is_verified, c.is_live_mode, c.created_at';
const ORDER_ROW_COLUMNS =
  'o.id, o.status, o.is_live_mode, o.campaign_name, o.campaign_type, o.campaign_schedule_type, o.campaign_delivery_date, o.product_name, o.product_type, o.template_title, o.recipients, o.delivered';

type Row = Record<string, unknown>;
const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const boolOrNull = (v: unknown): boolean | null => (v === null || v === undefined ? null : v === 1);

function toContactRow(r: Row): ContactRow {
  let labels: string[];
  try {
    labels = JSON.parse(str(r.labels) || '[]') as string[];
  } catch {
    labels = [];
  }
  return {
    id: str(r.id), fullName: str(r.full_name), firstName: str(r.first_name), lastName: str(r.last_name), companyName: str(r.company_name),
    email: str(r.email), phoneNo: str(r.phone_no), extension: str(r.extension), city: str(r.city), state: str(r.state), zip: str(r.zip),
    labels, isVerified: boolOrNull(r.is_verified), isLiveMode: r.is_live_mode === 1, createdAt: str(r.created_at),
  };
}

function toOrderRow(r: Row): OrderRow {
  return {
    id: str(r.id), status: typeof r.status === 'number' ? r.status : 0, isLiveMode: r.is_live_mode === 1, campaignName: str(r.campaign_name),
    campaignType: str(r.campaign_type), scheduleType: str(r.campaign_schedule_type),
    deliveryDate: r.campaign_delivery_date === null || r.campaign_delivery_date === undefined ? null : str(r.campaign_delivery_date),
    productName: str(r.product_name), productType: str(r.product_type), templateTitle: str(r.template_title),
    recipients: Number(r.recipients ?? 0), delivered: Number(r.delivered ?? 0),
  };
}

function toRecipientRow(r: Row): RecipientRow {
  return {
    id: str(r.id), orderId: str(r.order_id), contactId: str(r.contact_id), fullName: str(r.full_name), companyName: str(r.company_name),
    email: str(r.email), phoneNo: str(r.phone_no), address1: str(r.address1), address2: str(r.address2), city: str(r.city), zip: str(r.zip),
    trackingCode: r.tracking_code === null || r.tracking_code === undefined ? null : str(r.tracking_code), isDelivered: r.is_delivered === 1,
    status: r.status === null || r.status === undefined ? null : str(r.status),
  };
}

function tableSize(db: Database.Database, table: 'contacts' | 'orders'): number {
  // rowids are 1..N in default order (publish.ts), so max(rowid) is the row count in O(log n).
  return ((stmt(db, `SELECT max(rowid) AS n FROM ${table}`).get() as { n: number | null }).n ?? 0);
}

/**
 * The view to count. With a search and no other filter, every match of the search index has its
 * row (publish.ts builds and publishes both together), so counting the index alone gives the same
 * number without one lookup into the wide rows per match (an order of magnitude faster for short
 * prefixes on large caches).
 */
function countView(view: ViewSql): ViewSql {
  const fts = /^(contacts_fts|orders_fts) JOIN /.exec(view.from)?.[1];
  return fts !== undefined && view.where === `${fts} MATCH :search` ? { ...view, from: fts } : view;
}

function cappedCount(db: Database.Database, fullView: ViewSql, cap: number): RowCount {
  const view = countView(fullView);
  const n = (stmt(db, `SELECT count(*) AS n FROM (SELECT 1 FROM ${view.from} WHERE ${view.where} LIMIT ${cap + 1})`).get(view.params) as { n: number }).n;
  return n > cap ? { count: cap, exact: false } : { count: n, exact: true };
}

function exactCount(db: Database.Database, fullView: ViewSql): RowCount {
  const view = countView(fullView);
  return { count: (stmt(db, `SELECT count(*) AS n FROM ${view.from} WHERE ${view.where}`).get(view.params) as { n: number }).n, exact: true };
}

function windowRows(db: Database.Database, kind: 'contacts' | 'orders', view: ViewSql, sort: { column: string; direction: 'asc' | 'desc' } | undefined, win: RowWindow): { rows: Row[]; total: RowCount } {
  const table = kind;
  const alias = kind === 'contacts' ? 'c' : 'o';
  const columns = kind === 'contacts' ? CONTACT_ROW_COLUMNS : ORDER_ROW_COLUMNS;
  if (view.where === '1') {
    // Unfiltered: a window is a range lookup on the precomputed positions (O(log n) anywhere).
    const n = tableSize(db, table);
    const col = sortPositionColumn(kind, sort);
    let lo: number;
    let hi: number;
    let dir: string;
    const first = win.offset;
    const last = Math.min(n, win.offset + win.limit) - 1; // 0-based positions in view order
    if (col === 'rowid') {
      const newestFirst = !sort || sort.direction === 'desc';
      [lo, hi, dir] = newestFirst ? [first + 1, last + 1, 'ASC'] : [n - last, n - first, 'DESC'];
    } else {
      [lo, hi, dir] = sort?.direction === 'desc' ? [n - 1 - last, n - 1 - first, 'DESC'] : [first, last, 'ASC'];
    }
    const rows = last < first ? [] : (stmt(db, `SELECT ${columns} FROM ${table} ${alias} WHERE ${alias}.${col} BETWEEN ? AND ? ORDER BY ${alias}.${col} ${dir}`).all(lo, hi) as Row[]);
    return { rows, total: { count: n, exact: true } };
  }
  const searchOnly = countView(view);
  if (searchOnly !== view && view.orderBy === `${searchOnly.from}.rowid` && win.offset + win.limit <= COUNT_CAP) {
    // A search (filters folded into it) in the view's own order, the typeahead case: one pass
    // over the search index gives the page and the capped count. Evaluating the MATCH twice (page,
    // then count) costs twice for a longer prefix, which FTS5 answers by merging the doclists of
    // every matching term.
    const ids = stmt(db, `SELECT rowid FROM ${searchOnly.from} WHERE ${searchOnly.where} ORDER BY rowid LIMIT ${COUNT_CAP + 1}`).pluck().all(view.params) as number[];
    const page = ids.slice(win.offset, win.offset + win.limit);
    const rows = page.length === 0 ? [] : (stmt(db, `SELECT ${columns} FROM ${table} ${alias} WHERE ${alias}.rowid IN (SELECT value FROM json_each(?)) ORDER BY ${alias}.rowid`).all(JSON.stringify(page)) as Row[]);
    return { rows, total: ids.length > COUNT_CAP ? { count: COUNT_CAP, exact: false } : { count: ids.length, exact: true } };
  }
  const rows = stmt(db, `SELECT ${columns} FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT ${win.limit} OFFSET ${win.offset}`).all(view.params) as Row[];
  const total = rows.length < win.limit && (rows.length > 0 || win.offset === 0) ? { count: win.offset + rows.length, exact: true } : cappedCount(db, view, Math.max(COUNT_CAP, win.offset + win.limit));
  return { rows, total };
}

/**
 * A window of the contacts view.
 * @param query search + filters + sort (shared/query.ts)
 * @param win offset/limit in the ordered result
 * @returns the rows and the total; the total is a lower bound (`exact: false`) above {@link COUNT_CAP}
 *   matches — {@link countContacts} gives the exact number
 */
export function queryContacts(db: Database.Database, query: ContactQuery, win: RowWindow): RowPage<ContactRow> {
  return read(db, () => {
    const { rows, total } = windowRows(db, 'contacts', contactViewSql(query), query.sort, win);
    return { rows: rows.map(toContactRow), offset: win.offset, total };
  });
}

/** Exact number of contacts in the view (slower than the capped total on huge match sets). */
export function countContacts(db: Database.Database, query: ContactQuery): RowCount {
  return read(db, () => {
    const view = contactViewSql(query);
    return view.where === '1' ? { count: tableSize(db, 'contacts'), exact: true } : exactCount(db, view);
  });
}

function facet<V>(db: Database.Database, sql: string, params: Record<string, unknown>, map: (r: Row) => FacetOption<V> | null): FacetOption<V>[] {
  return (stmt(db, sql).all(params) as Row[]).map(map).filter((x): x is FacetOption<V> => x !== null);
}

const liveFacet = (r: Row): FacetOption<'live' | 'test'> | null =>
  r.v === 1 ? { value: 'live', label: 'Live', count: Number(r.n) } : r.v === 0 ? { value: 'test', label: 'Test', count: Number(r.n) } : null;

/**
 * Facet counts of the contacts view: for each filter, its options with the number of rows they
 * would match given the other filters and the search (the filter's own selection left out).
 */
export function contactFacets(db: Database.Database, query: ContactQuery): ContactFacets {
  return read(db, () => {
    const lv = contactViewSql(query, 'labels');
    const labelsSql =
      lv.where === '1'
        ? `SELECT l.id AS v, l.title AS t, count(*) AS n FROM contact_labels cl JOIN labels l ON l.id = cl.label_id GROUP BY l.id ORDER BY n DESC, t LIMIT ${FACET_LIMIT}`
        : `SELECT l.id AS v, l.title AS t, count(*) AS n FROM contact_labels cl JOIN labels l ON l.id = cl.label_id
           WHERE cl.contact_id IN (SELECT c.id FROM ${lv.from} WHERE ${lv.where}) GROUP BY l.id ORDER BY n DESC, t LIMIT ${FACET_LIMIT}`;
    const group = (omit: keyof ContactQuery, expr: string) => {
      const v = contactViewSql(query, omit);
      return { sql: `SELECT ${expr} AS v, count(*) AS n FROM ${v.from} WHERE ${v.where} GROUP BY 1 ORDER BY n DESC LIMIT ${FACET_LIMIT}`, params: v.params };
    };
    // No state, '' or NULL, is one option, "(none)" (views.ts matches it as '' or NULL).
    const states = group('states', "coalesce(c.state, '')");
    const verified = group('verified', 'c.is_verified');
    const live = group('liveMode', 'c.is_live_mode');
    return {
      labels: facet(db, labelsSql, lv.params, (r) => ({ value: str(r.v), label: str(r.t), count: Number(r.n) })),
      states: facet(db, states.sql, states.params, (r) => ({ value: str(r.v), label: str(r.v) || '(none)', count: Number(r.n) })),
      verified: facet<VerifiedState>(db, verified.sql, verified.params, (r) =>
        r.v === 1 ? { value: 'yes', label: 'Verified', count: Number(r.n) } : r.v === 0 ? { value: 'no', label: 'Not verified', count: Number(r.n) } : { value: 'unknown', label: 'Unknown', count: Number(r.n) },
      ),
      liveMode: facet(db, live.sql, live.params, liveFacet),
    };
  });
}

/**
 * One contact with the orders that include it (newest first, at most 1,000).
 * @returns null when the id is not in the cache
 */
export function getContact(db: Database.Database, id: string): ContactDetail | null {
  return read(db, () => {
    const row = stmt(db, 'SELECT raw FROM contacts WHERE id = ?').get(id) as { raw: string } | undefined;
    if (!row) return null;
    const view = orderViewSql({ contactId: id });
    const orders = (stmt(db, `SELECT ${ORDER_ROW_COLUMNS} FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT 1000`).all(view.params) as Row[]).map(toOrderRow);
    return { contact: JSON.parse(row.raw) as Contact, orders };
  });
}

/** A window of the orders view (see {@link queryContacts}). */
export function queryOrders(db: Database.Database, query: OrderQuery, win: RowWindow): RowPage<OrderRow> {
  return read(db, () => {
    const { rows, total } = windowRows(db, 'orders', orderViewSql(query), query.sort, win);
    return { rows: rows.map(toOrderRow), offset: win.offset, total };
  });
}

/** Exact number of orders in the view. */
export function countOrders(db: Database.Database, query: OrderQuery): RowCount {
  return read(db, () => {
    const view = orderViewSql(query);
    return view.where === '1' ? { count: tableSize(db, 'orders'), exact: true } : exactCount(db, view);
  });
}

const DELIVERED_EXPR = "CASE WHEN o.recipients > 0 AND o.delivered = o.recipients THEN 'all' WHEN o.delivered > 0 THEN 'some' ELSE 'none' END";
const DELIVERED_LABELS: Record<DeliveredState, string> = { all: 'All delivered', some: 'Some delivered', none: 'None delivered' };

/** Facet counts of the orders view (see {@link contactFacets}). */
export function orderFacets(db: Database.Database, query: OrderQuery): OrderFacets {
  return read(db, () => {
    const group = (omit: keyof OrderQuery, expr: string) => {
      const v = orderViewSql(query, omit);
      return [`SELECT ${expr} AS v, count(*) AS n FROM ${v.from} WHERE ${v.where} GROUP BY 1 ORDER BY n DESC LIMIT ${FACET_LIMIT}`, v.params] as const;
    };
    const text = (r: Row): FacetOption<string> => ({ value: str(r.v), label: str(r.v) || '(none)', count: Number(r.n) });
    return {
      statuses: facet(db, ...group('statuses', 'o.status'), (r) => (typeof r.v === 'number' ? { value: r.v, label: String(r.v), count: Number(r.n) } : null)),
      productTypes: facet(db, ...group('productTypes', 'o.product_type'), text),
      campaignTypes: facet(db, ...group('campaignTypes', 'o.campaign_type'), text),
      scheduleTypes: facet(db, ...group('scheduleTypes', 'o.campaign_schedule_type'), text),
      liveMode: facet(db, ...group('liveMode', 'o.is_live_mode'), liveFacet),
      delivered: facet<DeliveredState>(db, ...group('delivered', DELIVERED_EXPR), (r) => {
        const v = str(r.v) as DeliveredState;
        return { value: v, label: DELIVERED_LABELS[v], count: Number(r.n) };
      }),
    };
  });
}

/**
 * One order with its recipients (in service order).
 * @returns null when the id is not in the cache
 */
export function getOrder(db: Database.Database, id: string): OrderDetail | null {
  return read(db, () => {
    const row = stmt(db, 'SELECT raw FROM orders WHERE id = ?').get(id) as { raw: string } | undefined;
    if (!row) return null;
    const recipients = (stmt(db, 'SELECT * FROM order_recipients WHERE order_id = ? ORDER BY position').all(id) as Row[]).map(toRecipientRow);
    return { order: JSON.parse(row.raw) as Order, recipients };
  });
}

/** Rows and last sync of each resource (what the status call shows). */
export function resourceStates(db: Database.Database): Record<Resource, ResourceState> {
  const rows = stmt(db, 'SELECT * FROM resource_state').all() as Row[];
  const out: Record<Resource, ResourceState> = {
    contacts: { rows: 0, lastSyncedAt: null, lastError: null },
    orders: { rows: 0, lastSyncedAt: null, lastError: null },
  };
  for (const r of rows) {
    const key = r.resource as Resource;
    if (!(key in out)) continue;
    out[key] = {
      rows: Number(r.rows ?? 0),
      lastSyncedAt: (r.last_synced_at as string | null) ?? null,
      lastError: r.last_error_code ? { code: str(r.last_error_code), message: str(r.last_error_message) } : null,
    };
  }
  return out;
}

/** Maps a sync_runs row to a {@link SyncRun}. */
export function toSyncRun(r: Row): SyncRun {
  return {
    runId: str(r.run_id), resource: r.resource as Resource, startedAt: str(r.started_at), endedAt: (r.ended_at as string | null) ?? null,
    outcome: r.outcome as SyncRun['outcome'], rows: Number(r.rows ?? 0), invalidRecords: Number(r.invalid_records ?? 0),
    error: r.error_code ? { code: str(r.error_code), message: str(r.error_message) } : null,
  };
}

/** The most recent sync runs, newest first. */
export function syncHistory(db: Database.Database, limit: number): SyncRun[] {
  return (stmt(db, 'SELECT * FROM sync_runs ORDER BY started_at DESC, rowid DESC LIMIT ?').all(Math.max(1, Math.min(limit, 1000))) as Row[]).map(toSyncRun);
}
