/**
 * A list view's column layout: which columns show, in which order and width. The list remembers
 * it with its query (list/query.svelte.ts) or saves it with the open saved view.
 */
import { clampWidth, defaultLayout, type ColumnLayout } from '../../lib/columns.ts';

/**
 * One list view's column layout; `onchange` runs after each change meant to be remembered, and
 * the columns keyed in `defaultHidden` start hidden (and are hidden again by {@link reset}).
 */
export class ColumnLayoutState {
  readonly #onchange: () => void;
  readonly #defaultHidden: readonly string[];
  /** Which columns show, in which order and width. */
  layout = $state.raw<ColumnLayout>(defaultLayout());

  constructor(onchange: () => void, defaultHidden: readonly string[] = []) {
    this.#onchange = onchange;
    this.#defaultHidden = defaultHidden;
    this.layout = defaultLayout(defaultHidden);
  }

  /** Replaces the column layout and remembers it. */
  set(layout: ColumnLayout): void {
    this.layout = layout;
    this.#onchange();
  }

  /**
   * Sets a column's width (px, clamped to the column's minimum and the table's maximum);
   * `remember` false while a drag is in progress (the last width of the drag is remembered).
   */
  setWidth(key: string, width: number, min?: number, remember = true): void {
    this.layout = { ...this.layout, widths: { ...this.layout.widths, [key]: clampWidth(width, min) } };
    if (remember) this.#onchange();
  }

  /** Every column back: default order, default widths, shown or hidden as at first. */
  reset(): void {
    this.set(defaultLayout(this.#defaultHidden));
  }
}
