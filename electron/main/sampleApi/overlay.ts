/**
 * The edit overlay of the sample dataset (dataset.ts): deleted sequence numbers, patches and added
 * rows of one resource, in memory proportional to the number of edits, never to the scale.
 */
/**
 * The live set of one resource: sequence numbers 0 … top, minus deleted ones, plus patches.
 * Memory is proportional to the number of edits only.
 */
export class Overlay {
  readonly base: number;
  added = 0;
  private readonly deleted = new Set<number>();
  /** Ascending copy of `deleted` for counting by binary search. */
  private readonly deletedSorted: number[] = [];
  readonly patches = new Map<number, Record<string, unknown>>();

  constructor(base: number) {
    this.base = base;
  }

  get top(): number {
    return this.base + this.added - 1;
  }

  get count(): number {
    return this.base + this.added - this.deleted.size;
  }

  isLive(seq: number): boolean {
    return Number.isInteger(seq) && seq >= 0 && seq <= this.top && !this.deleted.has(seq);
  }

  delete(seq: number): boolean {
    if (!this.isLive(seq)) return false;
    this.deleted.add(seq);
    let lo = 0;
    let hi = this.deletedSorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.deletedSorted[mid] as number) < seq) lo = mid + 1;
      else hi = mid;
    }
    this.deletedSorted.splice(lo, 0, seq);
    this.patches.delete(seq);
    return true;
  }

  /** Number of deleted sequence numbers ≥ seq. */
  private deletedAtOrAbove(seq: number): number {
    let lo = 0;
    let hi = this.deletedSorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.deletedSorted[mid] as number) < seq) lo = mid + 1;
      else hi = mid;
    }
    return this.deletedSorted.length - lo;
  }

  /** Sequence number of the live row at `position` (newest first). */
  seqAt(position: number): number {
    if (!Number.isInteger(position) || position < 0 || position >= this.count) {
      throw new RangeError(`position ${position} is outside 0…${this.count - 1}`);
    }
    const top = this.top;
    let seq = top - position;
    // Fixed point of seq = top − position − (#deleted ≥ seq), approached from above: the first one
    // reached is the live row with exactly `position` live rows above it.
    for (;;) {
      const next = top - position - this.deletedAtOrAbove(seq);
      if (next === seq) return seq;
      seq = next;
    }
  }

  /** Up to n live sequence numbers from `position` on, newest first. */
  seqsFrom(position: number, n: number): number[] {
    const out: number[] = [];
    if (n <= 0 || position >= this.count) return out;
    let seq = this.seqAt(Math.max(0, position));
    while (out.length < n && seq >= 0) {
      if (!this.deleted.has(seq)) out.push(seq);
      seq--;
    }
    return out;
  }

  *seqs(): IterableIterator<number> {
    for (let seq = this.top; seq >= 0; seq--) if (!this.deleted.has(seq)) yield seq;
  }
}
