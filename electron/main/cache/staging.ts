/**
 * Where a paged read of the service is written while it is read (DESIGN.md "Sync"): the mirror's
 * staging of a resource, or the staging of a saved view's membership (viewStaging.ts). The sync's
 * read steps (sync/read.ts) page, verify and re-read through this interface alone, so the mirror
 * and a view's membership are read the same way; what is published at the end is each one's own.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { StageWriter, type StagedPage, type StagedRecord } from './ingest.ts';
import { clearStage } from './publish.ts';
import { indexWhileStaging, type StagingSearchIndex } from './searchIndexBuild.ts';
import { SyncBookkeeping, type StagingState } from './syncBookkeeping.ts';

export type { StagedPage, StagedRecord } from './ingest.ts';
export type { StagingState } from './syncBookkeeping.ts';

/**
 * A staging being written by a paged read. Methods are synchronous and throw what better-sqlite3
 * throws (`SQLITE_FULL` on a full disk, for instance).
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
   * records the page.
   * @param page zero-based page number (of the read, not as the service numbers it)
   */
  writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): StagedPage;
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
 * The mirror's staging of one resource (`stage_*`, `sync_state`, `sync_pages`). A large first read
 * into an empty staging has its search index filled meanwhile, page by page, by a thread of its
 * own (searchIndexBuild.ts `indexWhileStaging`), which the build takes over
 * ({@link takeSearchIndex}); a read that ends without a build stops it ({@link stopIndexing}).
 */
export class MirrorStaging implements ReadStaging {
  readonly #db: Database.Database;
  readonly #resource: Resource;
  readonly #writer: StageWriter;
  readonly #books: SyncBookkeeping;
  #index: StagingSearchIndex | null = null;
  readonly #indexMinRows: number | undefined;

  /**
   * @param options.indexMinRows rows of a read from which a thread indexes its pages as they are
   *   staged (default searchIndexBuild.ts `WORKER_MIN_ROWS`)
   */
  constructor(db: Database.Database, resource: Resource, books: SyncBookkeeping = new SyncBookkeeping(db), options: { indexMinRows?: number } = {}) {
    this.#indexMinRows = options.indexMinRows;
    this.#db = db;
    this.#resource = resource;
    this.#writer = new StageWriter(db);
    this.#books = books;
  }

  state(): StagingState | undefined {
    return this.#books.stagingState(this.#resource);
  }

  saveState(state: StagingState): void {
    this.#books.saveStagingState(this.#resource, state, new Date().toISOString());
    this.stopIndexing();
    // Only a first read into an empty staging: the thread must see every page staged.
    if (state.pass === 1 && this.#books.pagesWritten(this.#resource, 1, 0).pages.size === 0) {
      const read = { pageSize: state.pageSize, pages: Math.max(1, Math.ceil(state.serverCount / state.pageSize)), count: state.serverCount };
      this.#index = indexWhileStaging(this.#db, this.#resource, read, this.#indexMinRows);
    }
  }

  clear(): void {
    this.stopIndexing();
    clearStage(this.#db, this.#resource);
  }

  writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): StagedPage {
    const staged = this.#writer.writePage(this.#resource, pass, page, serverCount, records);
    // A thread runs only while the first pass is read (saveState stops it for any other).
    this.#index?.pageWritten(page, staged.firstRowid, staged.rows);
    return staged;
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
    return this.#books.pagesWritten(this.#resource, pass, fromPage);
  }

  invalidStaged(pass: number): number {
    return this.#books.invalidStaged(this.#resource, pass);
  }

  idsStaged(pass: number): number {
    return this.#books.idsStaged(this.#resource, pass);
  }

  rowsLastSeenIn(pass: number): number {
    return this.#books.rowsLastSeenIn(this.#resource, pass);
  }

  keepOnlyPass(pass: number): void {
    this.#books.keepOnlyPass(this.#resource, pass);
  }
}
