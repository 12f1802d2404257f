/**
 * Progress on stderr: a bar (cli-progress) on a terminal, plain lines otherwise, so logs of
 * scripted runs stay readable.
 */
import cliProgress from 'cli-progress';
import type { SyncProgress } from '../../../shared/contract.ts';
import { fmt, writeLine } from './output.ts';

/** A progress display: fed updates, stopped once. */
export interface ProgressView<T> {
  update(progress: T): void;
  stop(): void;
}

/** Progress of a sync: a bar per resource on a terminal, one line per step (phase) otherwise. */
export function syncProgressView(stderr: NodeJS.WritableStream & { isTTY?: boolean }): ProgressView<SyncProgress> {
  const left = (p: SyncProgress) => (p.etaSeconds === null ? '' : `${p.etaSeconds} s left`);
  if (stderr.isTTY) {
    let bar: cliProgress.SingleBar | null = null;
    let resource: string | null = null;
    return {
      update(p) {
        if (p.resource !== resource) {
          bar?.stop();
          resource = p.resource;
          bar = new cliProgress.SingleBar(
            { stream: stderr as never, format: '{resource} {phase} [{bar}] {value}/{total} rows | {rate} rows/s | {left}', hideCursor: true, clearOnComplete: false },
            cliProgress.Presets.shades_classic,
          );
          bar.start(p.rowsTotal ?? 0, p.rowsDone, { resource: p.resource.padEnd(8), phase: p.phase.padEnd(10), rate: fmt(p.rowsPerSecond), left: left(p) });
        }
        if (p.rowsTotal !== null) bar?.setTotal(p.rowsTotal);
        bar?.update(p.rowsDone, { phase: p.phase.padEnd(10), rate: fmt(p.rowsPerSecond), left: left(p) });
      },
      stop() {
        bar?.stop();
      },
    };
  }
  let last = '';
  return {
    update(p) {
      const key = `${p.resource}:${p.phase}`;
      if (key === last) return;
      last = key;
      const rows = p.rowsTotal === null ? fmt(p.rowsDone) : `${fmt(p.rowsDone)}/${fmt(p.rowsTotal)}`;
      writeLine(stderr, `${p.resource}: ${p.phase} (${rows} rows)`);
    },
    stop() {},
  };
}

/** Progress of an export: a bar on a terminal, a line every 10% otherwise. */
export function exportProgressView(stderr: NodeJS.WritableStream & { isTTY?: boolean }, kind: string): ProgressView<{ rowsDone: number; rowsTotal: number }> {
  if (stderr.isTTY) {
    const bar = new cliProgress.SingleBar({ stream: stderr as never, format: `export ${kind} [{bar}] {value}/{total} rows | ETA {eta}s`, hideCursor: true }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
      update(p) {
        if (!started) {
          bar.start(p.rowsTotal, p.rowsDone);
          started = true;
        }
        bar.setTotal(p.rowsTotal);
        bar.update(p.rowsDone);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastTenth = -1;
  return {
    update(p) {
      const tenth = p.rowsTotal > 0 ? Math.floor((p.rowsDone / p.rowsTotal) * 10) : 10;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      writeLine(stderr, `export ${kind}: ${fmt(p.rowsDone)}/${fmt(p.rowsTotal)} rows`);
    },
    stop() {},
  };
}
