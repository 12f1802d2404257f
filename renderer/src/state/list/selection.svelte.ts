/**
 * A list view's current row, selection and open detail: what the keyboard and the mouse move, and
 * how they follow rows whose pages are still loading.
 */
import { ALL, count, has, isOpenEnded, NONE, span, toggle, union, type RowSelection } from '../../lib/selection.ts';
import { PAGE_SIZE } from './pages.svelte.ts';
import type { CursorMode, ListSnapshot, ScrollRequest } from './types.ts';

/** What the selection needs of the list: the rows on hand and the total on screen. */
export interface SelectionHost<Row> {
  rowAt(index: number): Row | undefined;
  /** Rows in the result on screen (a lower bound until counted); 0 before the first answer. */
  total(): number;
}

/** The cursor, selection and open detail of one list. */
export class ListSelection<Row extends { id: string }> {
  readonly #host: SelectionHost<Row>;

  /** The current row (keyboard focus inside the table), or -1. */
  cursor = $state(-1);
  /** Where Shift+click and Shift+arrows extend the selection from. */
  anchor = $state(-1);
  /** The selected rows, by index in the result. */
  selection = $state.raw<RowSelection>(NONE);
  /** Id of the record whose detail panel is open. */
  detailId = $state<string | null>(null);
  /** Where the table should scroll next (a new object each time). */
  scrollRequest = $state.raw<ScrollRequest | null>(null);

  /** Rows selected (with an open-ended selection, counted against the total on screen). */
  selectedCount = $derived(count(this.selection, this.#total()));

  /** The open detail follows the selection onto a row whose page is still loading. */
  #followSelection = false;
  /** After the cache changed: the current record, to select again where its page puts it now. */
  #reselectId: string | null = null;
  /** End was pressed while the total was a lower bound: the last row is selected once it is counted. */
  endWanted: CursorMode | null = null;

  constructor(host: SelectionHost<Row>) {
    this.#host = host;
  }

  #total(): number {
    return this.#host.total();
  }

  /** No current row, nothing selected. */
  clear(): void {
    this.cursor = -1;
    this.anchor = -1;
    this.selection = NONE;
    this.endWanted = null;
  }

  /** Nothing waits for a page any more (a new result, another profile). */
  stopWaiting(): void {
    this.#followSelection = false;
    this.#reselectId = null;
  }

  /** The record to keep current when the rows are read again where they are (the current one, or the one still awaited). */
  currentId(): string | null {
    return this.#reselectId ?? (this.cursor >= 0 ? this.#host.rowAt(this.cursor)?.id : undefined) ?? null;
  }

  /**
   * The rows were read again (the cache changed): no row is current until the page of record `id`
   * arrives (or for good, when it is gone); a selection of every row stays whole, any other is
   * narrowed to that record.
   */
  reselect(id: string): void {
    this.cursor = -1;
    if (!isOpenEnded(this.selection)) this.selection = NONE;
    this.#reselectId = id;
  }

  /** Resolves, with page `p` that arrived, a selection waiting for its row (see the two fields). */
  place(p: number, rows: Row[]): void {
    if (this.#reselectId !== null) {
      const at = rows.findIndex((r) => r.id === this.#reselectId);
      if (at >= 0) {
        const index = p * PAGE_SIZE + at;
        this.cursor = index;
        this.anchor = index;
        if (!isOpenEnded(this.selection)) this.selection = span(index, index);
        this.#reselectId = null;
        this.scrollRequest = { index, align: 'nearest' };
      }
    }
    if (this.#followSelection && this.detailId !== null) {
      const row = this.#host.rowAt(this.cursor);
      if (row) {
        this.detailId = row.id;
        this.#followSelection = false;
      }
    }
  }

  /** Puts the selection, detail and scroll position back as a snapshot has them (Back). */
  applyPosition(snap: ListSnapshot<unknown, string>): void {
    this.selection = snap.selection;
    this.anchor = snap.anchor;
    this.cursor = snap.cursor;
    this.detailId = snap.detailId;
    this.#followSelection = false;
    this.endWanted = null;
    this.scrollRequest = { index: snap.top, align: 'top' };
  }

  /** Whether row `index` is selected. Reactive via {@link selection}. */
  isSelected(index: number): boolean {
    return has(this.selection, index);
  }

  /**
   * Moves the current row to `index` and changes the selection as `mode` says: `select` selects it
   * alone, `extend` selects from the anchor to it, `move` leaves the selection as it is. An open
   * detail follows the current row.
   */
  cursorTo(index: number, mode: CursorMode = 'select'): void {
    const total = this.#total();
    if (total === 0 || index < 0) return;
    const i = Math.min(index, total - 1);
    this.endWanted = null;
    if (mode === 'select' || this.anchor < 0) {
      this.anchor = i;
      if (mode !== 'move') this.selection = span(i, i);
    } else if (mode === 'extend') {
      this.selection = span(this.anchor, i);
    }
    this.cursor = i;
    this.#reselectId = null;
    this.scrollRequest = { index: i, align: 'nearest' };
    this.#follow(i);
  }

  /** Moves the current row by `delta` rows (clamped). */
  moveCursor(delta: number, mode: CursorMode = 'select'): void {
    const total = this.#total();
    if (total === 0) return;
    const from = this.cursor < 0 ? (delta > 0 ? -1 : total) : this.cursor;
    this.cursorTo(Math.max(0, Math.min(total - 1, from + delta)), mode);
  }

  /** Adds row `index` to the selection or takes it out (Ctrl+click, Space); it becomes current. */
  toggleAt(index: number): void {
    if (index < 0 || index >= this.#total()) return;
    this.selection = toggle(this.selection, index);
    this.cursor = index;
    this.anchor = index;
    this.endWanted = null;
    this.scrollRequest = { index, align: 'nearest' };
    this.#follow(index);
  }

  /** Adds rows `from` to `to` to the selection (Ctrl+Shift+click). */
  addSpan(from: number, to: number): void {
    this.selection = union(this.selection, span(from, to));
    this.cursor = to;
    this.#follow(to);
  }

  /** Selects every row of the result, rendered or not (Ctrl+A). */
  selectAll(): void {
    if (this.#total() === 0) return;
    this.selection = ALL;
    if (this.cursor < 0) {
      this.cursor = 0;
      this.anchor = 0;
    }
  }

  /** Leaves only the current row selected (Escape). */
  collapseSelection(): void {
    this.selection = this.cursor >= 0 ? span(this.cursor, this.cursor) : NONE;
  }

  #follow(index: number): void {
    if (this.detailId === null) return;
    const row = this.#host.rowAt(index);
    if (row) this.detailId = row.id;
    this.#followSelection = row === undefined;
  }

  /** Opens the detail of the current row (Enter). */
  openCurrent(): void {
    const row = this.#host.rowAt(this.cursor);
    if (row) this.detailId = row.id;
  }

  /** Opens a record's detail by id (it need not be on screen). */
  openDetail(id: string): void {
    this.detailId = id;
    this.#followSelection = false;
  }

  /** Closes the detail panel. */
  closeDetail(): void {
    this.detailId = null;
    this.#followSelection = false;
  }
}
