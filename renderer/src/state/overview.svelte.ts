/**
 * The Overview page's state: the active profile's {@link Overview}, read when the page opens and
 * again whenever the cache publishes (the numbers are computed at publish, so a read is quick),
 * and the charts it saves as files.
 */
import type { Overview } from '../../../shared/contract.ts';
import { call, errorText } from '../lib/api.ts';

export class OverviewState {
  data = $state.raw<Overview | null>(null);
  loading = $state(false);
  error = $state<string | null>(null);
  /** Bumped by every read: an answer to an older read is dropped. */
  #gen = 0;

  /** Reads the overview again; the numbers on screen stay until the answer comes. */
  async load(): Promise<void> {
    const gen = ++this.#gen;
    this.loading = true;
    try {
      const data = await call('overview', {});
      if (gen !== this.#gen) return;
      this.data = data;
      this.error = null;
    } catch (error) {
      if (gen === this.#gen) this.error = errorText(error);
    } finally {
      if (gen === this.#gen) this.loading = false;
    }
  }

  /**
   * Saves a chart as a file: the save dialog, then the file written by main.
   * @param chart the chart's name in the file name (`orders-by-status`)
   * @param data the PNG's base64 or the SVG's text
   * @returns the path written, or null when the person cancelled
   * @throws DisplayError when the file could not be written (its message says what to do)
   */
  async saveChart(chart: string, format: 'png' | 'svg', data: string): Promise<string | null> {
    return (await call('saveChartImage', { fileName: chart, format, data })).path;
  }

  /** Forgets the numbers (another profile is active). */
  reset(): void {
    this.#gen++;
    this.data = null;
    this.error = null;
    this.loading = false;
  }
}
