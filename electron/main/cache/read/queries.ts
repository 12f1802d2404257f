/**
 * The view queries over the visible snapshot: windows of rows, counts, facets, details, sync
 * status. Synchronous better-sqlite3 calls; the database worker serves them (worker/methods.ts) off the
 * main thread. Each public call reads inside one read transaction, so rows and totals come
 * from the same snapshot even while a sync publishes.
 */
import type Database from 'better-sqlite3';
import type { ResourceState, SyncRun } from '../../../../shared/contract.ts';
import type { ContactQuery, ContactRow, OrderQuery, OrderRow, RowCount, RowPage, RowWindow } from '../../../../shared/query.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { CONTACT_ROW_COLUMNS, ORDER_ROW_COLUMNS, read, stmt, str, toContactRow, toOrderRow, type Row } from './rows.ts';
import { descendingRanges, firstEmptyMember, firstEmptyPosition, orderedParts, partParams } from './emptyOrder.ts';
import { materializedOrder } from './materializedOrder.ts';
import { isSimpleSort } from './sortOrder.ts';
import { viewScope } from './listScope.ts';
import { contactViewSql, orderViewSql, sortPositionColumn, type ViewSql } from './list.ts';
import { toSyncRun } from '../store/syncRuns.ts';
import { historyReadable } from './timeline.ts';

export { contactFacets, orderFacets } from './facets.ts';
export { getContact, getOrder } from './details.ts';

/** Counts above this are answered as a lower bound (`exact: false`, "10,000+") by the window calls. */
export const COUNT_CAP = 10_000;

function tableSize(db: Database.Database, table: 'contacts' | 'orders'): number {
  // rowids are 1..N in default order (build/publish.ts), so max(rowid) is the row count in O(log n).
  return ((stmt(db, `SELECT max(rowid) AS n FROM ${table}`).get() as { n: number | null }).n ?? 0);
}

/**
 * The view to count. When the view is exactly a search index's matches, every match has its row
 * (build/publish.ts builds and publishes both together; a saved view's index with its rows), so counting
 * the index alone gives the same number without one lookup into the wide rows per match (an order
 * of magnitude faster for short prefixes on large caches).
 */
function countView(view: ViewSql): ViewSql {
  return view.index ? { ...view, from: view.index.from, where: view.index.where } : view;
}

function cappedCount(db: Database.Database, fullView: ViewSql, cap: number): RowCount {
  const view = countView(fullView);
  const n = (stmt(db, `SELECT count(*) AS n FROM (SELECT 1 FROM ${view.from} WHERE ${view.where} LIMIT ${cap + 1})`).get(view.params) as { n: number }).n;
  return n > cap ? { count: cap, exact: false } : { count: n, exact: true };
}

function exactCount(db: Database.Database, fullView: ViewSql): RowCount {
  if (fullView.known !== undefined) return { count: fullView.known, exact: true };
  const view = countView(fullView);
  return { count: (stmt(db, `SELECT count(*) AS n FROM ${view.from} WHERE ${view.where}`).get(view.params) as { n: number }).n, exact: true };
}

/**
 * A window of the view's rows read part by part (emptyOrder.ts `orderedParts`): each part's rows
 * from the offset left after the parts before it. A part that returns no row is counted to know
 * how many of the offset it used.
 */
function partRows(db: Database.Database, view: ViewSql, columns: string, win: RowWindow): Row[] {
  const parts = orderedParts(view);
  const params = partParams(db, view);
  const rows: Row[] = [];
  let skip = win.offset;
  for (const [i, part] of parts.entries()) {
    const want = win.limit - rows.length;
    if (want <= 0) break;
    const got = stmt(db, `SELECT ${columns} FROM ${view.from} WHERE ${part.where} ORDER BY ${part.orderBy} LIMIT ${want} OFFSET ${skip}`).all(params) as Row[];
    rows.push(...got);
    if (got.length === want || i === parts.length - 1) continue;
    // This part ended inside the window (it had skip + got rows), or before it.
    skip = got.length > 0 ? 0 : Math.max(0, skip - (stmt(db, `SELECT count(*) FROM ${view.from} WHERE ${part.where}`).pluck().get(params) as number));
  }
  return rows;
}

