/**
 * The Duplicates page's state: the level chosen, the groups' totals at each level and one page
 * of the groups (largest first) as the cache found them after the last sync of contacts. Only a
 * page is read at a time, so the page opens as fast on a million contacts as on a hundred.
 */
import { DEFAULT_DUPLICATE_LEVEL, DUPLICATE_LEVELS, DUPLICATE_PAGE_SIZE, type DuplicateGroupsPage, type DuplicateLevel } from '../../../shared/duplicates.ts';
import { call, errorText } from '../lib/api.ts';

/** A level's totals, for its choice in the level chooser. */
export interface LevelTotals {
  groups: number;
  contacts: number;
}

export class DuplicatesState {
  level = $state<DuplicateLevel>(DEFAULT_DUPLICATE_LEVEL);
  /** The page of groups on screen (at {@link level}), or null before the first answer. */
  page = $state.raw<DuplicateGroupsPage | null>(null);
  /** Each level's totals, once read. */
  totals = $state.raw<Partial<Record<DuplicateLevel, LevelTotals>>>({});
  loading = $state(false);
  error = $state<string | null>(null);
  /** Bumped by every read: an answer to an older read is dropped. */
  #gen = 0;

  /** The first group of the page on screen (0-based). */
  get offset(): number {
    return this.page?.offset ?? 0;
  }

  /** Whether a page after this one exists. */
  get hasNext(): boolean {
    return this.page !== null && this.page.offset + this.page.items.length < this.page.groups;
  }

  /**
   * Reads a page of the groups at the chosen level, and the other levels' totals.
   * @param offset the first group to show @default the page on screen (a refresh after a sync)
   */
  async load(offset: number = this.offset): Promise<void> {
    const gen = ++this.#gen;
    const level = this.level;
    this.loading = true;
    try {
      const others = DUPLICATE_LEVELS.filter((l) => l !== level);
      const [page, ...rest] = await Promise.all([
        call('duplicateGroups', { level, offset, limit: DUPLICATE_PAGE_SIZE }),
        ...others.map((l) => call('duplicateGroups', { level: l, offset: 0, limit: 1 })),
      ]);
      if (gen !== this.#gen) return;
      // A page past the end (fewer groups after a sync) shows the last one instead.
      if (page.items.length === 0 && page.groups > 0 && offset > 0) {
        void this.load(Math.floor((page.groups - 1) / DUPLICATE_PAGE_SIZE) * DUPLICATE_PAGE_SIZE);
        return;
      }
      const totals: Partial<Record<DuplicateLevel, LevelTotals>> = {};
      for (const p of [page, ...rest]) totals[p.level] = { groups: p.groups, contacts: p.contacts };
      this.page = page;
      this.totals = totals;
      this.error = null;
    } catch (error) {
      if (gen === this.#gen) this.error = errorText(error);
    } finally {
      if (gen === this.#gen) this.loading = false;
    }
  }

  /** Shows the groups at another level, from the first. */
  setLevel(level: DuplicateLevel): Promise<void> {
    if (level === this.level) return Promise.resolve();
    this.level = level;
    return this.load(0);
  }

  /** The next or the previous page of groups. */
  turn(by: 1 | -1): Promise<void> {
    return this.load(Math.max(0, this.offset + by * DUPLICATE_PAGE_SIZE));
  }

  /** Forgets the groups (another profile is active). */
  reset(): void {
    this.#gen++;
    this.page = null;
    this.totals = {};
    this.error = null;
    this.loading = false;
  }
}
