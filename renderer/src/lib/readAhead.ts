/**
 * A read started ahead of the component that shows its answer. The click that opens a record's
 * detail starts reading the record at once, and the detail panel, mounted after the page has been
 * updated for it, takes that read instead of starting its own: the call and the page's own work
 * run at the same time instead of one after the other.
 */

/** How long a read started ahead waits to be taken before it is dropped (ms). */
export const READ_AHEAD_TTL_MS = 1000;

/**
 * One read at a time, by key. A read that is not taken within {@link READ_AHEAD_TTL_MS} is
 * dropped, so a later read of the same key (after new data was published) never gets an old answer.
 * @typeParam T what the read answers
 */
export class ReadAhead<T> {
  #key: string | null = null;
  #read: Promise<T> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * Starts `read` for `key`, replacing any read started before and not taken.
   * @param read starts the read (a contract call); its rejection is kept for {@link take}
   */
  start(key: string, read: () => Promise<T>): void {
    this.#drop();
    const started = read();
    // Nobody may take it: its failure is then nobody's to report.
    started.catch(() => undefined);
    this.#key = key;
    this.#read = started;
    this.#timer = setTimeout(() => this.#drop(), READ_AHEAD_TTL_MS);
  }

  /**
   * The read started for `key` (once), or a new one.
   * @param read starts a read when none was started for `key`
   */
  take(key: string, read: () => Promise<T>): Promise<T> {
    if (this.#key !== key || !this.#read) return read();
    const started = this.#read;
    this.#drop();
    return started;
  }

  #drop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#key = null;
    this.#read = null;
    this.#timer = null;
  }
}
