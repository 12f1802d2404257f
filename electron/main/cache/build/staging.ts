/**
 * Where a paged read of the service is written while it is read (DESIGN.md "Sync"): the mirror's
 * staging of a resource, or the staging of a saved view's membership (savedViews/staging.ts). The sync's
 * read steps (sync/read.ts) page, verify and re-read through this interface alone, so the mirror
 * and a view's membership are read the same way; what is published at the end is each one's own.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { StageWriter, stagedValues, type StagedPage, type StagedRecord, type StagedValues } from './ingest.ts';
import { clearStage } from './publish.ts';
import { WORKER_MIN_ROWS, indexWhileStaging, type StagingSearchIndex } from './searchIndexBuild.ts';
import { StageWriterStopped, StageWriterThread, WRITER_MIN_ROWS } from './stageWriter.ts';
import { SyncBookkeeping, type StagingState } from './syncBookkeeping.ts';

export type { StagedPage, StagedRecord } from './ingest.ts';
export type { StagingState } from './syncBookkeeping.ts';

/**
 * A staging being written by a paged read. Methods throw what better-sqlite3 throws (`SQLITE_FULL`
 * on a full disk, for instance). Every method but `writePage` is synchronous, and is called only
 * when no page is being written (each `writePage` settled).
 */
export interface ReadStaging {
  /** What an unfinished read left to continue, or undefined. */
  state(): StagingState | undefined;
  /** Records what the staging is being written with (so the same run can continue it). */
  saveState(state: StagingState): void;
  /** Empties the staging and its state. */
  clear(): void;
  /**
   * Writes one page in its own transaction (records upserted by id with the current `pass`) and
   * records the page. Pages may be written concurrently, each resolving once it is committed.
   * @param page zero-based page number (of the read, not as the service numbers it)
   */
  writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): Promise<StagedPage>;
  /** The pages of `pass` already written, and the rows of those from `fromPage` on. */
  pagesWritten(pass: number, fromPage: number): { pages: Set<number>; rows: number };
  /** Records of `pass` kept as invalid. */
  invalidStaged(pass: number): number;
  /** Distinct ids staged in `pass`. */
  idsStaged(pass: number): number;
  /** Staged rows whose last sighting was in `pass`. */
  rowsLastSeenIn(pass: number): number;
  /** Drops the staged rows not seen in `pass`. */
  keepOnlyPass(pass: number): void;
}

/**
 * What a large read gives the other core to, by resource. Contacts' search index is most of their
 * build, so filling it during the read ({@link indexWhileStaging}) shortens the build. Orders'
 * index is small beside the rest of their build, which the build's thread runs it beside anyway;
 * their pages (large, with their recipients) cost about as much to write as to fetch and parse, so
 * they are written by a thread of their own ({@link StageWriterThread}) while the next are fetched.
 * Both at once leave neither a core of its own: at 1M contacts the build got longer by more than
 * the read got shorter, and at 100k the gain was within the machine's noise (docs/benchmarks.md).
 */
const LARGE_READ_HELPER: Readonly<Record<Resource, 'search index' | 'writer'>> = { contacts: 'search index', orders: 'writer' };

/**
 * The mirror's staging of one resource (`stage_*`, `sync_state`, `sync_pages`). A large read
 * into a cache file has one helper thread ({@link LARGE_READ_HELPER}): either its pages are
 * written by a thread of their own (stageWriter.ts) while the sync's thread fetches the next
 * ones, until {@link endWrites}; or, for a first read into an empty staging, its search index is
 * filled meanwhile, page by page (searchIndexBuild.ts `indexWhileStaging`), and the build takes
 * that thread over ({@link takeSearchIndex}); a read that ends without a build stops it
 * ({@link stopIndexing}). The options can give a read both (the tests do).
 */
export class MirrorStaging implements ReadStaging {
  readonly #db: Database.Database;
  readonly #resource: Resource;
  readonly #writer: StageWriter;
  readonly #books: SyncBookkeeping;
  #index: StagingSearchIndex | null = null;
  readonly #indexMinRows: number;
  readonly #threadMinRows: number;
  readonly #threadUrl: URL | undefined;
  #thread: StageWriterThread | null = null;
  /** Pages handed to the thread and not yet answered. */
  #writing = 0;
  /** Pages the thread has written. */
  #threadPages = 0;

  /**
   * @param options.indexMinRows rows of a read from which a thread indexes its pages as they are
   *   staged (default: searchIndexBuild.ts `WORKER_MIN_ROWS` where {@link LARGE_READ_HELPER} says
   *   so, else never)
   * @param options.threadMinRows rows of a read from which its pages are written by a thread of
   *   their own (default: stageWriter.ts `WRITER_MIN_ROWS` where {@link LARGE_READ_HELPER}
   *   says so, else never)
   * @param options.threadUrl the writer thread's script (default: the app's own)
   */
  constructor(db: Database.Database, resource: Resource, books: SyncBookkeeping = new SyncBookkeeping(db), options: { indexMinRows?: number; threadMinRows?: number; threadUrl?: URL } = {}) {
    const helper = LARGE_READ_HELPER[resource];
    this.#indexMinRows = options.indexMinRows ?? (helper === 'search index' ? WORKER_MIN_ROWS : Number.POSITIVE_INFINITY);
    this.#threadMinRows = options.threadMinRows ?? (helper === 'writer' ? WRITER_MIN_ROWS : Number.POSITIVE_INFINITY);
    this.#threadUrl = options.threadUrl;
    this.#db = db;
    this.#resource = resource;
    this.#writer = new StageWriter(db);
    this.#books = books;
  }

