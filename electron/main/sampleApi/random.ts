/**
 * Seeded, allocation-light pseudo-random numbers for the sample API.
 *
 * Every generated row gets its own generator seeded from (dataset seed, row sequence number), so any
 * row can be produced on demand, in any order, without generating the rows before it: memory does
 * not grow with the scale of the dataset.
 */

/**
 * Mixes two 32-bit integers into one well-distributed 32-bit unsigned integer (murmur3 finaliser).
 * @param a any integer (only the low 32 bits count)
 * @param b any integer (only the low 32 bits count)
 * @returns an unsigned 32-bit integer
 */
export function hash32(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: a tiny, fast 32-bit PRNG; good enough for realistic-looking sample data. */
export class Rng {
  private state: number;

  /** @param seed any integer; equal seeds give equal sequences */
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** @returns a float in [0, 1) */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** @returns an integer in [0, n) (0 when n ≤ 0) */
  int(n: number): number {
    return n <= 0 ? 0 : Math.floor(this.next() * n);
  }

  /** @returns an integer in [min, max] */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** @returns true with probability p */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** @returns a uniformly chosen element of a non-empty array */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** @returns `n` decimal digits as a string (leading zeros kept) */
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(10));
    return s;
  }
}
