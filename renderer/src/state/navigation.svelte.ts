/**
 * Back and Forward: where the person was before following a link or switching views — the view,
 * and in both tables the search, filters, sort, selection, open detail and scroll position.
 */
/** Most places Back remembers. */
const MAX_PLACES = 50;

/** A place to return to. */
export interface Place<View extends string, Contacts, Orders> {
  view: View;
  contacts: Contacts;
  orders: Orders;
}

/** What history needs from the app: where the person is, and how to put them back there. */
export interface Navigable<View extends string, Contacts, Orders> {
  capture(): Place<View, Contacts, Orders>;
  restore(place: Place<View, Contacts, Orders>): Promise<void>;
}

/** The back and forward stacks of one window. */
export class NavigationHistory<View extends string, Contacts, Orders> {
  #back = $state.raw<Place<View, Contacts, Orders>[]>([]);
  #forward = $state.raw<Place<View, Contacts, Orders>[]>([]);
  readonly #target: Navigable<View, Contacts, Orders>;
  /** A restore is running: the view switches it makes are not new places. */
  #restoring = false;

  canGoBack = $derived(this.#back.length > 0);
  canGoForward = $derived(this.#forward.length > 0);

  constructor(target: Navigable<View, Contacts, Orders>) {
    this.#target = target;
  }

  /** True while Back or Forward puts a place back (view switches then are not recorded). */
  get restoring(): boolean {
    return this.#restoring;
  }

  /** Remembers where the person is now (before a view switch or a followed link); Forward is forgotten. */
  record(): void {
    if (this.#restoring) return;
    this.#back = [...this.#back, this.#target.capture()].slice(-MAX_PLACES);
    this.#forward = [];
  }

  /** Goes back one place. */
  async back(): Promise<void> {
    const place = this.#back.at(-1);
    if (!place || this.#restoring) return;
    this.#back = this.#back.slice(0, -1);
    this.#forward = [...this.#forward, this.#target.capture()];
    await this.#put(place);
  }

  /** Goes forward one place. */
  async forward(): Promise<void> {
    const place = this.#forward.at(-1);
    if (!place || this.#restoring) return;
    this.#forward = this.#forward.slice(0, -1);
    this.#back = [...this.#back, this.#target.capture()];
    await this.#put(place);
  }

  async #put(place: Place<View, Contacts, Orders>): Promise<void> {
    this.#restoring = true;
    try {
      await this.#target.restore(place);
    } finally {
      this.#restoring = false;
    }
  }

  /** Forgets every place (another profile is active: its places are not this one's). */
  clear(): void {
    this.#back = [];
    this.#forward = [];
  }
}