function windowRows(db: Database.Database, kind: 'contacts' | 'orders', fullView: ViewSql, query: ContactQuery | OrderQuery, win: RowWindow): { rows: Row[]; total: RowCount } {
  const table = kind;
  const alias = kind === 'contacts' ? 'c' : 'o';
  const columns = kind === 'contacts' ? CONTACT_ROW_COLUMNS : ORDER_ROW_COLUMNS;
  const sort = query.sort;
  let view = fullView;
  const searched = `${table}_fts JOIN ${table} ${alias} ON ${alias}.rowid = ${table}_fts.rowid`;
  if (!isSimpleSort(query) && view.from === searched) {
    // A search of the mirror under several sort keys: its matches sorted by their places in the
    // mirror's order under this sort (materialized once per snapshot), an integer each.
    const order = materializedOrder(db, table, alias, view.orderBy);
    view = { ...view, from: `${view.from} JOIN ${order} x ON x.row = ${alias}.rowid`, orderBy: 'x.pos' };
  } else if (!isSimpleSort(query) && view.from === `${table} ${alias}`) {
    // Several sort keys over the mirror's rows (filtered by row conditions or not): walk the
    // mirror's order under this sort, materialized once per snapshot, as a position.
    const order = materializedOrder(db, table, alias, view.orderBy);
    if (view.all) {
      const n = tableSize(db, table);
      const last = Math.min(n, win.offset + win.limit) - 1;
      const rows = last < win.offset ? [] : (stmt(db, `SELECT ${columns} FROM ${order} x CROSS JOIN ${table} ${alias} ON ${alias}.rowid = x.row
        WHERE x.pos BETWEEN ? AND ? ORDER BY x.pos`).all(win.offset + 1, last + 1) as Row[]);
      return { rows, total: { count: n, exact: true } };
    }
    view = { ...view, from: `${order} x CROSS JOIN ${table} ${alias} ON ${alias}.rowid = x.row`, orderBy: 'x.pos' };
  }
  if (view.ranked) {
    // A saved view's members, unfiltered: ranges of their positions among the members.
    const n = view.known ?? 0;
    const col = sortPositionColumn(kind, sort);
    const first = win.offset;
    const last = Math.min(n, win.offset + win.limit) - 1;
    const ascending = col === 'rowid' ? !sort || sort.direction === 'desc' : sort?.direction !== 'desc';
    const pos = col === 'rowid' ? 'pos_row' : col;
    const vkey = view.params.vkey as number;
    // Descending: the non-empty members downwards, then the empty ones (emptyOrder.ts).
    const ranges = last < first ? [] : ascending ? [{ lo: first, hi: last }]
      : descendingRanges(first, last, n, col === 'rowid' ? n : firstEmptyMember(db, kind, view.ranked.table, vkey, col, n));
    const range = stmt(db, `SELECT ${columns} FROM ${view.ranked.table} vm CROSS JOIN ${table} ${alias} ON ${alias}.rowid = vm.row
      WHERE vm.member_key = :vkey AND vm.${pos} BETWEEN :lo AND :hi ORDER BY vm.${pos} ${ascending ? 'ASC' : 'DESC'}`);
    const rows = ranges.flatMap(({ lo, hi }) => range.all({ vkey, lo, hi }) as Row[]);
    return { rows, total: { count: n, exact: true } };
  }
  if (view.all) {
    // Unfiltered: a window is one or two range lookups on the precomputed positions (O(log n) anywhere).
    const n = tableSize(db, table);
    const col = sortPositionColumn(kind, sort);
    let ranges: { lo: number; hi: number }[];
    let dir: string;
    const first = win.offset;
    const last = Math.min(n, win.offset + win.limit) - 1; // 0-based positions in view order
    if (col === 'rowid') {
      const newestFirst = !sort || sort.direction === 'desc';
      [ranges, dir] = newestFirst ? [[{ lo: first + 1, hi: last + 1 }], 'ASC'] : [[{ lo: n - last, hi: n - first }], 'DESC'];
    } else if (sort?.direction === 'desc') {
      // The non-empty rows downwards, then the empty ones (emptyOrder.ts).
      [ranges, dir] = [descendingRanges(first, last, n, firstEmptyPosition(db, kind, col)), 'DESC'];
    } else {
      [ranges, dir] = [[{ lo: first, hi: last }], 'ASC'];
    }
    const range = stmt(db, `SELECT ${columns} FROM ${table} ${alias} WHERE ${alias}.${col} BETWEEN ? AND ? ORDER BY ${alias}.${col} ${dir}`);
    const rows = last < first ? [] : ranges.flatMap(({ lo, hi }) => range.all(lo, hi) as Row[]);
    return { rows, total: { count: n, exact: true } };
  }
  const index = view.index;
  if (index && view.orderBy === `${index.from}.rowid` && win.offset + win.limit <= COUNT_CAP) {
    // A search (filters folded into it) in the view's own order, the typeahead case: one pass
    // over the search index gives the page and the capped count. Evaluating the MATCH twice (page,
    // then count) costs twice for a longer prefix, which FTS5 answers by merging the doclists of
    // every matching term.
    const ids = stmt(db, `SELECT ${index.row} FROM ${index.from} WHERE ${index.where} ORDER BY rowid LIMIT ${COUNT_CAP + 1}`).pluck().all(view.params) as number[];
    const page = ids.slice(win.offset, win.offset + win.limit);
    const rows = page.length === 0 ? [] : (stmt(db, `SELECT ${columns} FROM ${table} ${alias} WHERE ${alias}.rowid IN (SELECT value FROM json_each(?)) ORDER BY ${alias}.rowid`).all(JSON.stringify(page)) as Row[]);
    return { rows, total: ids.length > COUNT_CAP ? { count: COUNT_CAP, exact: false } : { count: ids.length, exact: true } };
  }
  const rows = partRows(db, view, columns, win);
  const total = rows.length < win.limit && (rows.length > 0 || win.offset === 0)
    ? { count: win.offset + rows.length, exact: true }
    : view.known !== undefined ? { count: view.known, exact: true } : cappedCount(db, view, Math.max(COUNT_CAP, win.offset + win.limit));
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
    const { rows, total } = windowRows(db, 'contacts', contactViewSql(query, undefined, viewScope(db, 'contacts', query.view)), query, win);
    return { rows: rows.map(toContactRow), offset: win.offset, total };
  });
}

