/**
 * Column definitions for the virtualized table.
 */

/** One column of a {@link DataTable}. */
export interface Column<Row> {
  key: string;
  title: string;
  /** Default width in px (the user's resized width is remembered per profile). */
  width: number;
  minWidth?: number;
  /** The sort column this header sorts by; absent = not sortable. */
  sortKey?: string;
  align?: 'left' | 'right' | 'center';
  mono?: boolean;
  /** The cell's text (also its accessible name and tooltip). */
  text: (row: Row) => string;
}
