/**
 * Every decision the sync engine takes while it reads a resource, as pure functions of what it
 * has seen (DESIGN.md "Sync"; service-api.md §4.1, §4.2). The engine (engine.ts, read.ts) asks
 * the pages and writes them; these functions say what the answers mean: whether a staging may be
 * continued, whether the server caps the page size, which page size keeps a page within budget,
 * whether a pass is consistent, whether the service counts pages from 1 or lists ids twice, and
 * when to read again or give up. No I/O here, so each is tested by a table (syncDecisions.test.ts).
 */
import { isLetterdeskError } from '../../../shared/errors.ts';
import type { StagingState } from '../cache/build/syncBookkeeping.ts';

/** Largest `count` a sync accepts from the service (the spec's scale is 10^6 contacts, 3·10^5 orders). */
export const MAX_RECORDS = 50_000_000;
/** Largest number of pages a sync plans (`count / pageSize`). */
export const MAX_PAGES = 5_000_000;

/** Fewest rows a page may hold, when the server caps the page size, before {@link MAX_SMALL_PAGE_PAGES} applies. */
export const MIN_SERVED_PAGE_SIZE = 10;
/** Most pages a read plans when the server serves fewer than {@link MIN_SERVED_PAGE_SIZE} rows a page. */
export const MAX_SMALL_PAGE_PAGES = 100_000;

/**
 * Largest response body a sync asks for in one request, in characters of JSON (≈ bytes). The
 * profile's pageSize is a number of rows, but what a page costs the syncing process is its size:
 * the body, its parse (several times the body in live objects), the bound values, times the
 * requests in flight. Keeping each page near this size bounds the sync process's memory whatever
 * the size of a record (docs/benchmarks.md has the figures).
 */
export const PAGE_CHARS_BUDGET = 1_048_576;

/** Requests in flight at most, whatever the caller asks. */
export const MAX_CONCURRENCY = 16;

/**
 * Requests in flight when the caller does not say: the fewest that hide a distant service's
 * latency (docs/benchmarks.md, "slow server"), since the service documents no rate limit to stay
 * under (service-api.md §8).
 */
export const DEFAULT_CONCURRENCY = 4;

/** A page as the decisions need it: the `count` it reported and the rows it held. */
export interface PageSeen {
  count: number;
  rows: number;
}

/** One full read of a resource: `count` of its first page, whether any page drifted, distinct ids staged. */
export interface PassSeen {
  count: number;
  drift: boolean;
  seen: number;
}

/** What the pass before this one saw (null before the first, or after starting over). */
export interface PreviousPass {
  seen: number | null;
  count: number | null;
}

/** No previous pass. */
export const NO_PREVIOUS_PASS: PreviousPass = { seen: null, count: null };

/** Requests in flight: `asked` (default {@link DEFAULT_CONCURRENCY}) within 1 … {@link MAX_CONCURRENCY}. */
export function concurrencyOf(asked: number | undefined): number {
  return Math.max(1, Math.min(asked ?? DEFAULT_CONCURRENCY, MAX_CONCURRENCY));
}

/**
 * Whether this run continues `state`. Only the same run continues its staging (after its process
 * ended): nothing in the API tells whether pages read before have changed since (no change token,
 * ordering not shown), and a change that keeps the count would leave a stale row and miss a new
 * one. A staging of another scope is never continued.
 */
export function isResumable(state: StagingState | undefined, runId: string, accountId: string | null | undefined): state is StagingState {
  return state !== undefined && state.runId === runId && (state.accountId ?? null) === (accountId ?? null);
}

/**
 * The page size the server really serves, when it caps ours: page 0 came back with fewer rows than
 * asked though more exist (and not none).
 * @returns the rows page 0 held, or null when the server does not cap `asked`
 */
export function servedPageSize(asked: number, first: PageSeen): number | null {
  return first.rows < asked && first.rows < first.count && first.rows > 0 ? first.rows : null;
}

