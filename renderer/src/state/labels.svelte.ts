/**
 * Mailing labels of a view (shared/labelSheets.ts): the addresses read from the cache, the sheet,
 * upper case and the first free label of a partly used sheet, the preview's pages, and Print… or
 * Save as PDF. The sheet and upper case are remembered per source (contacts, order recipients).
 */
import { DEFAULT_SHEET_ID, LABEL_SHEETS, labelPlace, labelsPerSheet, pagesFor, sheetProblem, type LabelAddresses, type LabelSheet } from '../../../shared/labelSheets.ts';
import { addressLines } from '../../../shared/labelSheets.ts';
import type { ContactQuery, OrderQuery } from '../../../shared/query.ts';
import { MAX_QUERY_IDS } from '../../../shared/queryLimits.ts';
import { call, errorText } from '../lib/api.ts';
import { formatCount } from '../lib/format.ts';
import { count, type RowSelection } from '../lib/selection.ts';
import { withLocalCreatedDays } from './models.ts';
import { Persisted } from './persisted.svelte.ts';

/** Where the labels come from: a contact view's contacts, or an order view's recipients. */
export type LabelSource = { source: 'contacts'; query: ContactQuery } | { source: 'recipients'; query: OrderQuery };

/** What the labels need of a table: its query, its selection and the selected rows' ids. */
export interface LabelTable {
  readonly query: object;
  readonly selection: RowSelection;
  exactTotal(): Promise<number>;
  readSelected(take: (rows: { id: string }[]) => void): Promise<number>;
}

/** The custom grid a person starts from: Avery 5160's. */
const CUSTOM_START: LabelSheet = { ...(LABEL_SHEETS[0] as LabelSheet), id: 'custom', name: 'Custom grid' };

/** One label as the preview and the print lay it out, in millimetres on its page. */
export interface PlacedLabel {
  key: string;
  x: number;
  y: number;
  /** The address block, its lines joined by newlines. */
  text: string;
}

/** The labels' settings remembered for one source. */
interface LabelSettings {
  sheetId: string;
  upperCase: boolean;
  custom: LabelSheet;
}

const DEFAULTS: LabelSettings = { sheetId: DEFAULT_SHEET_ID, upperCase: false, custom: CUSTOM_START };

function validSettings(stored: LabelSettings): LabelSettings {
  const custom = { ...CUSTOM_START, ...(stored.custom ?? {}), id: 'custom', name: 'Custom grid' };
  const known = stored.sheetId === 'custom' || LABEL_SHEETS.some((s) => s.id === stored.sheetId);
  return { sheetId: known ? stored.sheetId : DEFAULT_SHEET_ID, upperCase: stored.upperCase === true, custom: sheetProblem(custom) ? CUSTOM_START : custom };
}

export class LabelsState {
  /** The preview is open. */
  open = $state(false);
  /** What the labels are of ("Contacts: 3 filters"), for the preview's heading. */
  title = $state('');
  request = $state.raw<LabelSource | null>(null);
  data = $state.raw<LabelAddresses | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** The first free label of the first sheet, 1-based ("start at label 4"). */
  startAt = $state(1);
  /** A PDF is being written. */
  saving = $state(false);
  readonly #settings = new Persisted<LabelSettings>('labels:contacts', DEFAULTS, validSettings);

  get settings(): LabelSettings {
    return this.#settings.current;
  }

  /** The sheet chosen (the custom grid when it is), as the preview lays it out. */
  sheet = $derived.by((): LabelSheet => {
    const s = this.#settings.current;
    return s.sheetId === 'custom' ? s.custom : (LABEL_SHEETS.find((x) => x.id === s.sheetId) ?? (LABEL_SHEETS[0] as LabelSheet));
  });

  /** Why the custom grid cannot be printed, or null. */
  problem = $derived(sheetProblem(this.sheet));

