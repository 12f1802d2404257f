/**
 * The state behind a record's detail panel: the record read from the cache, whether it is being
 * read, and why the last read failed (a record that is no longer cached is such a failure, with
 * the handler's NOT_FOUND message).
 */
import { errorText } from '../lib/api.ts';

/**
 * One detail panel's record.
 * @typeParam T what the read call answers (a contact with its orders, an order with its recipients)
 */
export class RecordDetailState<T> {
  /** The last record read; stays on screen while the same record is read again. */
  detail = $state.raw<T | null>(null);
  /** Text of the last read's failure, or null. */
  error = $state<string | null>(null);
  /** A record other than the one on screen is being read. */
  loading = $state(true);

  readonly #read: (id: string) => Promise<T>;
  /** Id of the record in {@link detail}. */
  #heldId: string | null = null;
  /** Only the latest read may change the state: answers to earlier ones are dropped. */
  #seq = 0;

  /** @param read reads one record by id (a contract call); rejects with the reason it could not */
  constructor(read: (id: string) => Promise<T>) {
    this.#read = read;
  }

  /** Reads the record `id`, again when it is the one on screen (the cache published new data). */
  async load(id: string): Promise<void> {
    const mine = ++this.#seq;
    this.loading = this.#heldId !== id;
    this.error = null;
    try {
      const detail = await this.#read(id);
      if (mine !== this.#seq) return;
      this.detail = detail;
      this.#heldId = id;
    } catch (e) {
      if (mine !== this.#seq) return;
      this.error = errorText(e);
    } finally {
      if (mine === this.#seq) this.loading = false;
    }
  }
}