/**
 * Rows per request that keep a page within `budget`, judged from the first page of a sync. Prefers
 * a divisor of `pageSize` (then the first page's rows are exactly the first `pageSize / result`
 * pages at the new size, and nothing is read twice) unless it would give pages less than half the
 * size that fits (a pageSize of 997, say): then the size that fits, and page 0 is read again.
 * @param pageSize rows the first page was asked for (≥ 1)
 * @param rows rows it returned (fewer than asked: the page is the whole result, kept as is)
 * @param bodyLength characters of its response body
 * @param budget characters a page should stay within; @default PAGE_CHARS_BUDGET
 * @returns `pageSize` when its page is within the budget (or holds one row), else a smaller size ≥ 1
 */
export function pageSizeWithin(pageSize: number, rows: number, bodyLength: number, budget = PAGE_CHARS_BUDGET): number {
  if (rows < pageSize || rows <= 1 || bodyLength <= budget) return pageSize;
  const fits = Math.max(1, Math.floor((budget * rows) / bodyLength));
  for (let size = fits; size * 2 > fits; size--) if (pageSize % size === 0) return size;
  return fits;
}

/** How the first page of a sync is fitted to the budget. */
export interface FirstPageFit {
  /** Rows per request from now on. */
  pageSize: number;
  /** Pages at the new size the first answer holds (1 unless the size was divided). */
  holds: number;
  /** Page 0 must be asked again at the new size (no divisor was close to what fits). */
  readAgain: boolean;
}

/**
 * Fits the page size to the budget from the first page (see {@link pageSizeWithin}).
 * @param bodyLength characters of page 0's body; undefined when the source does not know (kept as is)
 */
export function fitFirstPage(pageSize: number, rows: number, bodyLength: number | undefined, budget?: number): FirstPageFit {
  const fitted = bodyLength === undefined ? pageSize : pageSizeWithin(pageSize, rows, bodyLength, budget);
  if (fitted === pageSize) return { pageSize, holds: 1, readAgain: false };
  return pageSize % fitted === 0 ? { pageSize: fitted, holds: pageSize / fitted, readAgain: false } : { pageSize: fitted, holds: 1, readAgain: true };
}

/** The first answer as the pages it holds at `pageSize` (itself when it holds one). */
export function splitFirstPage<T>(records: T[], holds: number, pageSize: number): T[][] {
  return holds === 1 ? [records] : Array.from({ length: holds }, (_, i) => records.slice(i * pageSize, (i + 1) * pageSize));
}

/**
 * Whether `count` is more than a sync mirrors: a lying or broken service (count 10^15 with five
 * rows) would otherwise make it plan pages until memory ran out, long before any request.
 */
export function exceedsMirrorLimits(count: number, pageSize: number): boolean {
  return count > MAX_RECORDS || Math.ceil(count / pageSize) > MAX_PAGES;
}

/**
 * Whether a server that caps the page size serves so few rows a page that the read would take an
 * absurd number of requests: under {@link MIN_SERVED_PAGE_SIZE} rows while `count` needs more than
 * {@link MAX_SMALL_PAGE_PAGES} pages (a first page of one row with a count of millions). Judged on
 * the first page, before any other request.
 * @param served rows a page as the server serves them (servedPageSize), or null when it does not cap
 * @param count the `count` of the first page
 */
export function servedPagesTooSmall(served: number | null, count: number): boolean {
  return served !== null && served < MIN_SERVED_PAGE_SIZE && pagesOf(count, served) > MAX_SMALL_PAGE_PAGES;
}

/** Pages of a read: `ceil(count / pageSize)`, and at least the first. */
export function pagesOf(count: number, pageSize: number): number {
  return Math.max(1, Math.ceil(count / pageSize));
}

/**
 * Whether the staging this run continues no longer matches the server (its count moved, or the
 * server now caps the page size), so the read starts over. Judged once, on the first answer.
 */
export function resumedStagingIsStale(resumed: StagingState, count: number, capped: boolean, pass: number): boolean {
  return (resumed.serverCount !== count || capped) && pass === resumed.pass;
}

/** The pages still to fetch in a pass: `from` … `total - 1`, except those already written. */
export function pagesToFetch(from: number, total: number, written: ReadonlySet<number>): number[] {
  const todo: number[] = [];
  for (let page = from; page < total; page++) if (!written.has(page)) todo.push(page);
  return todo;
}

