/**
 * The window's pane sizes, remembered on this computer for every profile: the sidebar collapsed or
 * not, the filter pane's width per view and the detail panel's width.
 */
import { Persisted } from './persisted.svelte.ts';

/** Filter pane widths (px). */
export const FILTER_WIDTH = { min: 180, max: 400, initial: 216 } as const;
/** Detail panel widths (px). */
export const DETAIL_WIDTH = { min: 300, max: 640, initial: 340 } as const;
/**
 * Below this window width the sidebar folds to icons until the person chooses otherwise: at
 * 1024 px its labels would take the room the table needs beside the filters.
 */
const NARROW_WINDOW = 1100;

interface Saved {
  sidebarCollapsed?: boolean;
  filterWidth?: Partial<Record<'contacts' | 'orders', number>>;
  detailWidth?: number;
}

const clamp = (v: unknown, range: { min: number; max: number; initial: number }): number =>
  typeof v === 'number' && Number.isFinite(v) ? Math.round(Math.max(range.min, Math.min(range.max, v))) : range.initial;

/** Pane sizes and the sidebar's state. */
export class UiLayout {
  readonly #stored = new Persisted<Saved>('layout', {});
  /** The person's choice, or null before they made one (then the window's width decides). */
  #sidebarChoice = $state<boolean | null>(null);
  windowWidth = $state(typeof window === 'undefined' ? 1280 : window.innerWidth);
  filterWidth = $state<Record<'contacts' | 'orders', number>>({ contacts: FILTER_WIDTH.initial, orders: FILTER_WIDTH.initial });
  detailWidth = $state<number>(DETAIL_WIDTH.initial);

  /** The sidebar shows icons only. */
  sidebarCollapsed = $derived(this.#sidebarChoice ?? this.windowWidth < NARROW_WINDOW);

  constructor() {
    const saved = this.#stored.current;
    this.#sidebarChoice = typeof saved.sidebarCollapsed === 'boolean' ? saved.sidebarCollapsed : null;
    this.filterWidth = { contacts: clamp(saved.filterWidth?.contacts, FILTER_WIDTH), orders: clamp(saved.filterWidth?.orders, FILTER_WIDTH) };
    this.detailWidth = clamp(saved.detailWidth, DETAIL_WIDTH);
  }

  #save(): void {
    this.#stored.current = {
      ...(this.#sidebarChoice === null ? {} : { sidebarCollapsed: this.#sidebarChoice }),
      filterWidth: { ...this.filterWidth },
      detailWidth: this.detailWidth,
    } satisfies Saved;
  }

  /** Collapses or expands the sidebar (and remembers the choice). */
  toggleSidebar(): void {
    this.#sidebarChoice = !this.sidebarCollapsed;
    this.#save();
  }

  /** Sets the filter pane's width; `remember` once a drag ends. */
  setFilterWidth(view: 'contacts' | 'orders', width: number, remember = true): void {
    this.filterWidth[view] = clamp(width, FILTER_WIDTH);
    if (remember) this.#save();
  }

  /** Sets the detail panel's width; `remember` once a drag ends. */
  setDetailWidth(width: number, remember = true): void {
    this.detailWidth = clamp(width, DETAIL_WIDTH);
    if (remember) this.#save();
  }
}
