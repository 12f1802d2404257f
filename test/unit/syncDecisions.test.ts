// The sync engine's decisions (electron/main/sync/decisions.ts), one table each: what a first page,
// a page, a pass and the page after the last mean, and when to read again or give up.
import { describe, expect, it } from 'vitest';
import { LetterdeskError } from '../../shared/errors.ts';
import type { StagingState } from '../../electron/main/cache/build/syncBookkeeping.ts';
import {
  concurrencyOf, countInvalidFromStaging, duplicateIds, exceedsMirrorLimits, fitFirstPage, isConsistent, isResumable, lanesFor, listsIdsTwice,
  MAX_PAGES, MAX_RECORDS, MAX_SMALL_PAGE_PAGES, MIN_SERVED_PAGE_SIZE, mayCountFromOne, mustGiveUp, NO_PREVIOUS_PASS, PAGE_CHARS_BUDGET, pagesOf, pageShowsDrift, pageSizeWithin,
  pagesToFetch, passAfterProbe, previousFor, readPastLastPage, refusalEndsSync, resumedStagingIsStale, servedPageSize, servedPagesTooSmall, splitFirstPage,
  type PassSeen, type PastLastPage, type PreviousPass,
} from '../../electron/main/sync/decisions.ts';

const staging: StagingState = { runId: 'run-1', pageSize: 250, serverCount: 3000, pass: 1, accountId: null };

describe('is this staging resumable', () => {
  it.each<[string, StagingState | undefined, string, string | null | undefined, boolean]>([
    ['no staging', undefined, 'run-1', null, false],
    ['the same run, no scope', staging, 'run-1', null, true],
    ['the same run, scope given as undefined', staging, 'run-1', undefined, true],
    ['a later run', staging, 'run-2', null, false],
    ['the same run, another scope', staging, 'run-1', 'acct-1', false],
    ['the same run and scope', { ...staging, accountId: 'acct-1' }, 'run-1', 'acct-1', true],
    ['a scoped staging, now unscoped', { ...staging, accountId: 'acct-1' }, 'run-1', null, false],
  ])('%s → %s', (_, state, runId, accountId, expected) => {
    expect(isResumable(state, runId, accountId)).toBe(expected);
  });

  it.each<[string, number, boolean, number, boolean]>([
    ['same count, not capped', 3000, false, 1, false],
    ['the count moved', 3001, false, 1, true],
    ['the server now caps the page size', 3000, true, 1, true],
    ['count moved, but another pass than the staging', 3001, false, 2, false],
  ])('a continued staging is stale: %s → %s', (_, count, capped, pass, expected) => {
    expect(resumedStagingIsStale(staging, count, capped, pass)).toBe(expected);
  });
});

describe('does the server cap the page size', () => {
  it.each<[string, number, number, number, number | null]>([
    ['a full page', 500, 500, 3000, null],
    ['fewer rows than asked, more exist: capped', 500, 100, 3000, 100],
    ['fewer rows than asked, and that is all', 500, 120, 120, null],
    ['no rows at all', 500, 0, 3000, null],
    ['one row served of many', 500, 1, 3000, 1],
  ])('%s', (_, asked, rows, count, expected) => {
    expect(servedPageSize(asked, { count, rows })).toBe(expected);
  });
});

describe('does a capped server serve too few rows a page for its count', () => {
  it.each<[string, number | null, number, boolean]>([
    ['not capped', null, 4_999_999, false],
    ['one row a page for 4,999,999', 1, 4_999_999, true],
    ['one row a page for exactly 100,000 pages', 1, 100_000, false],
    ['one row a page for 100,001 pages', 1, 100_001, true],
    ['9 rows a page for 900,009 (100,001 pages)', 9, 900_009, true],
    ['9 rows a page for 900,000 (100,000 pages)', 9, 900_000, false],
    ['10 rows a page for 4,999,999: left to the mirror limits', 10, 4_999_999, false],
    ['one row a page for a small account', 1, 3000, false],
  ])('%s → %s', (_, served, count, tooSmall) => {
    expect(servedPagesTooSmall(served, count)).toBe(tooSmall);
  });
  it('names its bounds', () => {
    expect([MIN_SERVED_PAGE_SIZE, MAX_SMALL_PAGE_PAGES]).toEqual([10, 100_000]);
  });
});

