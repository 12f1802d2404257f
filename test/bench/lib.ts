/**
 * Helpers shared by the benchmark (test/bench/index.ts) and its child processes: statistics, the
 * result table, child processes that report one JSON result, the sample API in its own process,
 * and memory readings from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, freemem, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SUCCESS_MESSAGE, type Resource } from '../../shared/serviceRecords.ts';
import { createSampleDataset } from '../../electron/main/sampleApi/dataset.ts';
import { pageSizeWithin } from '../../electron/main/sync/decisions.ts';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** Prefix of the one line a bench child prints with its JSON result. */
export const RESULT_MARK = 'BENCH_RESULT ';

/** One row of the result table. `floor`/`ratio`/`target` are null where the metric has none. */
export interface Metric {
  /** Stable key for the JSON output, e.g. `sync.contacts.rate`. */
  key: string;
  /** What is measured, as shown in the table. */
  name: string;
  value: number | null;
  unit: string;
  /** The floor (or reference) the value is compared with, in the same unit. */
  floor?: number | null;
  ratio?: number | null;
  /** The target in words, e.g. `ratio ≥ 0.8`. */
  target?: string;
  /** true = met, false = missed, null = printed only (no target, or not measured). */
  pass: boolean | null;
  /** Why a figure is missing or what it includes. */
  note?: string;
}

/** Sorted copy. */
function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/**
 * Percentile by nearest rank.
 * @param values samples (any order)
 * @param p 0…100
 * @returns NaN for no samples
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank] as number;
}

/** p50, p95 and max of samples in ms. */
export function latencyStats(values: readonly number[]): { p50: number; p95: number; max: number; n: number } {
  return { p50: percentile(values, 50), p95: percentile(values, 95), max: values.length ? Math.max(...values) : Number.NaN, n: values.length };
}

/** Formats a number for the table: thousands separators, sensible decimals. */
export function fmt(value: number | null | undefined, unit = ''): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  const text = value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit ? `${text} ${unit}` : text;
}

/**
 * The markdown table of the metrics: metric, value, floor, ratio, target, pass/fail, one line each.
 * @param options.notes whether each metric's note (its samples, what it includes) follows its name;
 *   docs/benchmarks.md leaves them out, `.bench/latest.md` and the console keep them @default true
 */
export function markdownTable(metrics: readonly Metric[], options: { notes?: boolean } = {}): string {
  const notes = options.notes ?? true;
  const lines = ['| metric | value | floor | ratio | target | result |', '|---|---:|---:|---:|---|---|'];
  for (const m of metrics) {
    const result = m.pass === null ? (m.value === null ? 'not measured' : 'printed') : m.pass ? 'pass' : '**FAIL**';
    const name = notes && m.note ? `${m.name} <sub>(${m.note})</sub>` : m.name;
    lines.push(`| ${name} | ${fmt(m.value, m.unit)} | ${m.floor === undefined ? '' : fmt(m.floor, m.unit)} | ${m.ratio === undefined || m.ratio === null ? '' : m.ratio.toFixed(2)} | ${m.target ?? ''} | ${result} |`);
  }
  return lines.join('\n');
}

