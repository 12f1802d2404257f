/**
 * The state behind the export dialog: what to export (contacts, orders or recipients; the rows of
 * the current view, the rows selected in it, or everything in the cache; or the templates or
 * campaigns, as their view lists them or all of them), which columns, the file format (CSV with
 * its options, or an Excel workbook), each remembered per kind across sessions, and a running
 * export's progress, then its file or its error.
 */
import { DEFAULT_DUPLICATE_LEVEL, type DuplicateLevel } from '../../../shared/duplicates.ts';
import type { AnyExportKind, CsvOptions, ExportColumn, ExportFormat, ExportRequest, ExportResult } from '../../../shared/contract.ts';
import type { CampaignQuery, TemplateQuery } from '../../../shared/summaries.ts';
import { MAX_QUERY_IDS } from '../../../shared/queryLimits.ts';
import type { ContactQuery, OrderQuery, RowCount } from '../../../shared/query.ts';
import { bridge, call, errorText } from '../lib/api.ts';
import { orderedColumns } from '../lib/columns.ts';
import { formatCount } from '../lib/format.ts';
import { count } from '../lib/selection.ts';
import type { AppState } from './app.svelte.ts';
import { withLocalCreatedDays } from './models.ts';
import { Persisted } from './persisted.svelte.ts';

/** What each kind of export is called in the dialog. */
export const EXPORT_KIND_LABEL: Record<AnyExportKind, string> = { contacts: 'Contacts', orders: 'Orders', recipients: 'Recipients', templates: 'Templates', campaigns: 'Campaigns', duplicates: 'Duplicates' };

/** The kinds in the dialog's order. */
export const EXPORT_KIND_ORDER: readonly AnyExportKind[] = ['contacts', 'orders', 'recipients', 'templates', 'campaigns'];

/** What one row of each kind is called ("1 template"). */
export const EXPORT_KIND_NOUN: Record<AnyExportKind, string> = { contacts: 'contact', orders: 'order', recipients: 'order', templates: 'template', campaigns: 'campaign', duplicates: 'contact' };

const isSummaryKind = (kind: AnyExportKind): kind is 'templates' | 'campaigns' => kind === 'templates' || kind === 'campaigns';

/** Which rows an export writes. */
export type ExportScope = 'view' | 'selection' | 'all';

/** What the dialog remembers of the last export of one kind. */
export interface ExportKindSettings {
  format: ExportFormat;
  delimiter: CsvOptions['delimiter'];
  bom: boolean;
  neutralizeFormulas: boolean;
  /** The checked columns in their order, or null for the default set. */
  columns: string[] | null;
}

/** Settings stored by any version, made whole: unknown kinds and fields dropped, wrong types ignored. */
function validKindSettings(stored: Partial<Record<AnyExportKind, Partial<ExportKindSettings>>>): Partial<Record<AnyExportKind, Partial<ExportKindSettings>>> {
  const out: Partial<Record<AnyExportKind, Partial<ExportKindSettings>>> = {};
  for (const kind of EXPORT_KIND_ORDER) {
    const s = stored[kind];
    if (!s || typeof s !== 'object') continue;
    out[kind] = {
      ...(s.format === 'csv' || s.format === 'xlsx' ? { format: s.format } : {}),
      ...(s.delimiter === 'comma' || s.delimiter === 'semicolon' || s.delimiter === 'tab' ? { delimiter: s.delimiter } : {}),
      ...(typeof s.bom === 'boolean' ? { bom: s.bom } : {}),
      ...(typeof s.neutralizeFormulas === 'boolean' ? { neutralizeFormulas: s.neutralizeFormulas } : {}),
      ...(Array.isArray(s.columns) && s.columns.every((c) => typeof c === 'string') ? { columns: s.columns } : {}),
    };
  }
  return out;
}

/**
 * The export columns behind each table column, in the table's default order: "Columns of the
 * table" exports what the table shows, in its order.
 */
