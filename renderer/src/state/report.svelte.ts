/**
 * A printable list: a table's view as a report (its columns in the table's order, a header with
 * the view's name, search and filters, page numbers), or one order with its recipients. The rows
 * are read from the cache when the report opens; Print… or Save as PDF print only the report.
 */
import type { RowPage, RowWindow } from '../../../shared/query.ts';
import { call, errorText } from '../lib/api.ts';
import type { Column } from '../lib/columns.ts';

/** Most rows a report prints (a longer list is an export, not a printout). */
export const MAX_REPORT_ROWS = 5000;
/** Rows read a call. */
const WINDOW = 1000;

/** One column of the report. */
export interface ReportColumn {
  title: string;
  align: 'left' | 'right' | 'center';
}

/** A label and its value above the table (an order's fields). */
export interface ReportField {
  label: string;
  value: string;
}

export class ReportState {
  open = $state(false);
  title = $state('');
  /** The view's search and filters, one line each ("State: Texas"). */
  filters = $state.raw<string[]>([]);
  /** Fields above the table (an order's), or none. */
  fields = $state.raw<ReportField[]>([]);
  columns = $state.raw<ReportColumn[]>([]);
  rows = $state.raw<string[][]>([]);
  /** Rows of the view: more than `rows` when it holds more than {@link MAX_REPORT_ROWS}. */
  total = $state(0);
  loading = $state(false);
  error = $state<string | null>(null);
  saving = $state(false);
  /** When the report was made, ms since the epoch (its header says so). */
  madeAt = $state(Date.now());

  /**
   * Opens a table's view as a report: its first {@link MAX_REPORT_ROWS} rows in view order, in the columns shown.
   * @param page the table's read of a window of rows for its current query
   */
  async showTable<Row>(title: string, filters: string[], columns: readonly Column<Row>[], page: (window: RowWindow) => Promise<RowPage<Row>>): Promise<void> {
    this.#begin(title, filters, columns.map((c) => ({ title: c.title, align: c.align ?? 'left' })), []);
    try {
      const rows: string[][] = [];
      let total = 0;
      for (let offset = 0; offset < MAX_REPORT_ROWS; offset += WINDOW) {
        const answer = await page({ offset, limit: Math.min(WINDOW, MAX_REPORT_ROWS - offset) });
        total = answer.total.count;
        for (const row of answer.rows) rows.push(columns.map((c) => c.text(row)));
        if (answer.rows.length < WINDOW || rows.length >= total) break;
      }
      this.rows = rows;
      this.total = Math.max(total, rows.length);
    } catch (error) {
      this.error = errorText(error);
    } finally {
      this.loading = false;
    }
  }

  /** Opens one record as a report: its fields, then a table of its parts (an order's recipients). */
  showRecord(title: string, fields: ReportField[], columns: ReportColumn[], rows: string[][]): void {
    this.#begin(title, [], columns, fields);
    this.rows = rows;
    this.total = rows.length;
    this.loading = false;
  }

  #begin(title: string, filters: string[], columns: ReportColumn[], fields: ReportField[]): void {
    this.title = title;
    this.filters = filters;
    this.fields = fields;
    this.columns = columns;
    this.rows = [];
    this.total = 0;
    this.error = null;
    this.loading = true;
    this.madeAt = Date.now();
    this.open = true;
  }

  close(): void {
    this.open = false;
    this.rows = [];
  }

  print(): void {
    window.print();
  }

  /**
   * Saves the report as a PDF where the person chooses.
   * @returns the path and its pages, or null when the person cancelled
   * @throws DisplayError when it could not be written
   */
  async savePdf(): Promise<{ path: string; pages: number } | null> {
    this.saving = true;
    try {
      const { path, pages } = await call('savePrintPdf', { what: 'list' });
      return path ? { path, pages } : null;
    } finally {
      this.saving = false;
    }
  }
}