/** Peak resident set size (VmHWM) of a process in bytes, or null when /proc is not readable. */
export function peakRss(pid: number | 'self' = 'self'): number | null {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resident memory split as /proc/self/status shows it (bytes); null fields where not on Linux. */
export interface RssParts {
  rss: number;
  /** RssAnon: heap, stacks, SQLite page cache and temp b-trees: memory the process really holds. */
  anon: number | null;
  /** RssFile: file pages mapped into the process: the node binary's code (≈ 58 MiB of Node 24 once warm), libraries, any SQLite mmap of a cache file. */
  file: number | null;
}

function statusParts(status: string, pid: number | 'self'): RssParts {
  const kb = (name: string): number | null => {
    const m = new RegExp(`${name}:\\s+(\\d+)\\s+kB`).exec(status);
    return m ? Number(m[1]) * 1024 : null;
  };
  // A process that has exited but is not yet reaped has a status without VmRSS: it holds nothing.
  return { rss: kb('VmRSS') ?? noStatus(pid).rss, anon: kb('RssAnon'), file: kb('RssFile') };
}

function noStatus(pid: number | 'self'): RssParts {
  return pid === 'self' ? { rss: process.memoryUsage().rss, anon: null, file: null } : { rss: 0, anon: null, file: null };
}

/** Reads VmRSS / RssAnon / RssFile of this process, or of process `pid` (zeros once it has exited). */
export function rssParts(pid: number | 'self' = 'self'): RssParts {
  try {
    return statusParts(readFileSync(`/proc/${pid}/status`, 'utf8'), pid);
  } catch {
    return noStatus(pid);
  }
}

/**
 * {@link rssParts} read on libuv's thread pool. For another process: reading its `status` waits
 * for that process's memory map lock, and while the sync process builds (sorts mapping and
 * unmapping large buffers) a synchronous read blocked the measured event loop for 30–60 ms (a CPU
 * profile of the 1M sync, 24 Nov: the largest delays sat in this read).
 */
export async function rssPartsAsync(pid: number | 'self'): Promise<RssParts> {
  try {
    return statusParts(await readFile(`/proc/${pid}/status`, 'utf8'), pid);
  } catch {
    return noStatus(pid);
  }
}

/**
 * Proportional set size of a process (bytes, `Pss` of `/proc/<pid>/smaps_rollup`): its private pages
 * plus its share of pages mapped by several processes (the node binary's code that the main process
 * and the sync process both map counts half in each), so the PSS of processes adds up to the memory
 * they hold together. Null where Linux does not give it or the process is gone.
 *
 * Asynchronous on purpose: reading `smaps_rollup` walks the process's page tables under its memory
 * map lock (≈ 2.4 ms at 280 MiB, longer while that process maps and unmaps memory), so it runs on
 * libuv's thread pool and never blocks the event loop whose delay the benchmark measures.
 */
export async function pss(pid: number | 'self' = 'self'): Promise<number | null> {
  try {
    const m = /^Pss:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The largest sum of the PSS of several processes sampled at the same moment (bytes), and each part then. */
export interface PssTotal {
  total: number;
  parts: number[];
}

/**
 * Samples the {@link pss} of `pids()` together (read at once) every `everyMs` and keeps the moment
 * with the largest sum: what the processes hold together at most (unlike the sum of their RSS
 * maxima, which counts shared pages twice and adds peaks of different moments). Moments where a
 * process gives no figure are skipped. `stop()` returns that moment, or null if there was none.
 * Far less often than {@link rssSampler}: each read costs milliseconds of CPU.
 */
export function pssTotalSampler(pids: () => (number | 'self' | null)[], everyMs = 250): { stop(): PssTotal | null } {
  let best: PssTotal | null = null;
  let busy = false;
  const sample = async (): Promise<void> => {
    const values = await Promise.all(pids().map((pid) => (pid === null ? null : pss(pid))));
    if (values.some((v) => v === null)) return;
    const parts = values as number[];
    const total = parts.reduce((a, b) => a + b, 0);
    if (!best || total > best.total) best = { total, parts };
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void sample().finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return best;
    },
  };
}

/**
 * Samples {@link rssParts} every `everyMs`; `stop()` returns the largest value seen of each part
 * (the maxima may come from different moments). `label` tags later samples (e.g. the sync phase)
 * so that `byLabel` tells where the peak was. `pid` switches the sampled process (null: none yet;
 * samples of a process that has exited count as zero). Another process is read off the event loop
 * ({@link rssPartsAsync}); `stop()` takes one last sample synchronously.
 */
export function rssSampler(everyMs = 20, pid: number | 'self' | null = 'self'): { stop(): RssParts; readonly max: number; label: string; byLabel: Record<string, RssParts>; pid: number | 'self' | null } {
  const max: RssParts = { rss: 0, anon: null, file: null };
  const byLabel: Record<string, RssParts> = {};
  const state = {
    label: '',
    /** The process sampled: this one, another (the sync process) once it is known, or none yet (null). */
    pid,
    byLabel,
    stop() {
      clearInterval(timer);
      sample();
      return { ...max };
    },
    get max() {
      return max.rss;
    },
  };
  const keep = (into: RssParts, p: RssParts): void => {
    into.rss = Math.max(into.rss, p.rss);
    if (p.anon !== null) into.anon = Math.max(into.anon ?? 0, p.anon);
    if (p.file !== null) into.file = Math.max(into.file ?? 0, p.file);
  };
  const record = (p: RssParts, label: string): void => {
    keep(max, p);
    if (label) keep((byLabel[label] ??= { rss: 0, anon: null, file: null }), p);
  };
  const sample = (): void => {
    if (state.pid !== null) record(rssParts(state.pid), state.label);
  };
  // This process synchronously (cheap); another one asynchronously (see rssPartsAsync), one read at a time.
  let reading = false;
  const tick = (): void => {
    const target = state.pid;
    if (target === null || target === 'self') {
      sample();
      return;
    }
    if (reading) return;
    reading = true;
    const label = state.label;
    void rssPartsAsync(target)
      .then((p) => {
        if (state.pid === target) record(p, label);
      })
      .finally(() => (reading = false));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  tick();
  return state;
}

/** Description of the machine for docs/benchmarks.md. */
export function machine(): Record<string, string | number> {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1]) model = m[1].trim();
  } catch {
    /* not Linux */
  }
  return {
    cpu: model,
    cores: cpus().length,
    memoryTotal: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    memoryFree: `${(freemem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/** True when a repository file exists (modules that are landing while the benchmark is written). */
export function hasModule(relativePath: string): boolean {
  return existsSync(resolve(ROOT, relativePath));
}

/**
 * Imports a repository module by path without a static import, so that the benchmark still type
 * checks and runs while the module does not exist yet.
 * @returns the module namespace, or null when the file is missing
 */
export async function importOptional<T>(relativePath: string): Promise<T | null> {
  const file = resolve(ROOT, relativePath);
  if (!existsSync(file)) return null;
  return (await import(pathToFileURL(file).href)) as T;
}

/** Result of {@link runChild}. */
export interface ChildResult<T> {
  result: T;
  /** Wall time of the child process, ms. */
  wallMs: number;
  /**
   * Largest event-loop delay of THIS (parent) process while the child ran, ms. The parent only
   * waits, so this is the machine's scheduling noise at the same time: a control for the child's
   * own event-loop figures.
   */
  idleMaxDelayMs: number;
  /** The same control over each `phase` the child marked with {@link markPhase} (start … end). */
  idlePhaseMaxDelayMs: Record<string, number>;
  /** This process's late ticks over the child's run, for {@link lateAt}. */
  idleLate: LateTick[];
}

/** A 5 ms timer that fired more than {@link LATE_TICK_MS} late: when it fired (epoch ms) and how late (ms). */
export interface LateTick {
  atEpochMs: number;
  ms: number;
}

/** Lateness from which a tick is kept in {@link ChildResult.idleLate} (ms). */
const LATE_TICK_MS = 5;

/** Ticks kept at most: the latest, so a long run stays bounded. */
const LATE_TICKS_KEPT = 20_000;

/** What {@link lateTicks} saw: the ticks later than {@link LATE_TICK_MS}, and the latest of all with its label then. */
export interface LateTicks {
  late: LateTick[];
  /** The largest lateness (0 and an empty label when every tick was on time). */
  worst: LateTick & { label: string };
}

/**
 * Starts a 5 ms timer that notes each time it fires late ({@link LateTick}): with epoch times, so
 * a delay in one process can be set beside what another process saw at that moment.
 * @param label what the process is doing, noted with the largest lateness
 * @returns a function that stops the timer and returns what it saw
 */
export function lateTicks(label: () => string = () => ''): () => LateTicks {
  const late: LateTick[] = [];
  const worst = { atEpochMs: 0, ms: 0, label: '' };
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const ms = now - last - 5;
    const atEpochMs = performance.timeOrigin + now;
    if (ms > worst.ms) Object.assign(worst, { atEpochMs, ms, label: label() });
    if (ms > LATE_TICK_MS) {
      late.push({ atEpochMs, ms });
      if (late.length > LATE_TICKS_KEPT) late.splice(0, late.length - LATE_TICKS_KEPT);
    }
    last = now;
  }, 5);
  return () => {
    clearInterval(timer);
    return { late, worst };
  };
}

/**
 * The largest lateness among `ticks` whose late span overlaps `[fromEpochMs, toEpochMs]`, or 0: how
 * late another process was over the same moment.
 */
export function lateAt(ticks: readonly LateTick[], fromEpochMs: number, toEpochMs: number): number {
  let worst = 0;
  for (const t of ticks) if (t.atEpochMs >= fromEpochMs && t.atEpochMs - t.ms <= toEpochMs) worst = Math.max(worst, t.ms);
  return worst;
}

/** Prefix of the lines a child prints to mark a phase (`<mark> start|end <name>`). */
export const PHASE_MARK = 'BENCH_PHASE ';

/** Tells the parent that a phase starts or ends (see {@link ChildResult.idlePhaseMaxDelayMs}). */
export function markPhase(edge: 'start' | 'end', name: string): void {
  process.stdout.write(`${PHASE_MARK}${edge} ${name}\n`);
}

/**
 * Runs `node <script> <json>` and returns the JSON the child printed on its {@link RESULT_MARK}
 * line. The child's other output is passed through to stderr, indented.
 * @throws Error with the child's stderr tail when it exits non-zero or prints no result
 */
export function runChild<T>(script: string, input: unknown, options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<ChildResult<T>> {
  const started = performance.now();
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  const stopTicks = lateTicks();
  const phase = monitorEventLoopDelay({ resolution: 5 });
  const phases: Record<string, number> = {};
  let seen = 0;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, JSON.stringify(input)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      for (;;) {
        const at = out.indexOf(PHASE_MARK, seen);
        const eol = at < 0 ? -1 : out.indexOf('\n', at);
        if (at < 0 || eol < 0) break;
        const [edge, name = ''] = out.slice(at + PHASE_MARK.length, eol).split(' ');
        if (edge === 'start') {
          phase.reset();
          phase.enable();
        } else {
          phase.disable();
          phases[name] = Math.max(phases[name] ?? 0, phase.max / 1e6); // a phase marked several times: its worst
        }
        seen = eol + 1;
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      if (err.length > 20_000) err = err.slice(-10_000);
    });
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : null;
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      idle.disable();
      const idleLate = stopTicks().late;
      const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
      if (code !== 0 || !line) {
        reject(new Error(`${script} exited ${code ?? signal}${line ? '' : ' without a result'}: ${err.trim().split('\n').slice(-8).join(' | ')}`));
        return;
      }
      resolvePromise({ result: JSON.parse(line.slice(RESULT_MARK.length)) as T, wallMs: performance.now() - started, idleMaxDelayMs: idle.max / 1e6, idlePhaseMaxDelayMs: phases, idleLate });
    });
  });
}

/** Prints a child's result line (used by the child scripts). */
export function report(result: unknown): void {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(result)}\n`);
}