const TABLE_EXPORT_KEYS: Record<'contacts' | 'orders', [string, string[]][]> = {
  contacts: [
    ['name', ['fullName']],
    ['company', ['companyName']],
    ['email', ['email']],
    ['phone', ['phoneNo', 'extension']],
    ['address', ['address1']],
    ['line2', ['address2']],
    ['city', ['city']],
    ['state', ['state']],
    ['zip', ['zip']],
    ['labels', ['labels']],
    ['verified', ['isVerified']],
    ['timesMailed', ['timesMailed']],
    ['deliveredCount', ['deliveredCount']],
    ['lastOrder', ['lastOrderSeenAt']],
    ['created', ['createdAt']],
  ],
  orders: [
    ['id', ['id']],
    ['campaign', ['campaignName']],
    ['product', ['productName']],
    ['template', ['templateTitle']],
    ['status', ['status']],
    ['recipients', ['recipients']],
    ['delivered', ['delivered']],
    ['liveMode', ['isLiveMode']],
    ['schedule', ['scheduleType']],
    ['deliveryDate', ['deliveryDate']],
  ],
};

/** Rows written so far of a running export. */
export interface ExportProgressState {
  done: number;
  total: number;
}

/** One export dialog's state; the dialog component is its markup. */
export class ExportDialogState {
  readonly #app: AppState;
  /** The CSV options as last exported, of any kind (copies read its "Neutralise formulas": rowCopy.ts). */
  readonly #format = new Persisted<Partial<CsvOptions>>('export', {});
  /** Format and columns as last exported, per kind. */
  readonly #byKind = new Persisted<Partial<Record<AnyExportKind, Partial<ExportKindSettings>>>>('export:kinds', {}, validKindSettings);
  /** The running export's id, from its first event; it can be cancelled once known. */
  #exportId = $state<string | null>(null);
  /** Set when a cancel was asked before the export's id arrived; the id's arrival then cancels. */
  #cancelWanted = false;

  kind = $state<AnyExportKind>('contacts');
  /** The level whose groups a duplicates export writes (the Duplicates page sets it when it opens the dialog). */
  duplicateLevel = $state<DuplicateLevel>(DEFAULT_DUPLICATE_LEVEL);
  /** The rows of the current view (search, filters, sort), those selected in it, or everything in the cache. */
  scope = $state<ExportScope>('view');
  /** The columns this kind offers, in default order. */
  columns = $state.raw<ExportColumn[]>([]);
  /** Column keys to their checkbox. */
  chosen = $state<Record<string, boolean>>({});
  /** The order to write the checked columns in (the table's), or null for the default order. */
  order = $state.raw<string[] | null>(null);
  /** Reading the selected rows' ids before an export: how many so far, or null. */
  reading = $state.raw<{ done: number; total: number } | null>(null);
  /** Why the columns could not be read, or null. */
  columnsError = $state<string | null>(null);
  /** A CSV file or an Excel workbook. */
  format = $state<ExportFormat>('csv');
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

  /** Keys of the checked columns, in the order they are written. */
  selectedColumns = $derived((this.order ?? this.columns.map((c) => c.key)).filter((k) => this.chosen[k]));

  /** @param app the app whose contacts and orders views "current view" means */
  constructor(app: AppState) {
    this.#app = app;
  }

