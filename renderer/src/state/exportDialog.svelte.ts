/**
 * The state behind the export dialog: what to export (contacts, orders or recipients; the rows of
 * the current view or everything in the cache), which columns, the CSV format (remembered across
 * sessions), and a running export's progress, then its file or its error.
 */
import type { CsvOptions, ExportColumn, ExportKind, ExportRequest, ExportResult } from '../../../shared/contract.ts';
import type { ContactQuery, OrderQuery, RowCount } from '../../../shared/query.ts';
import { bridge, call, errorText } from '../lib/api.ts';
import { loadSetting, saveSetting } from '../lib/storage.ts';
import type { AppState } from './app.svelte.ts';
import { withLocalCreatedDays } from './models.ts';

/** What each kind of export is called in the dialog. */
export const EXPORT_KIND_LABEL: Record<ExportKind, string> = { contacts: 'Contacts', orders: 'Orders', recipients: 'Recipients' };

/** Rows written so far of a running export. */
export interface ExportProgressState {
  done: number;
  total: number;
}

/** One export dialog's state; the dialog component is its markup. */
export class ExportDialogState {
  readonly #app: AppState;
  /** The running export's id, from its first event; it can be cancelled once known. */
  #exportId = $state<string | null>(null);
  /** Set when a cancel was asked before the export's id arrived; the id's arrival then cancels. */
  #cancelWanted = false;

  kind = $state<ExportKind>('contacts');
  /** The rows of the current view (search, filters, sort) or everything in the cache. */
  scope = $state<'view' | 'all'>('view');
  /** The columns this kind offers, in default order. */
  columns = $state.raw<ExportColumn[]>([]);
  /** Column keys to their checkbox. */
  chosen = $state<Record<string, boolean>>({});
  /** Why the columns could not be read, or null. */
  columnsError = $state<string | null>(null);
  delimiter = $state<CsvOptions['delimiter']>('comma');
  bom = $state(false);
  neutralize = $state(true);

  running = $state(false);
  /** Null until the first progress event of a running export. */
  progress = $state<ExportProgressState | null>(null);
  /** The finished export (its file); null while choosing or running. */
  result = $state.raw<ExportResult | null>(null);
  /** Why the export failed, or null. */
  error = $state<string | null>(null);

  /** Keys of the checked columns, in default order. */
  selectedColumns = $derived(this.columns.filter((c) => this.chosen[c.key]).map((c) => c.key));

  /** @param app the app whose contacts and orders views "current view" means */
  constructor(app: AppState) {
    this.#app = app;
    const saved = loadSetting<Partial<CsvOptions>>('export', {});
    this.delimiter = saved.delimiter ?? 'comma';
    this.bom = saved.bom ?? false;
    this.neutralize = saved.neutralizeFormulas ?? true;
  }

  /** The list model of the table this kind of export reads as "current view". */
  get #viewModel(): AppState['contacts'] | AppState['orders'] {
    return this.kind === 'contacts' ? this.#app.contacts : this.#app.orders;
  }

  /** Rows in the current view, once counted. */
  get viewTotal(): RowCount | null {
    return this.#viewModel.total;
  }

  /** A search or filter narrows the current view. */
  get viewFiltered(): boolean {
    return this.#viewModel.activeFilterCount > 0 || this.#viewModel.appliedSearch.trim() !== '';
  }

  /** The running export is known to the main process and can be cancelled. */
  get cancellable(): boolean {
    return this.#exportId !== null;
  }

  /**
   * Starts over as the dialog opens.
   * @param kind what to offer first
   * @param fromView opened from a table, whose rows are then offered first; else everything
   */
  reset(kind: ExportKind, fromView: boolean): void {
    this.kind = kind;
    this.scope = fromView ? 'view' : 'all';
    this.result = null;
    this.error = null;
    this.progress = null;
  }

  /** Reads the columns `kind` offers and checks them all; an answer for another kind is dropped. */
  loadColumns(kind: ExportKind): void {
    this.columnsError = null;
    call('exportColumns', { kind })
      .then((columns) => {
        if (this.kind !== kind) return;
        this.columns = columns;
        this.chosen = Object.fromEntries(columns.map((c) => [c.key, true]));
      })
      .catch((e: unknown) => (this.columnsError = errorText(e)));
  }

  /** Checks every column. */
  selectAll(): void {
    this.chosen = Object.fromEntries(this.columns.map((c) => [c.key, true]));
  }

  /** Unchecks every column. */
  selectNone(): void {
    this.chosen = {};
  }

  /**
   * Follows the main process's export events (the export's id, its progress).
   * @returns stops following
   */
  listen(): () => void {
    const b = bridge();
    if (!b) return () => undefined;
    const offs = [
      b.on('exportStarted', (e) => {
        if (!this.running) return;
        this.#exportId = e.exportId;
        if (this.#cancelWanted) void this.cancel();
      }),
      b.on('exportProgress', (p) => {
        if (this.running && (this.#exportId === null || p.exportId === this.#exportId)) this.progress = { done: p.rowsDone, total: p.rowsTotal };
      }),
    ];
    return () => offs.forEach((off) => off());
  }

  /**
   * Asks where to save, then writes the CSV; remembers the format. Resolves when the export ended:
   * with {@link result} set, or {@link error}, or neither when the save dialog was cancelled.
   */
  async run(): Promise<void> {
    const options: CsvOptions = { delimiter: this.delimiter, bom: this.bom, neutralizeFormulas: this.neutralize };
    saveSetting('export', options);
    const columns = this.selectedColumns.length === this.columns.length ? null : this.selectedColumns;
    const kind = this.kind;
    const all = this.scope !== 'view';
    let request: ExportRequest;
    if (kind === 'contacts') {
      request = { kind, query: all ? null : withLocalCreatedDays($state.snapshot(this.#app.contacts.query) as ContactQuery), columns, options };
    } else {
      request = { kind, query: all ? null : ($state.snapshot(this.#app.orders.query) as OrderQuery), columns, options };
    }
    this.running = true;
    this.#cancelWanted = false;
    this.error = null;
    this.result = null;
    this.progress = null;
    this.#exportId = null;
    try {
      const result = await call('exportCsv', request);
      this.result = result.path === null ? null : result; // save dialog cancelled: stay in the form
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.running = false;
    }
  }

  /** Cancels the running export (once its id is known, at once or when it arrives). */
  async cancel(): Promise<void> {
    this.#cancelWanted = true;
    if (this.#exportId) await call('cancelExport', { exportId: this.#exportId }).catch(() => undefined);
  }

  /**
   * The dialog is closing: an export still running is cancelled, since nothing would show its
   * progress or say how it ended (its file, or its error).
   */
  abandon(): void {
    if (this.running) void this.cancel();
  }

  /** Shows the exported file in the system's file manager. */
  async showInFolder(path: string): Promise<void> {
    try {
      await call('showInFolder', { path });
    } catch (e) {
      this.error = errorText(e);
    }
  }
}
