/**
 * Where a paged read of the service is written while it is read (DESIGN.md "Sync"): the mirror's
 * staging of a resource, or the staging of a saved view's membership (viewStaging.ts). The sync's
 * read steps (sync/read.ts) page, verify and re-read through this interface alone, so the mirror
 * and a view's membership are read the same way; what is published at the end is each one's own.
 */
import type Database from 'better-sqlite3';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { StageWriter, pageValues, type StagedPage, type StagedRecord } from './ingest.ts';
import { clearStage } from './publish.ts';
import { StagingThread, THREAD_MIN_PAGES } from './stagingThread.ts';
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
   * records the page. Between {@link useThread} and {@link settle} it is written on a thread: the
   * promise then resolves once the page's transaction has committed.
   * @param page zero-based page number (of the read, not as the service numbers it)
   * @throws what the write threw
   */
  writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): StagedPage | Promise<StagedPage>;
  /**
   * Lets the pages written from now on be written on a thread of their own when `pages` are
   * many (stagingThread.ts); {@link settle} ends that. Without it every page is written at once.
   */
  useThread?(pages: number): void;
  /**
   * Waits until every page handed to {@link writePage} is written (or has failed: its own
   * promise says so) and stops the thread, before anything else reads or writes the staging.
   */
  settle?(): Promise<void>;
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

/** The mirror's staging of one resource (`stage_*`, `sync_state`, `sync_pages`). */
export class MirrorStaging implements ReadStaging {
  readonly #db: Database.Database;
  readonly #resource: Resource;
  readonly #writer: StageWriter;
  readonly #books: SyncBookkeeping;
  #thread: StagingThread | null = null;

  constructor(db: Database.Database, resource: Resource, books: SyncBookkeeping = new SyncBookkeeping(db)) {
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
  }

  clear(): void {
    clearStage(this.#db, this.#resource);
  }

  writePage(pass: number, page: number, serverCount: number, records: readonly StagedRecord[]): StagedPage | Promise<StagedPage> {
    const thread = this.#thread;
    if (!thread) return this.#writer.writePage(this.#resource, pass, page, serverCount, records);
    const values = pageValues(this.#resource, page, records);
    // Only what the result needs is kept while the page is written, not the records.
    const written: StagedPage = { rows: records.length, invalid: values.invalid, ids: values.ids };
    return thread.write(pass, page, serverCount, values).then(() => written);
  }

  useThread(pages: number): void {
    if (pages >= THREAD_MIN_PAGES && !this.#thread) this.#thread = StagingThread.start(this.#db);
  }

  async settle(): Promise<void> {
    const thread = this.#thread;
    this.#thread = null;
    await thread?.settle();
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
