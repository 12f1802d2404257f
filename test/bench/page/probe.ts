/**
 * The page section's instruments, installed in the page before the app loads (an init script made
 * from {@link installProbe}'s source): nothing of the app's code is changed, everything is read
 * from the outside.
 *
 *  - Calls: the harness's transport (`window.__letterdeskInvoke`, what the preload is in Electron)
 *    is wrapped, so every call's name, input, answer and times are known in the page.
 *  - Painted: an armed wait checks at each animation frame whether the DOM shows what the action
 *    brought (the first row of a query's answer in the grid's first row, the record's id in the
 *    detail panel, a row on screen with its data); the frame in which it first does is then
 *    painted, and a message posted from that frame's animation callback runs after the paint: its
 *    time is the end. The start is the input event's own `timeStamp` (the last keydown or click
 *    after the wait was armed), or the moment the page itself acted (a jump). Each sample becomes
 *    a `performance.measure` named `ld <label>`.
 *  - Long tasks and long animation frames: PerformanceObservers (`longtask`,
 *    `long-animation-frame`) from the start, read per phase.
 *
 * The function must stay self-contained: it runs as the text of its own source in the page.
 */

/** What ends a wait (see {@link installProbe}). */
export type Until =
  /** The answer of a matching call of `call` (offset 0) is shown: its first row in the grid's first row. */
  | { kind: 'rows'; call: string; search?: string; sort?: { column: string; direction: string } | null }
  /** A `getContact` answer is shown: its contact's id in the detail panel. */
  | { kind: 'detail' }
  /** Data row `index` (0-based) is on screen and every row on screen has its data. */
  | { kind: 'row'; index: number }
  /** None of the rows on screen when armed is left, and every row on screen has its data. */
  | { kind: 'moved' };

/** The result of one wait, as the page measured it (ms; see types.ts `PageSample`). */
export interface WaitResult {
  label: string;
  ms: number;
  domMs: number;
  sentMs: number | null;
  callMs: number | null;
  earlierCalls: number;
  error?: string;
}

/** Long tasks and long animation frames of a phase, ms. */
export interface PhaseResult {
  longTasks: number[];
  longFrames: number[];
}

/** What the probe offers the benchmark, as `window.__ldBench`. */
export interface Probe {
  /** Arms a wait that starts at the next input event of `start` (or now) and ends when `until` is painted. */
  arm(label: string, start: 'key' | 'click' | 'now', until: Until, timeoutMs?: number): number;
  /** The result of wait `id` once painted (or timed out, with `error`). */
  result(id: number): Promise<WaitResult>;
  /** Scrolls the grid to `fraction` of its range and measures until the rows there are painted. */
  jump(fraction: number): Promise<WaitResult>;
  /** Starts a phase (for its long tasks); returns its start time. */
  phaseStart(): number;
  /** Long tasks and long frames since `start`. */
  phaseEnd(start: number): PhaseResult;
  /** Resolves with the time (performance.now()) at which every row on screen has its data painted. */
  filled(timeoutMs?: number): Promise<number>;
  /** Resolves once no call has been waiting for its answer for `quietMs` (the app is at rest). */
  idle(quietMs: number, timeoutMs?: number): Promise<void>;
  /** The data row (0-based) at the top of the grid's screen, or -1. */
  topRow(): number;
  /** Where the grid's vertical scrollbar is (viewport coordinates), and its scroll position. */
  scrollbar(): { x: number; top: number; bottom: number; scrollTop: number; range: number } | null;
  /** The result of the wait armed before the app loaded: navigation → first rows painted. */
  opened: Promise<WaitResult>;
}

/**
 * Installs `window.__ldBench` ({@link Probe}) in the page. Run as an init script:
 * `(${installProbe.toString()})(gridSelector)`.
 * @param gridSelector the contacts grid (`[role="grid"][aria-label="Contacts"]`)
 */