/** Exact number of contacts in the view (slower than the capped total on huge match sets). */
export function countContacts(db: Database.Database, query: ContactQuery): RowCount {
  return read(db, () => {
    const view = contactViewSql(query, undefined, viewScope(db, 'contacts', query.view));
    return view.all ? { count: tableSize(db, 'contacts'), exact: true } : exactCount(db, view);
  });
}

/** A window of the orders view (see {@link queryContacts}). */
export function queryOrders(db: Database.Database, query: OrderQuery, win: RowWindow): RowPage<OrderRow> {
  return read(db, () => {
    const { rows, total } = windowRows(db, 'orders', orderViewSql(query, undefined, viewScope(db, 'orders', query.view)), query, win);
    return { rows: rows.map(toOrderRow), offset: win.offset, total };
  });
}

/** Exact number of orders in the view. */
export function countOrders(db: Database.Database, query: OrderQuery): RowCount {
  return read(db, () => {
    const view = orderViewSql(query, undefined, viewScope(db, 'orders', query.view));
    return view.all ? { count: tableSize(db, 'orders'), exact: true } : exactCount(db, view);
  });
}

/**
 * Rows, records kept as invalid (counted from the partial indexes of migration 006, without reading
 * the rows) and last sync of each resource (what the status call shows).
 */
export function resourceStates(db: Database.Database): Record<Resource, ResourceState> {
  return read(db, () => {
    const rows = stmt(db, 'SELECT * FROM resource_state').all() as Row[];
    const out: Record<Resource, ResourceState> = {
      contacts: { rows: 0, invalidRecords: 0, lastSyncedAt: null, lastError: null },
      orders: { rows: 0, invalidRecords: 0, lastSyncedAt: null, lastError: null },
    };
    for (const r of rows) {
      const key = r.resource as Resource;
      if (!(key in out)) continue;
      out[key] = {
        rows: Number(r.rows ?? 0),
        invalidRecords: stmt(db, `SELECT count(*) FROM ${key} WHERE invalid_reason IS NOT NULL`).pluck().get() as number,
        lastSyncedAt: (r.last_synced_at as string | null) ?? null,
        lastError: r.last_error_code ? { code: str(r.last_error_code), message: str(r.last_error_message) } : null,
        source: typeof r.source_origin === 'string' ? { origin: r.source_origin, accountId: (r.source_account_id as string | null) ?? null } : null,
      };
    }
    return out;
  });
}
/** The most recent sync runs, newest first, each with what it stored in the observed history. */
/** The most recent sync runs, newest first. */
export function syncHistory(db: Database.Database, limit: number): SyncRun[] {
  // What each run stored in the observed history, when the history can be read.
  const observed = historyReadable(db)
    ? `SELECT s.*, h.observations AS h_observations, h.bytes AS h_bytes FROM sync_runs s
        LEFT JOIN history.observation_runs h ON h.run_id = s.run_id AND h.resource = s.resource`
    : 'SELECT * FROM sync_runs s';
  return (stmt(db, `${observed} ORDER BY s.started_at DESC, s.rowid DESC LIMIT ?`).all(Math.max(1, Math.min(limit, 1000))) as Row[]).map(toSyncRun);
}
