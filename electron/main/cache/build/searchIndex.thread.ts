/**
 * The worker thread's side of searchIndexBuild.ts, on a connection of its own (another core than
 * the sync connection's) with the cache attached: indexes a read's pages as they are staged, then
 * at the build computes part of it into a file of its own (the build file) and finishes the search
 * index in another.
 */
import Database from 'better-sqlite3';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { registerLocaleKey } from '../store/collation.ts';
import { createPrivateFile, tableDefinitionAs } from '../store/db.ts';
import { OUTCOME, SLOT, THREAD_POSITIONS_TABLE, type SearchIndexMessage, type SearchIndexWorkerData, type StagedRead } from './searchIndexBuild.ts';
import { SOURCES, beginBulkIndexing, emptyIndex, endBulkIndexing, fillSql, ftsColumnsOf, threadIndexOf, threadInputs, withoutAutomerge, writeLabels } from './searchIndexFill.ts';
import { BUILD_SOURCES, writePositions } from './sortPositions.ts';

/** KiB of page cache for each database the thread's connection uses. */
const THREAD_CACHE_KIB = 2048;

/**
 * The thread's nice value while it indexes staged pages, the lowest: below the read's own work
 * (fetching, parsing, staging; the sync process runs at nice 10, syncProcess.ts), so that
 * it takes only a core the read leaves idle.
 */
const STAGED_NICE = 19;

/**
 * Rows of staged pages the thread indexes a transaction while pages are staged: about what fills
 * FTS5's buffer once.
 */
const STAGED_CHUNK_ROWS = 20_000;

/** The table in the thread's file that holds staged pages' text until it goes into the index. */
const STAGED_TEXT = 'staged_text';

/** How often the thread checkpoints the cache's WAL while the build writes (ms). */
const CHECKPOINT_INTERVAL_MS = 100;

/**
 * Sets the calling thread's nice value where a thread has one of its own (Linux: its task id);
 * elsewhere, or where it may not, does nothing. It stays for the thread's life: raising a
 * priority again needs a privilege the app does not have.
 */
function setThreadNice(nice: number): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // Not allowed: the thread keeps the priority it has.
  }
}

/**
 * Turns the rollback journal and fsync off for `schemas` of `db`. Defensive mode (better-sqlite3's
 * default) silently keeps the journal, so it is lifted for the pragma; the mode stays once set.
 * @throws when a schema still keeps a journal afterwards
 */
export function withoutJournal(db: Database.Database, schemas: readonly string[]): void {
  db.unsafeMode(true);
  try {
    for (const schema of schemas) {
      const mode = db.pragma(`${schema}.journal_mode = OFF`, { simple: true });
      if (mode !== 'off') throw new Error(`${schema}: journal_mode stayed ${String(mode)}`);
      db.pragma(`${schema}.synchronous = OFF`);
    }
  } finally {
    db.unsafeMode(false);
  }
}

/**
 * The search index filled while a read's pages are staged. Each page, as it is staged, has its
 * rows' text read at once into a table of the thread's own file (a short read of the cache, so
 * that the read's checkpoints are not kept from emptying its WAL), each row under its place in the
 * service's order (row i of page p at p × pageSize + i + 1). The contiguous run from page 0 then
 * goes into the index, {@link STAGED_CHUNK_ROWS} rows or more a transaction, in increasing rowids
 * so FTS5 writes no more segments than its buffer makes. Each contact's labels are read from its
 * own list (no label table exists yet). Whether that index is the build's is known only at the
 * build ({@link matches}). A page that cannot be indexed stops the filling: the build then fills
 * the index again. After each page the thread also checkpoints the cache's WAL, off the read's
 * core ({@link #checkpoint}).
 */
export class StagedIndex {
  readonly #db: Database.Database;
  readonly #fts: string;
  readonly #read: StagedRead;
  readonly #extract: Database.Statement;
  readonly #load: Database.Statement;
  readonly #unload: Database.Statement;
  readonly #building: () => boolean;
  /** Pages staged and not yet in the index; `read` once their text is in the thread's table. */
  readonly #waiting = new Map<number, { firstRowid: number | null; rows: number; read: boolean }>();
  /** The next page to index: pages before it are indexed. */
  #next = 0;
  /** The place (rowid in the index) of each staged rowid read; 0 for none. */
  #placeOf = new Int32Array(1 << 16);
  #indexed = 0;
  #stopped = false;
  /** Whether the thread still checkpoints the cache after each page ({@link #checkpoint}). */
  #checkpoints = true;

