/**
 * A small seeded PRNG for the reliability tests (mulberry32): the same seed gives the same
 * sequence on every machine, so a failing soak or kill run can be replayed from its printed seed.
 */

/** Returns a generator of floats in [0, 1) seeded with `seed` (any integer). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