/** Concurrent fetch lanes for `pages` pages: the concurrency, but one lane at least and no idle ones. */
export function lanesFor(concurrency: number, pages: number): number {
  return Math.min(concurrency, Math.max(1, pages));
}

/**
 * Whether a page shows drift: it reported another `count` than page 0, or it is short although it
 * is not the last page (rows shifted or changed while paging).
 */
export function pageShowsDrift(page: number, pagesTotal: number, pageSize: number, count: number, served: PageSeen): boolean {
  return served.count !== count || (page < pagesTotal - 1 && served.rows < pageSize);
}

/** Whether the invalid records of a pass must be counted from staging: it continues pages an earlier process wrote. */
export function countInvalidFromStaging(pagesWrittenBefore: number): boolean {
  return pagesWrittenBefore > 0;
}

/** A consistent pass: no page drifted, and the distinct ids staged equal `count`. */
export function isConsistent(pass: PassSeen): boolean {
  return !pass.drift && pass.seen === pass.count;
}

/**
 * Whether to ask the page after the last (counting from 0) to learn if the service numbers its
 * pages from 1: a steady read that came up short while still reading from 0. §4.2 says of the
 * orders' `page` only "Current page number" (contacts: "zero-based start", §4.1).
 */
export function mayCountFromOne(pass: PassSeen, firstPageNumber: number): boolean {
  return !pass.drift && pass.seen < pass.count && firstPageNumber === 0;
}

/** What the page after the last (counting from 0) says about the service. */
export type PastLastPage = 'drift' | 'counts from one' | 'counts from zero';

/**
 * Reads the answer to the page after the last. Rows there mean the service counts from 1 (page 0
 * was served as page 1 again, and the last page was never asked); a count that moved means records
 * changed meanwhile (rows past the end are new records, and reading from 1 would skip page 0).
 * @param past its answer, or null when it was refused
 */
export function readPastLastPage(past: PageSeen | null, count: number): PastLastPage {
  if (past === null) return 'counts from zero';
  if (past.count !== count) return 'drift';
  return past.rows > 0 ? 'counts from one' : 'counts from zero';
}

/**
 * Whether refusing the page after the last ends the sync. A service that counts from 0 may refuse
 * a page past the end (HTTP 404 or 400; §7 shows no error format): that is an answer too, no rows.
 * A cancel or rejected tokens still end the sync.
 */
export function refusalEndsSync(error: unknown, aborted: boolean): boolean {
  return aborted || (isLetterdeskError(error) && (error.code === 'CANCELLED' || error.code === 'AUTH_REJECTED'));
}

/**
 * The pass as the checks after the probe see it: drifted, too, when the page after the last
 * reported a count that moved.
 */
export function passAfterProbe(pass: PassSeen, probe: PastLastPage | null): PassSeen {
  return probe === 'drift' ? { ...pass, drift: true } : pass;
}

/**
 * Whether a short, steady pass comes from a stable service that lists some ids more than once:
 * the same count and the same number of distinct ids as the pass before, and no row of the
 * previous pass missing from this one. One record per id is then kept and the duplicates are
 * reported, instead of failing every sync with "kept changing".
 * @param rowsOnlyInPrevious staged rows last seen in the previous pass; asked only when the
 *   counts alone allow the answer yes
 */
export function listsIdsTwice(pass: PassSeen, previous: PreviousPass, rowsOnlyInPrevious: () => number): boolean {
  return !pass.drift && pass.seen < pass.count && pass.seen === previous.seen && pass.count === previous.count && rowsOnlyInPrevious() === 0;
}

/** Records a pass that keeps one record per listed id reports as invalid: the ids listed more than once. */
export function duplicateIds(pass: PassSeen): number {
  return pass.count - pass.seen;
}

/** What the next pass compares itself with: this one's count, and its ids unless a page drifted. */
export function previousFor(pass: PassSeen): PreviousPass {
  return { seen: pass.drift ? null : pass.seen, count: pass.count };
}

/** Whether to give up with DRIFT instead of reading again: `pass` was the last of `maxPasses`. */
export function mustGiveUp(pass: number, maxPasses: number): boolean {
  return pass >= maxPasses;
}