  /** Labels already used on the first sheet. */
  skip = $derived(Math.min(Math.max(0, Math.floor(this.startAt) - 1), labelsPerSheet(this.sheet) - 1));

  /** The label pages: each page's labels placed. */
  pages = $derived.by((): PlacedLabel[][] => {
    const addresses = this.data?.addresses ?? [];
    if (this.problem) return [];
    const sheet = this.sheet;
    const upper = this.#settings.current.upperCase;
    const pages: PlacedLabel[][] = Array.from({ length: pagesFor(sheet, addresses.length, this.skip) }, () => []);
    addresses.forEach((a, i) => {
      const place = labelPlace(sheet, i, this.skip);
      pages[place.page]?.push({ key: a.id, x: place.x, y: place.y, text: addressLines(a, upper).join('\n') });
    });
    return pages;
  });

  /** Changes the remembered settings. */
  set(patch: Partial<LabelSettings>): void {
    this.#settings.current = { ...this.#settings.current, ...patch };
  }

  /**
   * Opens the preview with the addresses of a view (its contacts or its orders' recipients).
   * @param title what the labels are of, in words
   */
  async show(request: LabelSource, title: string): Promise<void> {
    this.#settings.use(`labels:${request.source}`);
    this.request = request;
    this.title = title;
    this.open = true;
    this.data = null;
    this.error = null;
    this.startAt = 1;
    this.loading = true;
    try {
      this.data = await call('labelAddresses', request);
    } catch (error) {
      this.error = errorText(error);
    } finally {
      this.loading = false;
    }
  }

  /**
   * Opens the preview for a table: the rows selected in it when some (not all) are, else the
   * whole view (search, filters, sort, saved view); an orders table prints its orders' recipients.
   * @param viewName the saved view's name, or null for the table
   */
  async showTable(resource: 'contacts' | 'orders', model: LabelTable, viewName: string | null): Promise<void> {
    const total = await model.exactTotal();
    const selected = count(model.selection, total);
    let ids: string[] | null = null;
    if (selected > 0 && selected < total) {
      if (selected > MAX_QUERY_IDS) {
        this.open = true;
        this.data = null;
        this.error = `${formatCount(selected)} rows are selected; labels of selected rows take at most ${formatCount(MAX_QUERY_IDS)}. Select every row or narrow the view with a search or filters.`;
        return;
      }
      ids = [];
      const into = ids;
      await model.readSelected((rows: { id: string }[]) => into.push(...rows.map((r) => r.id)));
    }
    const what = resource === 'contacts' ? 'contacts' : 'orders’ recipients';
    const selectedWhat = (n: number): string => (resource === 'contacts' ? (n === 1 ? 'contact' : 'contacts') : n === 1 ? 'order’s recipients' : 'orders’ recipients');
    const title = ids ? `${formatCount(ids.length)} selected ${selectedWhat(ids.length)}` : viewName ? `${viewName} (${what})` : `The ${what} of the current view`;
    if (resource === 'contacts') {
      const query = withLocalCreatedDays($state.snapshot(model.query) as ContactQuery);
      await this.show({ source: 'contacts', query: ids ? { ...query, ids } : query }, title);
    } else {
      const query = $state.snapshot(model.query) as OrderQuery;
      await this.show({ source: 'recipients', query: ids ? { ...query, ids } : query }, title);
    }
  }

  close(): void {
    this.open = false;
    this.data = null;
  }

  /** The system's print dialog, with only the label sheets on the pages. */
  print(): void {
    window.print();
  }

  /**
   * Saves the sheets as a PDF where the person chooses.
   * @returns the path and its pages, or null when the person cancelled
   * @throws DisplayError when it could not be written
   */
  async savePdf(): Promise<{ path: string; pages: number } | null> {
    this.saving = true;
    try {
      const { path, pages } = await call('savePrintPdf', { what: 'labels' });
      return path ? { path, pages } : null;
    } finally {
      this.saving = false;
    }
  }
}
