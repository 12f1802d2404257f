/**
 * The columns an export offers (keys, headers, cell types), for the export dialog and the command
 * line's help. The table itself lives in the cache (cache/read/exportColumns.ts), which reads each
 * column with its SQL expression.
 */
export { exportColumns, LABEL_SEPARATOR, resolveColumns, type ExportCellType, type ExportColumnDef } from '../cache/read/exportColumns.ts';
