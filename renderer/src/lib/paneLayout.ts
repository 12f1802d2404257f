/**
 * How a list view shares its width between the filter pane, the table and the detail panel, so
 * that the table keeps a usable width at every window size: the table comes first, then the open
 * record's detail, then the filters.
 */

/** Narrowest the table may get beside the panes (px). */
export const MIN_TABLE_WIDTH = 480;

/** What the layout is decided from (widths in CSS px). */
export interface PaneInput {
  /** Width of the view's content area (below the toolbar, right of the sidebar). */
  width: number;
  /** The person wants the filter pane shown. */
  filtersOpen: boolean;
  filterWidth: number;
  /** A record's detail is open. */
  detailOpen: boolean;
  detailWidth: number;
}

/** Where each pane goes. */
export interface PaneLayout {
  /**
   * `docked`: beside the table. `folded`: wanted, but there is no room beside the table: the
   * Filters button opens it as a drawer over the table. `hidden`: the person closed it.
   */
  filters: 'docked' | 'folded' | 'hidden';
  /** `docked`: beside the table. `overlay`: over the table's right side (narrow windows). */
  detail: 'docked' | 'overlay' | 'none';
}

/** Decides where the filter pane and the detail go for the space there is. */
export function paneLayout(input: PaneInput): PaneLayout {
  const detail: PaneLayout['detail'] = !input.detailOpen ? 'none' : input.width - input.detailWidth >= MIN_TABLE_WIDTH ? 'docked' : 'overlay';
  // A detail over the table means the window is narrow: the filters fold too.
  const room = detail === 'overlay' ? -Infinity : input.width - input.filterWidth - (detail === 'docked' ? input.detailWidth : 0);
  const filters: PaneLayout['filters'] = !input.filtersOpen ? 'hidden' : room >= MIN_TABLE_WIDTH ? 'docked' : 'folded';
  return { filters, detail };
}