  /** The list model of the table this kind of export reads as "current view". */
  get #viewModel(): AppState['contacts'] | AppState['orders'] {
    return this.kind === 'contacts' ? this.#app.contacts : this.#app.orders;
  }

  /** The Templates or Campaigns view's list, for those kinds. */
  get #summaryModel(): AppState['templates'] | AppState['campaigns'] | null {
    return this.kind === 'templates' ? this.#app.templates : this.kind === 'campaigns' ? this.#app.campaigns : null;
  }

  /** Rows in the current view, once counted. */
  get viewTotal(): RowCount | null {
    const summary = this.#summaryModel;
    if (summary) return summary.loaded ? { count: summary.total, exact: true } : null;
    return this.#viewModel.total;
  }

  /** A search or filter narrows the current view. */
  get viewFiltered(): boolean {
    const summary = this.#summaryModel;
    if (summary) return summary.appliedSearch.trim() !== '';
    return this.#viewModel.activeFilterCount > 0 || this.#viewModel.appliedSearch.trim() !== '';
  }

  /** Rows selected in the table this kind of export reads (its orders for recipients; none for templates and campaigns). */
  get selectedCount(): number {
    if (this.#summaryModel) return 0;
    return this.#viewModel.selectedCount;
  }

  /** The table's shown columns as this kind's export columns, in the table's order (none for recipients, templates, campaigns). */
  get tableColumns(): string[] {
    if (this.kind === 'recipients' || this.kind === 'duplicates' || isSummaryKind(this.kind)) return [];
    const model = this.#viewModel;
    const pairs = TABLE_EXPORT_KEYS[this.kind];
    const hidden = model.layout.hidden;
    const shown = orderedColumns(pairs.map(([key]) => ({ key })), model.layout).filter((c, i) => i === 0 || !hidden.includes(c.key));
    return shown.flatMap((c) => pairs.find(([key]) => key === c.key)?.[1] ?? []);
  }

  /** Checks exactly the columns the table shows, in its order. */
  useTableColumns(): void {
    const keys = this.tableColumns.filter((k) => this.columns.some((c) => c.key === k));
    const rest = this.columns.map((c) => c.key).filter((k) => !keys.includes(k));
    this.order = [...keys, ...rest];
    this.chosen = Object.fromEntries(keys.map((k) => [k, true]));
  }

  /**
   * The workbook's sheet name: the saved view's name when one is open, else what the rows are
   * ("Contacts", "Selected orders", "All recipients").
   */
  get sheetName(): string {
    const label = EXPORT_KIND_LABEL[this.kind];
    if (this.scope === 'all') return `All ${label.toLowerCase()}`;
    if (this.scope === 'selection') return `Selected ${label.toLowerCase()}`;
    if (isSummaryKind(this.kind) || this.kind === 'duplicates') return label;
    const viewId = this.#viewModel.query.view;
    const view = viewId ? this.#app.views.byId(viewId) : undefined;
    return view ? (this.kind === 'recipients' ? `${view.name} recipients` : view.name) : label;
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
  reset(kind: AnyExportKind, scope: ExportScope): void {
    this.kind = kind;
    this.scope = scope === 'selection' && this.selectedCount === 0 ? 'view' : scope;
    this.result = null;
    this.error = null;
    this.progress = null;
  }

  /**
   * Reads the columns `kind` offers and checks those of its last export, else its default set
   * (opt-in ones, such as Raw JSON, stay unchecked); takes that export's format too. An answer for
   * another kind is dropped.
   */
  loadColumns(kind: AnyExportKind): void {
    this.columnsError = null;
    const saved = this.#byKind.current[kind] ?? {};
    const csv = this.#format.current;
    this.format = saved.format ?? 'csv';
    this.delimiter = saved.delimiter ?? csv.delimiter ?? 'comma';
    this.bom = saved.bom ?? csv.bom ?? false;
    this.neutralize = saved.neutralizeFormulas ?? csv.neutralizeFormulas ?? true;
    call('exportColumns', { kind })
      .then((columns) => {
        if (this.kind !== kind) return;
        this.columns = columns;
        const keys = columns.map((c) => c.key);
        const remembered = saved.columns?.filter((k) => keys.includes(k)) ?? [];
        if (remembered.length > 0) {
          this.order = [...remembered, ...columns.map((c) => c.key).filter((k) => !remembered.includes(k))];
          this.chosen = Object.fromEntries(remembered.map((k) => [k, true]));
        } else {
          this.order = null;
          this.chosen = Object.fromEntries(columns.filter((c) => c.inDefault).map((c) => [c.key, true]));
        }
      })
      .catch((e: unknown) => (this.columnsError = errorText(e)));
  }

  /** Checks every column. */
  selectAll(): void {
    this.order = null;
    this.chosen = Object.fromEntries(this.columns.map((c) => [c.key, true]));
  }

  /** Unchecks every column. */
  selectNone(): void {
    this.order = null;
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
   * Asks where to save, then writes the CSV or workbook; remembers the format and columns for this
   * kind. Resolves when the export ended: with {@link result} set, or {@link error}, or neither
   * when the save dialog was cancelled.
   */
  async run(): Promise<void> {
    const options: CsvOptions = { delimiter: this.delimiter, bom: this.bom, neutralizeFormulas: this.neutralize };
    const format = this.format;
    if (format === 'csv') this.#format.current = options;
    // null asks for the default set, which is shorter to send and keeps the default order.
    const defaults = this.columns.filter((c) => c.inDefault).map((c) => c.key);
    const isDefault = this.order === null && this.selectedColumns.length === defaults.length && defaults.every((k) => this.chosen[k]);
    const columns = isDefault ? null : this.selectedColumns;
    const kind = this.kind;
    this.#byKind.current = { ...this.#byKind.current, [kind]: { format, ...options, columns } };
    const file = format === 'xlsx' ? { format, sheetName: this.sheetName } : {};
    this.running = true;
    this.#cancelWanted = false;
    this.error = null;
    this.result = null;
    this.progress = null;
    this.#exportId = null;
    try {
      const ids = this.scope === 'selection' ? await this.#selectedIds() : null;
      const all = this.scope === 'all';
      let request: ExportRequest;
      if (kind === 'templates') {
        request = { kind, query: all ? null : ($state.snapshot(this.#app.templates.query) as TemplateQuery), columns, options, ...file };
      } else if (kind === 'campaigns') {
        request = { kind, query: all ? null : ($state.snapshot(this.#app.campaigns.query) as CampaignQuery), columns, options, ...file };
      } else if (kind === 'duplicates') {
        request = { kind, query: { level: this.duplicateLevel }, columns, options, ...file };
      } else if (kind === 'contacts') {
        const query = withLocalCreatedDays($state.snapshot(this.#app.contacts.query) as ContactQuery);
        request = { kind, query: all ? null : withIds(query, ids), columns, options, ...file };
      } else {
        const query = $state.snapshot(this.#app.orders.query) as OrderQuery;
        request = { kind, query: all ? null : withIds(query, ids), columns, options, ...file };
      }
      const result = await call('exportFile', request);
      this.result = result.path === null ? null : result; // save dialog cancelled: stay in the form
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.running = false;
      this.reading = null;
    }
  }

  /**
   * The ids of the selected rows, read from the cache in chunks; null when every row of the view is
   * selected (the view's query then names exactly those rows, however many).
   * @throws Error when more than {@link MAX_QUERY_IDS} rows, but not all, are selected
   */
  async #selectedIds(): Promise<string[] | null> {
    const model = this.#viewModel;
    const total = await model.exactTotal();
    const selected = count(model.selection, total);
    if (selected === total) return null;
    if (selected > MAX_QUERY_IDS) {
      throw new Error(`${formatCount(selected)} rows are selected; an export of selected rows takes at most ${formatCount(MAX_QUERY_IDS)}. Select every row (Ctrl+A or ⌘A) or narrow the view with a search or filters, then choose “Current view”.`);
    }
    const ids: string[] = [];
    this.reading = { done: 0, total: model.selectedCount };
    await model.readSelected((rows: { id: string }[]) => ids.push(...rows.map((r) => r.id)), { onProgress: (done, all) => (this.reading = { done, total: all }) });
    return ids;
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

/**
 * A view's query narrowed to the rows with these ids (the selection: the rows whose id is in the
 * list, in the query's order), or the query itself for null.
 */
function withIds<Q extends ContactQuery | OrderQuery>(query: Q, ids: string[] | null): Q {
  return ids === null ? query : { ...query, ids };
}