  state(): StagingState | undefined {
    return this.#books.stagingState(this.#resource);
  }

  saveState(state: StagingState): void {
    this.#assertIdle();
    this.#books.saveStagingState(this.#resource, state, new Date().toISOString());
    this.stopIndexing();
    // Only a first read into an empty staging: the thread must see every page staged.
    if (state.pass === 1 && this.#books.pagesWritten(this.#resource, 1, 0).pages.size === 0) {
      const read = { pageSize: state.pageSize, pages: Math.max(1, Math.ceil(state.serverCount / state.pageSize)), count: state.serverCount };
      this.#index = indexWhileStaging(this.#db, this.#resource, read, this.#indexMinRows);
    }
    if (!this.#thread && state.serverCount >= this.#threadMinRows && !this.#db.memory) {
      try {
        this.#thread = new StageWriterThread(this.#db, this.#threadUrl);
      } catch {
        // No thread: the pages are written in the connection.
      }
    }
  }

  clear(): void {
    this.#assertIdle();
    this.stopIndexing();
    clearStage(this.#db, this.#resource);
  }

  writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): Promise<StagedPage> {
    let written: Promise<number | null>;
    let staged: StagedPage;
    try {
      const values = stagedValues(this.#resource, page, records);
      staged = { rows: values.rows.length, invalid: values.invalid, ids: values.ids };
      written = this.#write(pass, page, serverCount, values);
    } catch (error) {
      return Promise.reject(error);
    }
    return written.then((firstRowid) => {
      // The index thread runs only while a first pass is read (saveState stops it for any other).
      this.#index?.pageWritten(page, firstRowid, staged.rows);
      return staged;
    });
  }

  /**
   * Writes a page's values in the connection, or hands them to the thread. A thread that has
   * opened its connection has the page alone, so its values are not kept while it is written; a
   * thread still starting may fail to, so they are kept until it answers, to be written here.
   * @throws (synchronously) what the connection's write throws
   */
  #write(pass: number, page: number, serverCount: number, values: StagedValues): Promise<number | null> {
    const thread = this.#thread;
    if (!thread) return Promise.resolve(this.#writer.writeValues(pass, page, serverCount, values));
    const inConnection = thread.running ? null : () => this.#writer.writeValues(pass, page, serverCount, values);
    return this.#inThread(thread.write(pass, page, serverCount, values), inConnection);
  }

  /**
   * A page in the thread's hands until it answers. A thread that stops meanwhile rolled the page
   * back, and any later page is written in the connection; this one too if it still can be
   * (`inConnection`), else the read fails with {@link StageWriterStopped} (the next sync
   * continues from the pages committed).
   */
  async #inThread(written: Promise<number | null>, inConnection: (() => number | null) | null): Promise<number | null> {
    this.#writing += 1;
    try {
      const firstRowid = await written;
      this.#threadPages += 1;
      return firstRowid;
    } catch (error) {
      if (!(error instanceof StageWriterStopped)) throw error;
      this.#thread = null;
      if (!inConnection) throw error;
      return inConnection();
    } finally {
      this.#writing -= 1;
    }
  }

  /**
   * Ends the thread that writes the pages, if any, once it has written those it has. Called when
   * the read is over (consistent, failed or cancelled); a later read starts another.
   */
  async endWrites(): Promise<void> {
    const thread = this.#thread;
    this.#thread = null;
    await thread?.close();
  }

  /** Pages written by the thread of their own so far (see {@link endWrites}); the others by the connection. */
  pagesByThread(): number {
    return this.#threadPages;
  }

  /**
   * The thread indexing the read's pages as they were staged, if any, handed over to the build
   * (publish.ts `buildNext` option `staged`), which disposes of it.
   */
  takeSearchIndex(): StagingSearchIndex | null {
    const thread = this.#index;
    this.#index = null;
    return thread;
  }

  /** Stops the thread indexing the pages, if any, and deletes its files. */
  stopIndexing(): void {
    this.#index?.dispose();
    this.#index = null;
  }

  pagesWritten(pass: number, fromPage: number): { pages: Set<number>; rows: number } {
    this.#assertIdle();
    return this.#books.pagesWritten(this.#resource, pass, fromPage);
  }

  invalidStaged(pass: number): number {
    this.#assertIdle();
    return this.#books.invalidStaged(this.#resource, pass);
  }

  idsStaged(pass: number): number {
    this.#assertIdle();
    return this.#books.idsStaged(this.#resource, pass);
  }

  rowsLastSeenIn(pass: number): number {
    this.#assertIdle();
    return this.#books.rowsLastSeenIn(this.#resource, pass);
  }

  keepOnlyPass(pass: number): void {
    this.#assertIdle();
    this.#books.keepOnlyPass(this.#resource, pass);
  }

  /** The staging is read or changed only between pages: a page still in the thread would not be seen. */
  #assertIdle(): void {
    if (this.#writing > 0) throw new Error(`${this.#resource} staging: read or changed while ${this.#writing} page(s) were being written`);
  }
}
