/**
 * Benchmark child: what a person does with a synced cache, through the real handler table (core.ts
 * + ipc/handlers.ts + `dispatchCall`) and the database worker, in a fresh process that plays the
 * Electron main process. Usage: `node test/bench/appChild.ts '<json QueryChildInput>'`.
 *
 *  1. cold open: a new core, then the first page of the contacts view (answered by the startup
 *     reader while the database worker starts, see cache/worker/client.ts), with the database worker the
 *     app ships (the built bundle) when the benchmark could build it; for diagnosis also when the
 *     worker was ready, and the same first page through a client without the startup reader;
 *  2. typeahead: 1-, 2- and 3-letter prefixes, common words, rare words, phone digits, and a search
 *     with a filter, each answered as the table shows it (first 100 rows with the capped count);
 *     the words come from the cache itself (seeded picks), so every scale gets real matches;
 *  3. windows of 100 rows at random offsets of the unfiltered contacts view, for every sort column
 *     in both directions;
 *  3b. a saved view of a tenth of the contacts (test/bench/viewSetup.ts, made before this child
 *     starts): opened (first 100 rows + count, default order and two sorts), then the same
 *     typeahead inputs typed in it;
 *  3c. the kept filters' pane counts (read/kept.ts `keptFacets`), with memberships of the
 *     service's shares written into the cache for the measurement and removed after it (the
 *     sample API's own reads at this scale would cost the run minutes): nothing ticked, a kept
 *     value ticked, a state ticked;
 *  4. optionally a CSV export through the `exportFile` call (the save dialog answers the given
 *     path): its time, the largest event-loop delay of this (main) thread while it runs, and the
 *     memory growth (peak RSS during the export minus RSS just before it; VmHWM is used when it
 *     rose during the export). Done here, in the same open core.
 * Times are per call, measured around `dispatchCall` (validation, handler, worker round trip).
 */
import Database from 'better-sqlite3';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { ExportRequest, ExportResult } from '../../shared/contract.ts';
import type { ContactQuery } from '../../shared/query.ts';
import { CONTACT_SORT_COLUMNS } from '../../shared/query.ts';
import { CacheClient } from '../../electron/main/cache/worker/client.ts';
import { openCache } from '../../electron/main/cache/store/db.ts';
import { queryContacts } from '../../electron/main/cache/read/queries.ts';
import { keptFacets, withoutKept } from '../../electron/main/cache/read/kept.ts';
import { contactViewSql } from '../../electron/main/cache/read/list.ts';
import { createCore, type PlatformServices } from '../../electron/main/core/index.ts';
import { createHandlers } from '../../electron/main/ipc/handlers.ts';
import { dispatchCall } from '../../electron/main/ipc/dispatch.ts';
import { markPhase, peakRss, report, rssParts, rssSampler, type RssParts } from './lib.ts';

/** Input of the child. */
export interface QueryChildInput {
  dataDir: string;
  /** The cache file of the active profile (read directly to pick search words). */
  cacheFile: string;
  /** Random offsets per sort column and direction. */
  windowsPerSort: number;
  /** Queries per typeahead kind. */
  perKind: number;
  seed: number;
  /** Export to run after the reads (`repeat` times, one after the other), or null. */
  export: { path: string; request: ExportRequest; repeat: number } | null;
  /**
   * The built database worker (`out/main/dbWorker.js`, what the app ships), or null to run it
   * from the TypeScript sources.
   */
  builtWorker: string | null;
  /** The saved view to open and type in, or null. */
  viewId: string | null;
}

/** The export part of {@link QueryChildResult}. */
export interface ExportFigures {
  rows: number;
  ms: number;
  /** CPU time (user + system) of the whole process, every thread, during the export, ms. */
  cpuMs: number;
  maxEventLoopDelayMs: number;
  baseRssBytes: number;
  peakRssBytes: number;
  /** peak − base (bytes). */
  growthBytes: number;
  /** RSS split just before the export and the largest sampled values during it. */
  before: RssParts;
  during: RssParts;
}

