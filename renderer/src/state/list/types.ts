/**
 * The shapes a list view's state is made of and hands out: what a view plugs in (its contract
 * calls), its sort keys, the settings a saved view keeps, and where the person was (for Back).
 */
import type { RowCount, RowPage, RowWindow } from '../../../../shared/query.ts';
import type { ColumnLayout } from '../../lib/columns.ts';
import type { RowSelection } from '../../lib/selection.ts';

/** The calls a list view needs; the two views plug in their contract calls. */
export interface ListSource<Row, Query, Facets, Filters> {
  /** Which view: also the localStorage key of its settings. */
  name: 'contacts' | 'orders';
  page(query: Query, window: RowWindow): Promise<RowPage<Row>>;
  count(query: Query): Promise<RowCount>;
  facets(query: Query): Promise<Facets>;
  /**
   * Filters that cannot match anything by their nature (a date range that ends before it starts):
   * what to tell the person and which filter fields to leave out of the query meanwhile.
   */
  check?(filters: Filters): FilterProblem<Filters> | null;
  /** The query's filter fields: what a saved view's settings may set (anything else in them is ignored). */
  filterKeys: readonly (keyof Filters & string)[];
  /** Filter fields that say how another filter combines (labels: any or all), not filters of their own: never counted as active. */
  modeKeys?: readonly (keyof Filters & string)[];
  /**
   * Keys of the view's columns hidden until the person shows them (Columns menu), so the columns
   * shown at first fit a usual window beside the filters.
   */
  defaultHidden?: readonly string[];
}

/**
 * A saved view's local settings as the list keeps them (shared/views.ts `ViewLocalSettings`): the
 * list's query without `view` — search, filters, sort, as the command line's `--view` reads it —
 * and the column layout.
 */
export interface ListSettings {
  query: Record<string, unknown>;
  layout: ColumnLayout;
}

/** Filter values that cannot be meant as they stand. */
export interface FilterProblem<Filters> {
  message: string;
  /** Fields left out of the query until they are fixed. */
  drop: (keyof Filters)[];
}

/** Sort state of a view. */
export interface SortState<Column extends string> {
  column: Column;
  direction: 'asc' | 'desc';
}

/** The query a list sends: its filters, search and sort keys, and the saved view it is limited to. */
export type ListQueryShape<Filters, Column extends string> = Filters & { search?: string; sort?: SortState<Column>; thenBy?: SortState<Column>[]; view?: string };

/** How a key press or click moves the current row: alone, extending the selection, or without selecting. */
export type CursorMode = 'select' | 'extend' | 'move';

/** Where the table should scroll: a row at the top, at the nearest edge, or in the middle. */
export interface ScrollRequest {
  index: number;
  align: 'top' | 'nearest' | 'center';
}

/**
 * Where a person was in a view: what Back returns to. Plain data (the selection's open end is
 * `Infinity`, so it is kept in memory, not serialised).
 */
export interface ListSnapshot<Filters, Column extends string> {
  searchText: string;
  filters: Filters;
  sort: SortState<Column> | null;
  thenBy: SortState<Column>[];
  selection: RowSelection;
  anchor: number;
  cursor: number;
  detailId: string | null;
  /** The scroll position: the row at the top of the table, with the fraction of it scrolled past. */
  top: number;
  /** The saved view the list was limited to, or null. */
  viewId: string | null;
  layout: ColumnLayout;
  /** The settings that view had when it was opened or last saved (JSON), or null. */
  savedSettings: string | null;
}

/** JSON with every object's keys sorted: equal settings give equal text, whatever order they were set in. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