/** A sample API running in its own process. */
export interface SampleApiProcess {
  baseUrl: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Rows per request the sync asks for `resource` from the sample API: the profile's `pageSize`,
 * divided when a page is over the sync's character budget (sync/decisions.ts `pageSizeWithin`),
 * judged as the sync does from the body of the first page.
 * @param dataset rows and seed of the sample API
 * @param pageSize the profile's rows per request
 */
export function syncPageSize(resource: Resource, dataset: { contacts: number; orders: number; seed: number }, pageSize: number): number {
  const sample = createSampleDataset(dataset);
  const count = resource === 'contacts' ? sample.contactCount : sample.orderCount;
  const rows = resource === 'contacts' ? sample.contactsFrom(0, pageSize) : sample.ordersFrom(0, pageSize);
  return pageSizeWithin(pageSize, rows.length, JSON.stringify({ message: SUCCESS_MESSAGE, data: { count, rows } }).length);
}

/**
 * Starts the loopback sample API in a child process (so that generating and serialising pages
 * does not run on the measured process's event loop) and waits for its base URL.
 * @param options rows, the latency added to every answer, and the page size whose pages the server
 *   serialises once at start (`--prerender-page-size`: then it costs the measured machine only I/O,
 *   as a remote service would, instead of ~1 s of CPU per 100,000 contacts on the same two cores),
 *   and the orders' own page size when it differs (`--prerender-orders-page-size`, {@link syncPageSize}),
 *   and the most rows it serves a page (`--max-page-size`, default 1,000: larger asks get that many)
 */
export function startSampleApiProcess(options: { contacts: number; orders: number; latencyMs?: number; seed?: number; prerenderPageSize?: number; prerenderOrdersPageSize?: number; maxPageSize?: number }): Promise<SampleApiProcess> {
  const args = [
    resolve(ROOT, 'electron/main/sampleApi/server.ts'),
    '--contacts', String(options.contacts),
    '--orders', String(options.orders),
    '--seed', String(options.seed ?? 1),
    '--max-page-size', String(options.maxPageSize ?? 1000),
  ];
  if (options.latencyMs) args.push('--latency-ms', String(options.latencyMs));
  if (options.prerenderPageSize) args.push('--prerender-page-size', String(options.prerenderPageSize));
  if (options.prerenderOrdersPageSize) args.push('--prerender-orders-page-size', String(options.prerenderOrdersPageSize));
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const m = /(http:\/\/\S+\/api\/v1)/.exec(out);
      if (m?.[1]) {
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolvePromise({
          baseUrl: m[1],
          pid: child.pid ?? 0,
          close: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`sample API exited ${code}: ${err.trim()}`)));
  });
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Bytes → MiB, one decimal. */
export const mib = (bytes: number | null): number | null => (bytes === null ? null : Math.round((bytes / 2 ** 20) * 10) / 10);
/** Bytes → MB (10^6 bytes, the unit of the memory targets), one decimal; null stays null. */
export const mb = (bytes: number | null): number | null => (bytes === null ? null : Math.round((bytes / 1e6) * 10) / 10);
