/**
 * The rows of a CSV export, read from the cache: the export's columns over the view SQL
 * (list.ts), so "export the current view" reads exactly the rows of the view in view order;
 * recipients follow their order's view order, then their position in the order. The rows stream
 * from one prepared statement (`iterate()` + `raw()`, one row in memory at a time) on a snapshot
 * connection (store/snapshot.ts). Writing them (CSV, the file, progress) is export/write.ts's part.
 */
import type Database from 'better-sqlite3';
import type { AnyExportKind, ExportRequest } from '../../../../shared/contract.ts';
import type { StatusNames } from '../../../../shared/statusNames.ts';
import { resolveColumns, type ExportColumnDef } from './exportColumns.ts';
import { chained, orderedParts, splitParams } from './emptyOrder.ts';
import { openSnapshot } from '../store/snapshot.ts';
import { campaignListSql, templateListSql } from './summaries.ts';
import { duplicateMembersSql } from './duplicates.ts';
import { DEFAULT_DUPLICATE_LEVEL } from '../../../../shared/duplicates.ts';
import { viewScope } from './listScope.ts';
import { ALL_RECORDS, contactViewSql, orderViewSql, type EmptySplit, type ViewScope } from './list.ts';

/**
 * What an export reads: its kind, view query (null = everything), column keys (null = the default
 * ones) and, for orders and recipients, the names of the status codes.
 */
export type ExportSelection = { [K in AnyExportKind]: Pick<Extract<ExportRequest, { kind: K }>, 'kind' | 'query' | 'columns'> & { statusNames?: StatusNames } }[AnyExportKind];

/** The SQL of an export, with its bound parameters and the resolved columns. */
export interface ExportSql {
  /** `SELECT <columns> FROM … WHERE … ORDER BY …` */
  select: string;
  /**
   * The same rows as statements to read one after the other (emptyOrder.ts `orderedParts`): `select`
   * alone, or for a view with a `split` one statement per part, each walking an index; their
   * parameters are `params` and those of `splitParams(db, split)`.
   */
  parts: string[];
  split?: EmptySplit;
  /** `SELECT count(*) FROM … WHERE …` */
  count: string;
  params: Record<string, unknown>;
  columns: ExportColumnDef[];
}

/** A cell as SQLite returns it. */
export type ExportCell = string | number | bigint | Uint8Array | null;

/**
 * Builds the SQL of an export from the view SQL of the cache.
 * @param scope the records of the selection's saved view (`query.view`, resolved by listScope.ts
 *   on the connection that reads); default every record
 * @throws LetterdeskError VALIDATION for an unknown or repeated column key (exportColumns.ts)
 */
export function exportSql(selection: ExportSelection, scope: ViewScope = ALL_RECORDS): ExportSql {
  const columns = resolveColumns(selection.kind, selection.columns);
  let view: { from: string; where: string; orderBy: string; params: Record<string, unknown>; split?: EmptySplit };
  let from: string;
  // Recipients follow their order's place, then their position in the order.
  let then = '';
  if (selection.kind === 'contacts') {
    view = contactViewSql(selection.query ?? {}, undefined, scope);
    from = view.from;
  } else if (selection.kind === 'templates' || selection.kind === 'campaigns') {
    view = selection.kind === 'templates' ? templateListSql(selection.query ?? {}) : campaignListSql(selection.query ?? {});
    from = view.from;
  } else if (selection.kind === 'duplicates') {
    view = duplicateMembersSql(selection.query?.level ?? DEFAULT_DUPLICATE_LEVEL);
    from = view.from;
  } else {
    const orders = orderViewSql(selection.query ?? {}, undefined, scope);
    view = orders;
    from = selection.kind === 'orders' ? orders.from : `${orders.from} JOIN ${orders.recipients} r ON r.order_id = o.id`;
    if (selection.kind === 'recipients') then = ', r.position';
  }
  const params = { ...view.params };
  const context = { statusNames: ('statusNames' in selection ? selection.statusNames : undefined) ?? {}, params };
  const list = columns.map((c) => (typeof c.sql === 'string' ? c.sql : c.sql(context))).join(', ');
  const parts = orderedParts(view);
  return {
    select: `SELECT ${list} FROM ${from} WHERE ${view.where} ORDER BY ${view.orderBy}${then}`,
    parts: parts.map((p) => `SELECT ${list} FROM ${from} WHERE ${p.where} ORDER BY ${p.orderBy}${then}`),
    ...(view.split ? { split: view.split } : {}),
    count: `SELECT count(*) FROM ${from} WHERE ${view.where}`,
    params,
    columns,
  };
}

/** An export's rows being read: the columns, the row count and the rows, all of one snapshot. */
export interface ExportRows {
  readonly kind: AnyExportKind;
  readonly columns: readonly ExportColumnDef[];
  /** Rows the export will read (counted in the same snapshot). */
  readonly total: number;
  /** The rows in view order, one array of cells per row in column order; iterate once. */
  readonly rows: IterableIterator<ExportCell[]>;
  /** Stops reading, ends the snapshot and closes its connection (idempotent). */
  close(): void;
}

/**
 * Opens the rows of an export on a read-only connection to the file of `db` (the caller's
 * connection stays free for other queries meanwhile). Close it when done, read to the end or not.
 * @param db an open cache connection
 * @throws LetterdeskError VALIDATION for an unknown or repeated column key; NOT_FOUND for a saved
 *   view that does not exist
 */
export function openExportRows(db: Database.Database, selection: ExportSelection): ExportRows {
  const snapshot = openSnapshot(db);
  try {
    const resource = selection.kind === 'contacts' ? 'contacts' : 'orders';
    const view = selection.kind === 'templates' || selection.kind === 'campaigns' || selection.kind === 'duplicates' ? undefined : selection.query?.view;
    const sql = exportSql(selection, viewScope(snapshot.db, resource, view));
    const total = Number(snapshot.db.prepare(sql.count).pluck().get(sql.params) ?? 0);
    const params = { ...sql.params, ...splitParams(snapshot.db, sql.split) };
    const rows = chained(sql.parts.map((part) => () => snapshot.db.prepare(part).raw(true).iterate(params) as IterableIterator<ExportCell[]>));
    return {
      kind: selection.kind,
      columns: sql.columns,
      total,
      rows,
      close() {
        rows.return?.();
        snapshot.end();
      },
    };
  } catch (error) {
    snapshot.end();
    throw error;
  }
}