/** One timed typeahead call. */
export interface TypeaheadSample {
  kind: string;
  search: string;
  filter: boolean;
  ms: number;
  rows: number;
  count: number;
  exact: boolean;
}

/** What the child prints. */
export interface QueryChildResult {
  rows: number;
  coldOpenMs: number;
  /** From the new core until its database worker had opened the file and was ready, ms. */
  workerReadyMs: number;
  /** The first page through a cache client without the startup reader (waiting for the worker thread), ms. */
  coldOpenWithoutReaderMs: number;
  /** Whether the worker ran from the build (else from the TypeScript sources). */
  builtWorker: boolean;
  /** Second call right after the cold open (warm worker), ms. */
  secondPageMs: number;
  /**
   * The cold open taken apart, after the core is closed, on this thread without a worker:
   * `openCache` as the app opens a cache closed cleanly (header + structure checks, pragmas,
   * migrations), the first page query, and the `quick_check` that runs only after an unclean
   * shutdown.
   */
  openInThreadMs: number;
  /** null above 200,000 contacts (a second full check of a multi-GB file costs the run a minute). */
  quickCheckMs: number | null;
  firstPageInThreadMs: number;
  typeahead: TypeaheadSample[];
  /** Exact counts (countContacts) of the first ten searches whose count was capped, ms. */
  exactCountMs: number[];
  /**
   * Facet counts of ten 1- and 2-letter searches (ms), each with a typeahead query asked while
   * they are counted (the next letter typed), and that query's time (ms).
   */
  facets: { search: string; ms: number; queryMs: number }[];
  windows: { sort: string; offset: number; ms: number; rows: number }[];
  /**
   * The kept filters' pane counts (3c): per case, each repeat's time (ms); the members written;
   * the first count of the snapshot, which builds the bitsets (ms).
   */
  keptPane: { cases: { kind: string; ms: number[] }[]; members: number; firstMs: number };
  /** The saved view's samples: its opening (`kind` "open …") and the typeahead inputs typed in it. */
  view: TypeaheadSample[];
  /** Every export run, in order (see QueryChildInput.export). */
  export: ExportFigures[] | null;
}

/** The sample API's shares of each default kept contact value (sampleApi/hidden.ts), by a hash of the id. */
const KEPT_SHARES: readonly { value: string; from: number; to: number }[] = [
  { value: 'Verified', from: 0, to: 0.55 }, { value: 'Corrected', from: 0.55, to: 0.65 }, { value: 'Failed', from: 0.65, to: 0.82 },
];
const RECENT_SHARE = 0.05;

/**
 * 3c: writes memberships for the default kept contact values (address status by the sample's
 * shares, last mailed in 30 days for 5 %), times `keptFacets` for three views, and removes them.
 */
