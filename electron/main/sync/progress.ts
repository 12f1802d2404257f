/**
 * Progress of one resource's run (DESIGN.md "Sync": resource, pages and rows done/total, rate,
 * ETA), counted as pages are written and sent at most every `intervalMs` except on a change of
 * phase.
 */
import type { SyncPhase, SyncProgress } from '../../../shared/contract.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';

/** Where progress goes and how often. */
export interface ProgressTarget {
  profileId: string;
  runId: string;
  resource: Resource;
  /** Smallest interval between two events that are not a change of phase, in ms. */
  intervalMs: number;
  onProgress?: (progress: SyncProgress) => void;
}

/**
 * Rows per second over the run so far, and the seconds left at that rate (null while unknown).
 * @param elapsedMs time since the run started, ms
 */
export function rateAndEta(rowsDone: number, rowsTotal: number | null, elapsedMs: number): { rowsPerSecond: number; etaSeconds: number | null } {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? rowsDone / seconds : 0;
  return {
    rowsPerSecond: Math.round(rate),
    etaSeconds: rowsTotal !== null && rate > 0 ? Math.max(0, Math.round((rowsTotal - rowsDone) / rate)) : null,
  };
}

/** The counters of a run and their events. */
export class SyncProgressMeter {
  readonly #target: ProgressTarget;
  readonly #startedMs: number;
  #lastEmit = 0;
  #phase: SyncPhase = 'starting';
  #pagesDone = 0;
  #pagesTotal: number | null = null;
  #rowsDone = 0;
  #rowsTotal: number | null = null;

  /** @param startedMs `performance.now()` when the run started (the rate is measured from it) */
  constructor(target: ProgressTarget, startedMs: number) {
    this.#target = target;
    this.#startedMs = startedMs;
  }

  /** Rows written so far in this pass (the published rows once done). */
  get rowsDone(): number {
    return this.#rowsDone;
  }

  /** Sends an event now (`force`), or if the last one is at least the interval old. */
  emit(force: boolean): void {
    const now = performance.now();
    if (!force && now - this.#lastEmit < this.#target.intervalMs) return;
    this.#lastEmit = now;
    const { profileId, runId, resource } = this.#target;
    this.#target.onProgress?.({
      profileId, runId, resource, phase: this.#phase,
      pagesDone: this.#pagesDone, pagesTotal: this.#pagesTotal, rowsDone: this.#rowsDone, rowsTotal: this.#rowsTotal,
      ...rateAndEta(this.#rowsDone, this.#rowsTotal, now - this.#startedMs),
    });
  }

  /** Enters `phase` and says so at once. */
  setPhase(phase: SyncPhase): void {
    this.#phase = phase;
    this.emit(true);
  }

  /** Starts counting a pass of `pagesTotal` pages and `rowsTotal` rows, some already written. */
  startPass(pagesTotal: number, rowsTotal: number, pagesDone: number, rowsDone: number): void {
    this.#pagesTotal = pagesTotal;
    this.#rowsTotal = rowsTotal;
    this.#pagesDone = pagesDone;
    this.#rowsDone = rowsDone;
  }

  /** Counts one page of `rows` rows written. */
  pageWritten(rows: number): void {
    this.#rowsDone += rows;
    this.#pagesDone += 1;
  }

  /** The run has published `rows` rows. */
  published(rows: number): void {
    this.#rowsDone = rows;
  }
}