  /** @param building whether the build has begun: pages are then only recorded, and indexed after the build's part */
  constructor(db: Database.Database, resource: Resource, read: StagedRead, building: () => boolean) {
    const { fts, stage } = threadIndexOf(resource);
    const columns = ftsColumnsOf(resource);
    this.#building = building;
    this.#db = db;
    this.#fts = fts;
    this.#read = read;
    beginBulkIndexing(db, fts);
    db.exec(`CREATE TABLE main.${STAGED_TEXT} (rowid INTEGER PRIMARY KEY, ${columns})`);
    this.#extract = db.prepare(fillSql(resource, `main.${STAGED_TEXT}`, 'x.rowid + ?', `${stage} x WHERE x.rowid BETWEEN ? AND ?`, threadInputs(true)));
    this.#load = db.prepare(`INSERT INTO ${fts} (rowid, ${columns}) SELECT rowid, ${columns} FROM main.${STAGED_TEXT} WHERE rowid BETWEEN ? AND ? ORDER BY rowid`);
    this.#unload = db.prepare(`DELETE FROM main.${STAGED_TEXT} WHERE rowid BETWEEN ? AND ?`);
  }

  /** Page `page` is staged: `rows` rows from staging rowid `firstRowid` on (null: none). */
  pageStaged(page: number, firstRowid: number | null, rows: number): void {
    const recorded = this.#record(page, firstRowid, rows);
    if (this.#building()) return;
    if (recorded) this.#indexReady(false);
    this.#checkpoint();
  }

  /** Notes a staged page for the index. @returns false when the filling has stopped (a page staged twice) */
  #record(page: number, firstRowid: number | null, rows: number): boolean {
    if (this.#stopped) return false;
    if (page < this.#next || this.#waiting.has(page) || (rows > 0 && firstRowid === null)) {
      // A page staged twice: its earlier rows may have been replaced.
      this.#stopped = true;
      return false;
    }
    this.#waiting.set(page, { firstRowid, rows, read: false });
    return true;
  }

  /**
   * Copies the pages committed so far from the cache's WAL into its file ('PASSIVE': never
   * waiting for the writer), so that the read's connection, whose own checkpoints then find
   * little left to copy, spends its core on the next pages. Its WAL starts over once a
   * checkpoint has copied all of it. The first error ends these checkpoints: the connection's
   * own still run (at the size store/db.ts sets).
   */
  #checkpoint(): void {
    if (!this.#checkpoints) return;
    try {
      this.#db.pragma('cache.wal_checkpoint(PASSIVE)');
    } catch (error) {
      console.error('search index: checkpointing the cache while its pages are staged failed; the read does it', error);
      this.#checkpoints = false;
    }
  }

  /**
   * Reads the text of the pages not read yet, then indexes the contiguous run of read pages from
   * {@link #next}: once it holds a chunk's rows or reaches the last page, or with `all` whatever
   * it holds.
   */
  #indexReady(all: boolean): void {
    try {
      for (const [page, p] of this.#waiting) {
        if (p.read) continue;
        if (p.firstRowid !== null && p.rows > 0) {
          const place = page * this.#read.pageSize + 1;
          this.#indexed += this.#extract.run(place - p.firstRowid, p.firstRowid, p.firstRowid + p.rows - 1).changes;
          this.#place(p.firstRowid, p.rows, place);
        }
        p.read = true;
      }
      let rows = 0;
      let end = this.#next;
      for (let p = this.#waiting.get(end); p; p = this.#waiting.get(++end)) rows += p.rows;
      if (end === this.#next || (!all && rows < STAGED_CHUNK_ROWS && end < this.#read.pages)) return;
      const first = this.#next * this.#read.pageSize + 1;
      const last = end * this.#read.pageSize;
      this.#db.transaction(() => {
        this.#load.run(first, last);
        this.#unload.run(first, last);
      })();
      for (let page = this.#next; page < end; page++) this.#waiting.delete(page);
      this.#next = end;
    } catch (error) {
      console.error('search index: indexing the staged pages failed; the build fills the index itself', error);
      this.#stopped = true;
    }
  }

  /** Records that staging rowids `firstRowid` … `firstRowid + n − 1` were read at `place` … on. */
  #place(firstRowid: number, n: number, place: number): void {
    const last = firstRowid + n - 1;
    if (last >= this.#placeOf.length) {
      const grown = new Int32Array(Math.max(last + 1, this.#placeOf.length * 2));
      grown.set(this.#placeOf);
      this.#placeOf = grown;
    }
    for (let i = 0; i < n; i++) this.#placeOf[firstRowid + i] = place + i;
  }

  /**
   * Whether the index holds every staged row under its rowid in the new mirror: every page of the
   * read was indexed once, and each row of the default-order numbering `positions` (`rn`, `srow`)
   * was indexed at `rn`, as many rows as it numbers.
   */
  matches(positions: string): boolean {
    this.#indexReady(true);
    if (this.#stopped || this.#next < this.#read.pages) return false;
    let numbered = 0;
    for (const [rn, srow] of this.#db.prepare(`SELECT rn, srow FROM ${positions}`).raw().iterate() as IterableIterator<[number, number]>) {
      if (srow >= this.#placeOf.length || this.#placeOf[srow] !== rn) return false;
      numbered += 1;
    }
    return numbered === this.#indexed;
  }

  /** Keeps the index: merges it into one segment. */
  keep(): void {
    endBulkIndexing(this.#db, this.#fts);
  }

  /** Empties the index for the build to fill it again. */
  discard(): void {
    emptyIndex(this.#db, this.#fts);
    this.#db.exec(`DELETE FROM main.${STAGED_TEXT}`);
    this.#placeOf = new Int32Array(0);
  }
}

/**
 * The thread's work at the build, in `db` (the thread's own file, with the cache attached as
 * `cache` and its build file as `build`): writes the staged contacts' labels to the build file,
 * with the definitions of the cache's tables, and numbers the staged rows in the default order,
 * their rowids in the mirror to be, with the positions of `resource`'s `threadPositions` (both by
 * the same function as the build's other positions: sortPositions.ts `writePositions`); calls
 * `written`; then keeps the index `staged` filled while the pages were staged if it is the
 * build's, or fills the index (created by {@link prepareThread}) from the staged rows in that
 * order, `chunkRows` rows a statement.
 * @returns whether the index filled while the pages were staged was kept
 * @throws on any SQLite error (the build then does what is missing itself)
 */
export function fillInScratch(db: Database.Database, resource: Resource, written: () => void, chunkRows: number, staged: StagedIndex | null = null): boolean {
  const { stage, threadPositions } = BUILD_SOURCES[resource];
  const { fts } = threadIndexOf(resource);
  let ownLabelsAgree = true;
  if (resource === 'contacts') {
    for (const table of ['labels', 'contact_labels']) db.exec(tableDefinitionAs(db, 'cache', table, `build.${table}`));
    ownLabelsAgree = writeLabels(db, `cache.${stage}`, 'build.labels', 'build.contact_labels');
  }
  writePositions(db, resource, 'cache', 'build', THREAD_POSITIONS_TABLE, threadPositions);
  written();
  const positions = `build.${THREAD_POSITIONS_TABLE}`;
  if (staged) {
    if (ownLabelsAgree && staged.matches(positions)) {
      staged.keep();
      return true;
    }
    staged.discard();
  }
  const range = `${positions} o JOIN cache.${stage} x ON x.rowid = o.srow WHERE o.rn BETWEEN ? AND ? ORDER BY o.rn`;
  const insert = db.prepare(fillSql(resource, fts, 'o.rn', range, threadInputs(false)));
  const rows = (db.prepare(`SELECT count(*) AS n FROM ${positions}`).get() as { n: number }).n;
  // One statement a chunk, each its own transaction: a read of the cache that lasted the whole
  // fill would keep the connection's checkpoints from emptying its WAL, which would then grow
  // by everything the build writes meanwhile.
  withoutAutomerge(db, fts, () => {
    for (let from = 1; from <= rows; from += chunkRows) insert.run(from, from + chunkRows - 1);
  });
  return false;
}

/**
 * Opens the thread's connection: its own file (`data.scratchFile`, with the search index created
 * by the cache's definition), the cache attached as `cache` and the build file as `build`.
 * @throws on any SQLite or file error
 */
export function prepareThread(data: SearchIndexWorkerData): Database.Database {
  // Both files hold the cache's personal data: private like the cache's own files.
  createPrivateFile(data.scratchFile);
  createPrivateFile(data.buildFile);
  const db = new Database(data.scratchFile);
  try {
    db.prepare('ATTACH DATABASE ? AS cache').run(data.cacheFile);
    db.prepare('ATTACH DATABASE ? AS build').run(data.buildFile);
    // Throwaway files: no journal to keep, no fsync; the sorts in temporary files.
    withoutJournal(db, ['main', 'build']);
    // Each file's pages are read or written mostly in order: small page caches (SQLite's default
    // here is 16 MiB each, and the sync process's memory is bounded).
    for (const schema of ['main', 'cache', 'build', 'temp']) db.pragma(`${schema}.cache_size = -${THREAD_CACHE_KIB}`);
    db.pragma('temp_store = FILE');
    db.pragma('busy_timeout = 5000');
    registerLocaleKey(db);
    const { fts } = threadIndexOf(data.resource);
    db.exec(tableDefinitionAs(db, 'cache', SOURCES[data.resource].fts, fts));
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Where the worker's messages come from (`parentPort`). */
export interface MessageSource {
  on(event: 'message', listener: (message: SearchIndexMessage) => void): unknown;
  close(): void;
}

/**
 * Checkpoints the cache's WAL ('PASSIVE': never waiting for the writer) every
 * {@link CHECKPOINT_INTERVAL_MS} until the build sets the stop slot: the build's connection, which
 * stops checkpointing meanwhile, goes on writing while the pages it wrote are copied into the file
 * on this thread's core. Any error ends the loop (the connection checkpoints again afterwards).
 */
function checkpointUntilStopped(cacheFile: string, flags: Int32Array): void {
  let db: Database.Database | null = null;
  try {
    db = new Database(cacheFile, { fileMustExist: true });
    while (Atomics.load(flags, SLOT.stop) === 0) {
      db.pragma('wal_checkpoint(PASSIVE)');
      Atomics.wait(flags, SLOT.stop, 0, CHECKPOINT_INTERVAL_MS);
    }
  } catch (error) {
    console.error('search index: checkpointing the cache from its thread failed; the build does it', error);
  } finally {
    db?.close();
  }
}

/**
 * The worker thread's work: opens its connection, indexes the pages `port` says are staged (with
 * `data.staged`; at a lower priority), and at 'build' writes `data.resource`'s part of the build
 * into `data.buildFile` (setting the written slot) and finishes the search index in
 * `data.scratchFile`; closes its files and sets the outcome slot of `data.state` (done or
 * failed), waking the waiting build; then, when done, checkpoints the cache until the build sets
 * the stop slot. Closes `port`. Never throws.
 */
export function runSearchIndexWorker(data: SearchIndexWorkerData, port: MessageSource): void {
  const flags = new Int32Array(data.state);
  Atomics.store(flags, SLOT.started, 1);
  const end = (db: Database.Database | null, outcome: number) => {
    try {
      db?.close();
    } catch {
      // The file is deleted by the build either way.
    }
    Atomics.store(flags, SLOT.outcome, outcome);
    // The build may be waiting on either slot.
    Atomics.notify(flags, SLOT.outcome);
    Atomics.notify(flags, SLOT.written);
    if (outcome === OUTCOME.done) checkpointUntilStopped(data.cacheFile, flags);
    port.close();
  };
  let db: Database.Database;
  let staged: StagedIndex | null = null;
  try {
    db = prepareThread(data);
    if (data.staged) {
      staged = new StagedIndex(db, data.resource, data.staged, () => Atomics.load(flags, SLOT.building) === 1);
      setThreadNice(STAGED_NICE);
    }
  } catch (error) {
    console.error('search index: its worker could not start; the build fills it itself', error);
    end(null, OUTCOME.failed);
    return;
  }
  port.on('message', (message) => {
    if (message !== 'build') {
      staged?.pageStaged(message.page, message.firstRowid, message.rows);
      return;
    }
    let outcome: number = OUTCOME.failed;
    try {
      const kept = fillInScratch(db, data.resource, () => {
        Atomics.store(flags, SLOT.written, 1);
        Atomics.notify(flags, SLOT.written);
      }, data.fillChunkRows, staged);
      if (kept) Atomics.store(flags, SLOT.staged, 1);
      outcome = OUTCOME.done;
    } catch (error) {
      console.error('search index: building it in a worker failed; the build fills it itself', error);
    }
    end(db, outcome);
  });
}