function keptPaneCounts(db: Database.Database): QueryChildResult['keptPane'] {
  const fids = new Map((db.prepare("SELECT value, fid FROM kept_filters WHERE resource = 'contacts'").all() as { value: string; fid: number }[]).map((r) => [r.value, r.fid]));
  const state = db.prepare("SELECT state FROM contacts WHERE state <> '' GROUP BY state ORDER BY count(*) DESC LIMIT 1").pluck().get() as string;
  const saved = db.prepare("SELECT fid, read_at, server_count, members FROM kept_filters WHERE resource = 'contacts'").all() as Record<string, unknown>[];
  let members = 0;
  db.transaction(() => {
    const insert = db.prepare('INSERT OR IGNORE INTO kept_members (fid, id) VALUES (?, ?)');
    for (const id of db.prepare('SELECT id FROM contacts').pluck().all() as string[]) {
      const u = (Math.imul(Number(id) | 0, 2654435761) >>> 0) / 2 ** 32;
      const status = KEPT_SHARES.find((k) => u >= k.from && u < k.to);
      const values = [...(status ? [status.value] : []), ...((u * 7919) % 1 < RECENT_SHARE ? ['30d'] : [])];
      for (const value of values) {
        if (!fids.has(value)) continue;
        insert.run(fids.get(value), id);
        members++;
      }
    }
    db.exec(`UPDATE kept_filters SET read_at = '${new Date().toISOString()}', members = (SELECT count(*) FROM kept_members km WHERE km.fid = kept_filters.fid)
      WHERE resource = 'contacts' AND fid IN (SELECT DISTINCT fid FROM kept_members)`);
  })();
  const cases: { kind: string; query: ContactQuery }[] = [
    { kind: 'nothing ticked', query: {} },
    { kind: 'Failed ticked', query: { kept: [{ param: 'addressStatus', values: ['Failed'] }] } },
    { kind: `a state ticked (${state})`, query: { states: [state] } },
  ];
  // The first count of a snapshot builds the kept values' bitsets (read/keptBits.ts).
  let t = performance.now();
  keptFacets(db, 'contacts', cases[1]!.query.kept, (param) => contactViewSql({ kept: withoutKept(cases[1]!.query.kept, param) }), () => contactViewSql({}));
  const firstMs = performance.now() - t;
  const out = cases.map(({ kind, query }) => {
    const ms: number[] = [];
    for (let i = 0; i < 10; i++) {
      t = performance.now();
      keptFacets(db, 'contacts', query.kept, (param) => contactViewSql({ ...query, kept: withoutKept(query.kept, param) }), () => contactViewSql({ ...query, kept: [] }));
      ms.push(performance.now() - t);
    }
    return { kind, ms };
  });
  db.transaction(() => {
    db.exec("DELETE FROM kept_members WHERE fid IN (SELECT fid FROM kept_filters WHERE resource = 'contacts')");
    const restore = db.prepare('UPDATE kept_filters SET read_at = @read_at, server_count = @server_count, members = @members WHERE fid = @fid');
    for (const row of saved) restore.run(row);
  })();
  return { cases: out, members, firstMs };
}

/** Small seeded generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Picked {
  kind: string;
  search: string;
  filter?: Partial<ContactQuery>;
}

/** Picks search inputs from real rows of the cache (read-only, outside the timed part). */
function pickQueries(file: string, perKind: number, random: () => number): { rows: number; picks: Picked[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const n = (db.prepare('SELECT max(rowid) AS n FROM contacts').get() as { n: number | null }).n ?? 0;
  const at = db.prepare('SELECT first_name, last_name, email, phone_digits, city, state, company_name FROM contacts WHERE rowid = ?');
  const row = (): Record<string, string | null> => (at.get(1 + Math.floor(random() * Math.max(1, n))) ?? {}) as Record<string, string | null>;
  const words = (s: string | null | undefined): string[] => (s ?? '').split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4);
  const picks: Picked[] = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < perKind; i++) picks.push({ kind: '1-letter prefix', search: letters[Math.floor(random() * 26)] as string });
  for (let i = 0; i < perKind; i++) picks.push({ kind: '2-letter prefix', search: (row().last_name ?? 'sm').slice(0, 2).toLowerCase() });
  for (let i = 0; i < perKind; i++) picks.push({ kind: '3-letter prefix', search: (row().first_name ?? 'jen').slice(0, 3).toLowerCase() });
  // Common: city or company words (shared by thousands of rows at 1M); rare: the email's numbered
  // local part or a full name pair (a handful of rows).
  for (let i = 0; i < perKind; i++) {
    const r = row();
    const w = i % 2 === 0 ? words(r.city)[0] : words(r.company_name)[0];
    picks.push({ kind: 'common word', search: w ?? 'land' });
  }
  for (let i = 0; i < perKind; i++) {
    const r = row();
    const local = (r.email ?? '').split('@')[0] ?? '';
    picks.push({ kind: 'rare word', search: local.length > 3 ? local : `${r.first_name ?? ''} ${r.last_name ?? ''}` });
  }
  for (let i = 0; i < perKind; i++) {
    const digits = row().phone_digits ?? '5551234';
    picks.push({ kind: 'phone digits', search: digits.slice(0, 6 + (i % 3)) });
  }
  for (let i = 0; i < perKind; i++) {
    const r = row();
    picks.push({ kind: 'search + filter', search: (r.last_name ?? 'sm').slice(0, 3).toLowerCase(), filter: { states: [r.state ?? 'Texas'], verified: ['yes'] } });
  }
  db.close();
  return { rows: n, picks };
}

