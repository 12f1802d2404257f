/**
 * One remembered setting as a rune: a `$state` value read from the page's settings storage
 * (lib/storage.ts, localStorage under `letterdesk:<key>`) and written back whenever it is set.
 * The stored JSON is the value itself, so settings saved before keep being read.
 */
import { loadSetting, saveSetting } from '../lib/storage.ts';

/**
 * A setting kept across sessions.
 * @typeParam T the value's shape (JSON-serialisable)
 */
export class Persisted<T> {
  #key: string | null;
  readonly #fallback: () => T;
  readonly #validate: (stored: T) => T;
  #value = $state.raw<T>() as T;

  /**
   * Reads the setting at once.
   * @param key the storage key (without the `letterdesk:` prefix); null keeps the value in memory only
   * @param fallback the value when nothing is stored, or what is stored is of another kind (an object
   *   for an object, the same type for a string, number or boolean: lib/storage.ts `loadSetting`)
   * @param validate turns a stored value written by any version into one the page can use (drops
   *   unknown fields, fills missing ones); the identity when left out
   */
  constructor(key: string | null, fallback: T | (() => T), validate: (stored: T) => T = (v) => v) {
    this.#key = key;
    this.#fallback = typeof fallback === 'function' ? (fallback as () => T) : () => fallback;
    this.#validate = validate;
    this.#value = this.#read();
  }

  /** The value (reactive); setting it stores it. */
  get current(): T {
    return this.#value;
  }

  set current(value: T) {
    this.#value = value;
    if (this.#key !== null) saveSetting(this.#key, value);
  }

  /** The storage key the value is read from and written to. */
  get key(): string | null {
    return this.#key;
  }

  /** Switches to another key (another profile's setting) and reads its value. */
  use(key: string | null): void {
    this.#key = key;
    this.#value = this.#read();
  }

  #read(): T {
    const fallback = this.#fallback();
    return this.#key === null ? fallback : this.#validate(loadSetting<T>(this.#key, fallback));
  }
}