export function installProbe(gridSelector: string): void {
  interface Call {
    name: string;
    input: unknown;
    sent: number;
    answered: number | null;
    value: unknown;
  }
  interface Wait {
    id: number;
    label: string;
    start: 'key' | 'click' | 'now';
    until: Until;
    armedAt: number;
    /** Rows on screen when armed ('moved'). */
    before: Set<string>;
    done: (result: WaitResult) => void;
    promise: Promise<WaitResult>;
    deadline: number;
  }
  const w = window as unknown as { __letterdeskInvoke?: (name: string, input: unknown) => Promise<unknown>; __ldBench?: Probe };
  const calls: Call[] = [];
  let lastKey = -1;
  let lastClick = -1;
  addEventListener('keydown', (e) => (lastKey = e.timeStamp), { capture: true });
  addEventListener('click', (e) => (lastClick = e.timeStamp), { capture: true });

  // The transport: wrapped as soon as the harness has defined it (its init script runs first).
  const wrap = (): void => {
    const original = w.__letterdeskInvoke;
    if (!original || (original as { wrapped?: boolean }).wrapped) return;
    const wrapped = (name: string, input: unknown): Promise<unknown> => {
      const call: Call = { name, input, sent: performance.now(), answered: null, value: null };
      calls.push(call);
      if (calls.length > 5000) calls.splice(0, 1000);
      return original(name, input).then((answer) => {
        call.answered = performance.now();
        call.value = (answer as { ok?: boolean; value?: unknown }).ok ? (answer as { value: unknown }).value : null;
        return answer;
      });
    };
    Object.assign(wrapped, { wrapped: true });
    w.__letterdeskInvoke = wrapped;
  };
  wrap();

  const long: { longtask: PerformanceEntry[]; frame: PerformanceEntry[] } = { longtask: [], frame: [] };
  const observers: PerformanceObserver[] = [];
  for (const [type, into] of [['longtask', long.longtask], ['long-animation-frame', long.frame]] as const) {
    try {
      const o = new PerformanceObserver((list) => void into.push(...list.getEntries()));
      o.observe({ type, buffered: true });
      observers.push(o);
    } catch {
      // Not offered by this browser: the phase reports none of that kind.
    }
  }

  const grid = (): HTMLElement | null => document.querySelector<HTMLElement>(gridSelector);
  /** Rows of the grid on screen (below its sticky header), by their aria-rowindex. */
  const rowsOnScreen = (): HTMLElement[] => {
    const g = grid();
    if (!g) return [];
    const box = g.getBoundingClientRect();
    const header = g.querySelector('[role="row"][aria-rowindex="1"]')?.getBoundingClientRect().bottom ?? box.top;
    const out: HTMLElement[] = [];
    for (const row of g.querySelectorAll<HTMLElement>('[role="row"]')) {
      if (row.getAttribute('aria-rowindex') === '1') continue;
      const r = row.getBoundingClientRect();
      if (r.bottom > header + 1 && r.top < box.bottom - 1) out.push(row);
    }
    return out;
  };
  const filledNow = (): boolean => {
    const rows = rowsOnScreen();
    return rows.length > 0 && rows.every((r) => r.querySelector('.skeleton') === null);
  };
  const marker = (row: Record<string, unknown>): string => String(row.email || row.fullName || row.companyName || '');
  const sameSort = (a: unknown, b: { column: string; direction: string } | null): boolean => {
    const x = (a ?? null) as { column?: string; direction?: string } | null;
    return x === null || b === null ? x === b : x.column === b.column && x.direction === b.direction;
  };
  const matches = (call: Call, until: Until): boolean => {
    if (until.kind === 'detail') return call.name === 'getContact';
    if (until.kind !== 'rows' || call.name !== until.call) return false;
    const input = (call.input ?? {}) as { query?: { search?: string; sort?: unknown }; window?: { offset?: number } };
    if ((input.window?.offset ?? 0) !== 0) return false;
    if (until.search !== undefined && (input.query?.search ?? '').trim() !== until.search.trim()) return false;
    if (until.sort !== undefined && !sameSort(input.query?.sort, until.sort)) return false;
    return true;
  };

  let nextId = 1;
  const waits = new Map<number, Wait>();

  /** The call that brought the result of `wait`: the last matching one sent after it was armed. */
  const callOf = (wait: Wait): Call | null => {
    for (let i = calls.length - 1; i >= 0; i--) {
      const c = calls[i] as Call;
      if (c.sent < wait.armedAt) break;
      if (matches(c, wait.until)) return c;
    }
    return null;
  };
  const shown = (wait: Wait): boolean => {
    const u = wait.until;
    if (u.kind === 'rows' || u.kind === 'detail') {
      const call = callOf(wait);
      if (!call || call.answered === null || call.value === null) return false;
      if (u.kind === 'detail') {
        const id = String((call.value as { contact?: { id?: string } }).contact?.id ?? '');
        return id !== '' && (document.querySelector('[data-testid="detail-panel"]')?.textContent ?? '').includes(id);
      }
      const first = ((call.value as { rows?: Record<string, unknown>[] }).rows ?? [])[0];
      const row = grid()?.querySelector('[role="row"][aria-rowindex="2"]');
      return first !== undefined && row !== null && row !== undefined && row.querySelector('.skeleton') === null && (row.textContent ?? '').includes(marker(first));
    }
    if (u.kind === 'row') {
      const rows = rowsOnScreen();
      return rows.some((r) => r.getAttribute('aria-rowindex') === String(u.index + 2)) && rows.every((r) => r.querySelector('.skeleton') === null);
    }
    const rows = rowsOnScreen();
    return rows.length > 0 && rows.every((r) => !wait.before.has(r.getAttribute('aria-rowindex') ?? '') && r.querySelector('.skeleton') === null);
  };
  /** What the page showed instead, for the error of a wait that timed out. */
  const diagnosis = (wait: Wait): string => {
    const sent = calls.filter((c) => c.sent >= wait.armedAt).map((c) => `${c.name} ${JSON.stringify(c.input).slice(0, 120)}${c.answered === null ? ' (no answer)' : ''}`);
    const call = callOf(wait);
    const first = call ? ((call.value as { rows?: Record<string, unknown>[] } | null)?.rows ?? [])[0] : undefined;
    const row = grid()?.querySelector('[role="row"][aria-rowindex="2"]')?.textContent ?? '(none)';
    return `calls since armed: ${sent.join('; ') || 'none'}; the answer's first row: ${first ? marker(first) : '(none)'}; the grid's first row: ${row.slice(0, 160)}`;
  };
  const lastRead = (start: number, by: number): Call | null => {
    for (let i = calls.length - 1; i >= 0; i--) {
      const c = calls[i] as Call;
      if (c.sent < start) break;
      if (c.name === 'queryContacts' && c.answered !== null && c.answered <= by) return c;
    }
    return null;
  };
  const startOf = (wait: Wait): number | null => {
    if (wait.start === 'now') return wait.armedAt;
    const t = wait.start === 'key' ? lastKey : lastClick;
    return t >= wait.armedAt - 1 ? t : null;
  };

  /** Checks every armed wait at each animation frame (before that frame is painted). */
  const onFrame = (): void => {
    const now = performance.now();
    for (const wait of [...waits.values()]) {
      const start = startOf(wait);
      if (now > wait.deadline) {
        waits.delete(wait.id);
        wait.done({ label: wait.label, ms: Number.NaN, domMs: Number.NaN, sentMs: null, callMs: null, earlierCalls: 0, error: `not painted within ${Math.round(wait.deadline - wait.armedAt)} ms (${start === null ? 'no input event seen' : 'the page never showed the result'}; ${diagnosis(wait)})` });
        continue;
      }
      if (start === null || !shown(wait)) continue;
      waits.delete(wait.id);
      // For a scroll or a key, the page read that brought the rows: the last one answered by now.
      const call = wait.until.kind === 'rows' || wait.until.kind === 'detail' ? callOf(wait) : lastRead(start, now);
      const earlier = call ? calls.filter((c) => c.name === call.name && c.sent >= start && c.sent < call.sent).length : 0;
      // A message posted now is delivered after this frame's rendering: the paint.
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const end = performance.now();
        performance.measure(`ld ${wait.label}`, { start, end });
        wait.done({
          label: wait.label, ms: end - start, domMs: now - start, sentMs: call ? call.sent - start : null,
          callMs: call && call.answered !== null ? call.answered - call.sent : null, earlierCalls: earlier,
        });
        channel.port1.close();
      };
      channel.port2.postMessage(null);
    }
    if (waits.size > 0) requestAnimationFrame(onFrame);
  };

  const arm = (label: string, start: 'key' | 'click' | 'now', until: Until, timeoutMs = 20_000): number => {
    wrap();
    const id = nextId++;
    let done: (r: WaitResult) => void = () => {};
    const promise = new Promise<WaitResult>((resolve) => (done = resolve));
    const before = new Set(until.kind === 'moved' ? rowsOnScreen().map((r) => r.getAttribute('aria-rowindex') ?? '') : []);
    const armedAt = performance.now();
    waits.set(id, { id, label, start, until, armedAt, before, done, promise, deadline: armedAt + timeoutMs });
    if (waits.size === 1) requestAnimationFrame(onFrame);
    return id;
  };
  const pending = new Map<number, Promise<WaitResult>>();
  const armKept = (label: string, start: 'key' | 'click' | 'now', until: Until, timeoutMs?: number): number => {
    const id = arm(label, start, until, timeoutMs);
    pending.set(id, (waits.get(id) as Wait).promise);
    return id;
  };

  // Navigation → the first rows painted (the wait starts at the page's time origin).
  const opened = new Promise<WaitResult>((resolve) => {
    const check = (): void => {
      const row = grid()?.querySelector('[role="row"][aria-rowindex="2"]');
      if (row && row.querySelector('.skeleton') === null) {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          const end = performance.now();
          performance.measure('ld open', { start: 0, end });
          resolve({ label: 'open', ms: end, domMs: end, sentMs: null, callMs: null, earlierCalls: 0 });
        };
        channel.port2.postMessage(null);
        return;
      }
      requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });

  const probe: Probe = {
    arm: armKept,
    result(id) {
      const p = pending.get(id);
      pending.delete(id);
      return p ?? Promise.resolve({ label: '?', ms: Number.NaN, domMs: Number.NaN, sentMs: null, callMs: null, earlierCalls: 0, error: `no wait ${id}` });
    },
    jump(fraction) {
      const g = grid();
      const id = armKept(`jump to ${(fraction * 100).toFixed(1)} %`, 'now', { kind: 'moved' });
      if (g) g.scrollTop = Math.round(fraction * (g.scrollHeight - g.clientHeight));
      return probe.result(id);
    },
    phaseStart: () => performance.now(),
    phaseEnd(start) {
      for (const o of observers) {
        const into = long.longtask;
        for (const e of o.takeRecords()) (e.entryType === 'longtask' ? into : long.frame).push(e);
      }
      const since = (list: PerformanceEntry[]): number[] => list.filter((e) => e.startTime >= start).map((e) => e.duration);
      return { longTasks: since(long.longtask), longFrames: since(long.frame) };
    },
    filled(timeoutMs = 30_000) {
      const deadline = performance.now() + timeoutMs;
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (filledNow()) resolve(performance.now());
          else if (performance.now() > deadline) reject(new Error(`rows on screen still without data after ${timeoutMs} ms`));
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
    },
    idle(quietMs, timeoutMs = 60_000) {
      const deadline = performance.now() + timeoutMs;
      let quietSince = performance.now();
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const t = performance.now();
          if (calls.some((c) => c.answered === null)) quietSince = t;
          if (t - quietSince >= quietMs) resolve();
          else if (t > deadline) reject(new Error(`calls still unanswered after ${timeoutMs} ms: ${calls.filter((c) => c.answered === null).map((c) => c.name).join(', ')}`));
          else setTimeout(check, 10);
        };
        check();
      });
    },
    topRow() {
      const first = rowsOnScreen()[0];
      return first ? Number(first.getAttribute('aria-rowindex')) - 2 : -1;
    },
    scrollbar() {
      const g = grid();
      if (!g) return null;
      const box = g.getBoundingClientRect();
      const width = g.offsetWidth - g.clientWidth;
      if (width <= 0) return null;
      return { x: box.right - width / 2, top: box.top, bottom: box.top + g.clientHeight, scrollTop: g.scrollTop, range: g.scrollHeight - g.clientHeight };
    },
    opened,
  };
  Object.defineProperty(window, '__ldBench', { value: probe });
}