type Dispatch = (name: string, payload: unknown) => ReturnType<typeof dispatchCall>;

async function runExport(request: ExportRequest, call: Dispatch): Promise<ExportFigures> {
  global.gc?.();
  const before = rssParts();
  const hwmBefore = peakRss();
  const sampler = rssSampler(10);
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  markPhase('start', 'export');
  histogram.enable();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await call('exportFile', request);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  histogram.disable();
  markPhase('end', 'export');
  const during = sampler.stop();
  if (!result.ok) throw new Error(`export failed: ${result.error.code} ${result.error.message}`);
  const hwm = peakRss();
  // VmHWM cannot be reset: use it only when it rose during the export; else the sampled peak.
  const peak = hwm !== null && hwmBefore !== null && hwm > hwmBefore ? Math.max(hwm, during.rss) : during.rss;
  return {
    rows: (result.value as ExportResult).rows,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxEventLoopDelayMs: histogram.max / 1e6,
    baseRssBytes: before.rss,
    peakRssBytes: peak,
    growthBytes: peak - before.rss,
    before,
    during,
  };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as QueryChildInput;
  const random = rng(input.seed);
  const { rows, picks } = pickQueries(input.cacheFile, input.perKind, random);

  const platform: PlatformServices = {
    showSaveDialog: async () => input.export?.path ?? null,
    showItemInFolder: () => {},
    openExternal: async () => {},
    setProgress: () => {},
  };
  const t0 = performance.now();
  const coreOptions = { dataDir: input.dataDir, version: 'bench', logFile: null, platform, emit: () => {}, keychain: 'session-only', autoSyncAfterMinutes: 0 } as const;
  const core = createCore({ ...coreOptions, ...(input.builtWorker ? { cacheWorkerUrl: pathToFileURL(input.builtWorker) } : {}) });
  const handlers = createHandlers(core);
  const call = async (name: string, payload: unknown): Promise<{ ms: number; value: unknown }> => {
    const t = performance.now();
    const result = await dispatchCall(handlers, name, payload);
    const ms = performance.now() - t;
    if (!result.ok) throw new Error(`${name} failed: ${result.error.code} ${result.error.message}`);
    return { ms, value: result.value };
  };
  await call('queryContacts', { query: {}, window: { offset: 0, limit: 100 } });
  const coldOpenMs = performance.now() - t0;
  await (await core.cache()).started;
  const workerReadyMs = performance.now() - t0;
  const second = await call('queryContacts', { query: {}, window: { offset: 100, limit: 100 } });

  // A few untimed warm-up searches (statement cache, worker JIT), unrelated to the measured ones.
  for (const search of ['zz', 'qu', 'x']) await call('queryContacts', { query: { search }, window: { offset: 0, limit: 100 } });

  const typeahead: TypeaheadSample[] = [];
  const exactCountMs: number[] = [];
  for (const p of picks) {
    const query: ContactQuery = { search: p.search, ...(p.filter ?? {}) };
    const { ms, value } = await call('queryContacts', { query, window: { offset: 0, limit: 100 } });
    const page = value as { rows: unknown[]; total: { count: number; exact: boolean } };
    typeahead.push({ kind: p.kind, search: p.search, filter: p.filter !== undefined, ms, rows: page.rows.length, count: page.total.count, exact: page.total.exact });
    // The exact count the table asks for after a capped one; ten samples are enough (each one can
    // take a second at 1M).
    if (!page.total.exact && exactCountMs.length < 10) exactCountMs.push((await call('countContacts', { query })).ms);
  }

  // The page asks for facet counts once a result has stayed 250 ms; the person may type on.
  const facets: QueryChildResult['facets'] = [];
  for (const p of picks.filter((x) => x.kind === '1-letter prefix' || x.kind === '2-letter prefix').slice(0, 10)) {
    const counting = call('contactFacets', { query: { search: p.search } });
    const typed = await call('queryContacts', { query: { search: `${p.search}a` }, window: { offset: 0, limit: 100 } });
    facets.push({ search: p.search, ms: (await counting).ms, queryMs: typed.ms });
  }

  const windows: QueryChildResult['windows'] = [];
  for (const column of CONTACT_SORT_COLUMNS) {
    for (const direction of ['asc', 'desc'] as const) {
      for (let i = 0; i < input.windowsPerSort; i++) {
        const offset = Math.floor(random() * Math.max(1, rows - 100));
        const { ms, value } = await call('queryContacts', { query: { sort: { column, direction } }, window: { offset, limit: 100 } });
        windows.push({ sort: `${column} ${direction}`, offset, ms, rows: (value as { rows: unknown[] }).rows.length });
      }
    }
  }
  const view: TypeaheadSample[] = [];
  if (input.viewId) {
    const opens: { kind: string; query: ContactQuery }[] = [
      { kind: 'open', query: {} }, { kind: 'open', query: {} }, { kind: 'open, by name', query: { sort: { column: 'name', direction: 'asc' } } },
      { kind: 'open, by city', query: { sort: { column: 'city', direction: 'desc' } } },
    ];
    const typed = picks.map((p) => ({ kind: p.kind, query: { search: p.search, ...(p.filter ?? {}) } as ContactQuery }));
    for (const { kind, query } of [...opens, ...typed]) {
      const { ms, value } = await call('queryContacts', { query: { ...query, view: input.viewId }, window: { offset: 0, limit: 100 } });
      const page = value as { rows: unknown[]; total: { count: number; exact: boolean } };
      view.push({ kind, search: query.search ?? '', filter: query.states !== undefined, ms, rows: page.rows.length, count: page.total.count, exact: page.total.exact });
    }
  }
  const exported: ExportFigures[] | null = input.export ? [] : null;
  for (let i = 0; input.export && exported && i < input.export.repeat; i++) exported.push(await runExport(input.export.request, (name, payload) => dispatchCall(handlers, name, payload)));
  await core.close();

  // The same first page without the startup reader: the worker thread's start, its open, the query.
  const t1 = performance.now();
  const direct = await CacheClient.open(input.cacheFile, { startupReader: false, ...(input.builtWorker ? { workerUrl: pathToFileURL(input.builtWorker) } : {}) });
  await direct.queryContacts({}, { offset: 0, limit: 100 });
  const coldOpenWithoutReaderMs = performance.now() - t1;
  await direct.close();

  let t = performance.now();
  const db = openCache(input.cacheFile);
  const openInThreadMs = performance.now() - t;
  let quickCheckMs: number | null = null;
  if (rows <= 200_000) {
    t = performance.now();
    db.pragma('quick_check(1)');
    quickCheckMs = performance.now() - t;
  }
  t = performance.now();
  queryContacts(db, {}, { offset: 0, limit: 100 });
  const firstPageInThreadMs = performance.now() - t;
  const keptPane = keptPaneCounts(db);
  db.close();
  const result: QueryChildResult = { rows, coldOpenMs, workerReadyMs, coldOpenWithoutReaderMs, builtWorker: input.builtWorker !== null, secondPageMs: second.ms, openInThreadMs, quickCheckMs, firstPageInThreadMs, typeahead, exactCountMs, facets, windows, keptPane, view, export: exported };
  report(result);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