describe('pageSizeWithin', () => {
  it.each<[string, number, number, number, number | undefined, number]>([
    ['388 fit; 250 divides 1,000', 1000, 1000, 2_700_000, 1_048_576, 250],
    ['500 orders of 2,700 characters', 500, 500, 1_350_000, undefined, 250],
    ['a prime: 387 fit, page 0 is asked again', 499, 499, 1_350_000, undefined, 387],
    ['a hundred times the budget', 1000, 1000, 100_000_000, undefined, 10],
    ['within the budget', 1000, 1000, 660_000, undefined, 1000],
    ['exactly the budget', 1000, 1000, PAGE_CHARS_BUDGET, undefined, 1000],
    ['fewer rows than asked: the whole result', 1000, 400, 5_000_000, undefined, 1000],
    ['one row', 1, 1, 5_000_000, undefined, 1],
    ['a smaller budget', 1000, 1000, 660_000, 262_144, 250],
  ])('%s', (_, pageSize, rows, bodyLength, budget, expected) => {
    expect(pageSizeWithin(pageSize, rows, bodyLength, budget)).toBe(expected);
  });

  it.each<[string, number, number, number | undefined, { pageSize: number; holds: number; readAgain: boolean }]>([
    ['no body length known: kept', 1000, 1000, undefined, { pageSize: 1000, holds: 1, readAgain: false }],
    ['within the budget: kept', 1000, 1000, 660_000, { pageSize: 1000, holds: 1, readAgain: false }],
    ['divided: page 0 holds 4 pages of 250', 1000, 1000, 2_700_000, { pageSize: 250, holds: 4, readAgain: false }],
    ['no divisor near: page 0 read again', 499, 499, 1_350_000, { pageSize: 387, holds: 1, readAgain: true }],
  ])('fitting the first page: %s', (_, pageSize, rows, bodyLength, expected) => {
    expect(fitFirstPage(pageSize, rows, bodyLength)).toEqual(expected);
  });

  it('splits the first answer into the pages it holds, or keeps it whole', () => {
    const rows = Array.from({ length: 10 }, (_, i) => i);
    expect(splitFirstPage(rows, 1, 10)).toEqual([rows]);
    expect(splitFirstPage(rows, 1, 10)[0]).toBe(rows);
    expect(splitFirstPage(rows, 4, 3)).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
    expect(splitFirstPage(rows.slice(0, 5), 2, 5)).toEqual([[0, 1, 2, 3, 4], []]);
  });
});

describe('planning the pages', () => {
  it.each<[number, number, boolean]>([
    [0, 1000, false],
    [MAX_RECORDS, 1000, false],
    [MAX_RECORDS + 1, 1000, true],
    [MAX_PAGES, 1, false],
    [MAX_PAGES + 1, 1, true],
    [1e15, 1000, true],
  ])('count %d in pages of %d exceeds the limits: %s', (count, pageSize, expected) => {
    expect(exceedsMirrorLimits(count, pageSize)).toBe(expected);
  });

  it.each<[number, number, number]>([[0, 100, 1], [1, 100, 1], [100, 100, 1], [101, 100, 2], [2503, 37, 68]])('count %d at %d a page: %d pages', (count, pageSize, expected) => {
    expect(pagesOf(count, pageSize)).toBe(expected);
  });

  it.each<[number, number, number[], number[]]>([
    [1, 5, [], [1, 2, 3, 4]],
    [4, 12, [0, 1, 2, 3, 5, 6, 9], [4, 7, 8, 10, 11]],
    [1, 1, [], []],
    [2, 3, [0, 1, 2], []],
  ])('from %d to %d, written %j: fetch %j', (from, total, written, expected) => {
    expect(pagesToFetch(from, total, new Set(written))).toEqual(expected);
  });

  it.each<[number | undefined, number]>([[undefined, 4], [0, 1], [-3, 1], [1, 1], [8, 8], [16, 16], [64, 16]])('concurrency asked %s → %d', (asked, expected) => {
    expect(concurrencyOf(asked)).toBe(expected);
  });

  it.each<[number, number, number]>([[4, 0, 1], [4, 1, 1], [4, 3, 3], [4, 100, 4], [1, 100, 1]])('concurrency %d, %d pages: %d lanes', (concurrency, pages, expected) => {
    expect(lanesFor(concurrency, pages)).toBe(expected);
  });
});

describe('drift on a page, consistency of a pass', () => {
  // pagesTotal 10, pageSize 100, count 950
  it.each<[string, number, number, number, boolean]>([
    ['a full middle page', 3, 950, 100, false],
    ['a short last page', 9, 950, 50, false],
    ['a short middle page', 3, 950, 99, true],
    ['another count', 3, 951, 100, true],
    ['another count on the last page', 9, 949, 50, true],
  ])('%s → drift %s', (_, page, count, rows, expected) => {
    expect(pageShowsDrift(page, 10, 100, 950, { count, rows })).toBe(expected);
  });

  it.each<[string, PassSeen, boolean]>([
    ['every id, no drift', { count: 500, drift: false, seen: 500 }, true],
    ['every id, but a page drifted', { count: 500, drift: true, seen: 500 }, false],
    ['ids missing', { count: 500, drift: false, seen: 499 }, false],
    ['more ids than the count', { count: 500, drift: false, seen: 501 }, false],
    ['an empty resource', { count: 0, drift: false, seen: 0 }, true],
  ])('%s → consistent %s', (_, pass, expected) => {
    expect(isConsistent(pass)).toBe(expected);
  });
});

describe('does the service count pages from 1', () => {
  it.each<[string, PassSeen, number, boolean]>([
    ['short, steady, reading from 0', { count: 2050, drift: false, seen: 1950 }, 0, true],
    ['short, but drifted', { count: 2050, drift: true, seen: 1950 }, 0, false],
    ['short, already reading from 1', { count: 2050, drift: false, seen: 1950 }, 1, false],
    ['complete', { count: 2050, drift: false, seen: 2050 }, 0, false],
    ['more ids than the count', { count: 2050, drift: false, seen: 2051 }, 0, false],
  ])('ask the page past the last: %s → %s', (_, pass, firstPageNumber, expected) => {
    expect(mayCountFromOne(pass, firstPageNumber)).toBe(expected);
  });

  it.each<[string, { count: number; rows: number } | null, PastLastPage]>([
    ['refused', null, 'counts from zero'],
    ['empty, same count', { count: 2050, rows: 0 }, 'counts from zero'],
    ['rows, same count', { count: 2050, rows: 50 }, 'counts from one'],
    ['rows, and the count moved', { count: 2051, rows: 1 }, 'drift'],
    ['empty, and the count moved', { count: 2049, rows: 0 }, 'drift'],
  ])('the page past the last %s → %s', (_, past, expected) => {
    expect(readPastLastPage(past, 2050)).toBe(expected);
  });

  it.each<[string, unknown, boolean, boolean]>([
    ['HTTP 404 as BAD_RESPONSE', new LetterdeskError('BAD_RESPONSE', 'unexpected HTTP 404'), false, false],
    ['HTTP 400 as VALIDATION', new LetterdeskError('VALIDATION', 'page is invalid'), false, false],
    ['a plain error', new Error('socket hang up'), false, false],
    ['rejected tokens', new LetterdeskError('AUTH_REJECTED', 'HTTP 401'), false, true],
    ['a cancel', new LetterdeskError('CANCELLED', 'cancelled'), false, true],
    ['any error once the sync is cancelled', new LetterdeskError('BAD_RESPONSE', 'unexpected HTTP 404'), true, true],
  ])('refusing the page past the last with %s ends the sync: %s', (_, error, aborted, expected) => {
    expect(refusalEndsSync(error, aborted)).toBe(expected);
  });

  it.each<[string, PastLastPage | null, boolean]>([
    ['no probe', null, false],
    ['counts from zero', 'counts from zero', false],
    ['the count moved', 'drift', true],
  ])('the pass after the probe (%s) drifted: %s', (_, probe, expected) => {
    expect(passAfterProbe({ count: 100, drift: false, seen: 99 }, probe).drift).toBe(expected);
  });
});

describe('is it a stable service listing ids twice', () => {
  const short: PassSeen = { count: 250, drift: false, seen: 249 };
  it.each<[string, PassSeen, PreviousPass, number, boolean]>([
    ['the same short read twice, every row seen again', short, { seen: 249, count: 250 }, 0, true],
    ['the same counts, but rows of the previous pass missing', short, { seen: 249, count: 250 }, 3, false],
    ['the first short read', short, NO_PREVIOUS_PASS, 0, false],
    ['after a drifted pass', short, { seen: null, count: 250 }, 0, false],
    ['another number of ids', short, { seen: 248, count: 250 }, 0, false],
    ['another count', short, { seen: 249, count: 251 }, 0, false],
    ['this pass drifted', { ...short, drift: true }, { seen: 249, count: 250 }, 0, false],
    ['complete', { count: 250, drift: false, seen: 250 }, { seen: 250, count: 250 }, 0, false],
  ])('%s → %s', (_, pass, previous, rowsOnlyInPrevious, expected) => {
    expect(listsIdsTwice(pass, previous, () => rowsOnlyInPrevious)).toBe(expected);
  });

  it('asks for the rows of the previous pass only when the counts allow it', () => {
    let asked = 0;
    const rows = () => (asked++, 0);
    listsIdsTwice(short, NO_PREVIOUS_PASS, rows);
    listsIdsTwice({ ...short, drift: true }, { seen: 249, count: 250 }, rows);
    expect(asked).toBe(0);
    listsIdsTwice(short, { seen: 249, count: 250 }, rows);
    expect(asked).toBe(1);
  });

  it.each<[string, PassSeen, PreviousPass]>([
    ['a steady short pass is remembered whole', short, { seen: 249, count: 250 }],
    ['a drifted pass: only its count', { ...short, drift: true }, { seen: null, count: 250 }],
  ])('%s', (_, pass, expected) => {
    expect(previousFor(pass)).toEqual(expected);
  });
});

describe('what to count as invalid', () => {
  it.each<[PassSeen, number]>([
    [{ count: 250, drift: false, seen: 249 }, 1],
    [{ count: 1000, drift: false, seen: 990 }, 10],
  ])('ids listed twice in %j: %d', (pass, expected) => {
    expect(duplicateIds(pass)).toBe(expected);
  });

  it.each<[number, boolean]>([[0, false], [1, true], [7, true]])('pages written before this process: %d → count from staging %s', (written, expected) => {
    expect(countInvalidFromStaging(written)).toBe(expected);
  });
});

describe('must we read again or give up', () => {
  it.each<[number, number, boolean]>([
    [1, 5, false],
    [4, 5, false],
    [5, 5, true],
    [6, 5, true],
    [1, 1, true],
    [2, 2, true],
  ])('pass %d of at most %d: give up %s', (pass, maxPasses, expected) => {
    expect(mustGiveUp(pass, maxPasses)).toBe(expected);
  });
});
