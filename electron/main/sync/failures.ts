/**
 * How a run of a resource that does not publish is reported: its error, whose message says what
 * the person still has (the copy of an earlier sync, or nothing yet) and what to do.
 */
import { LetterdeskError, isLetterdeskError, toErrorPayload, type ErrorPayload } from '../../../shared/errors.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import { MAX_PAGES, MAX_RECORDS, MAX_SMALL_PAGE_PAGES, MIN_SERVED_PAGE_SIZE } from './decisions.ts';

/**
 * What the person still has when a resource's run ends without publishing: the copy of an earlier
 * sync, shown unchanged, or nothing yet (a first sync). Error messages say which, so a first sync
 * never promises "previous data".
 * @param published the resource has been published before (`resource_state.last_synced_at`)
 */
export function keptData(resource: Resource, published: boolean): string {
  return published ? `The ${resource} cached before are still shown, unchanged.` : `No ${resource} are cached yet.`;
}

/** CANCELLED: the sync was cancelled; `kept` is {@link keptData}. */
export function cancelled(kept: string): LetterdeskError {
  return new LetterdeskError('CANCELLED', `The sync was cancelled. ${kept} Start it again whenever you like; it reads every page anew.`);
}

/**
 * BAD_RESPONSE: the service reported more records than a sync mirrors (decisions.ts `exceedsMirrorLimits`).
 * @param what what was read: a resource ("contacts"), or a view's members
 */
export function tooManyRecords(what: string, count: number, pageSize: number, kept: string): LetterdeskError {
  return new LetterdeskError(
    'BAD_RESPONSE',
    `The service reported ${count} ${what} in pages of ${pageSize}, more than Letterdesk can mirror (at most ${MAX_RECORDS} records in ${MAX_PAGES} pages). ${kept} Check the base URL and the account scope of the profile.`,
  );
}

/**
 * BAD_RESPONSE: the server serves `served` rows a page (fewer than asked) for a `count` that would
 * take more than MAX_SMALL_PAGE_PAGES requests; `what` as in {@link tooManyRecords}.
 */
export function pagesTooSmall(what: string, count: number, served: number, asked: number, kept: string): LetterdeskError {
  return new LetterdeskError(
    'BAD_RESPONSE',
    `The service reported ${count} ${what} but served only ${served} row${served === 1 ? '' : 's'} of the ${asked} asked for a page: reading them would take ${Math.ceil(count / served)} requests (Letterdesk reads at most ${MAX_SMALL_PAGE_PAGES} pages of fewer than ${MIN_SERVED_PAGE_SIZE} rows), so the sync stopped after the first page. ${kept} Check the base URL and the account scope of the profile; if they are right, report the page size the service serves to the service provider.`,
  );
}

/** DRIFT: `maxPasses` full reads did not agree; `what` as in {@link tooManyRecords}. */
export function keptChanging(what: string, maxPasses: number, kept: string): LetterdeskError {
  return new LetterdeskError('DRIFT', `The service's ${what} kept changing while they were read (${maxPasses} full reads did not agree). ${kept} Try the sync again later.`);
}

/** SQLite's "database or disk is full" (a full disk, or the file's page limit) as DISK_FULL; else null. */
function diskFull(error: unknown, kept: string): LetterdeskError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'SQLITE_FULL') return null;
  return new LetterdeskError(
    'DISK_FULL',
    `The disk is full, so the sync could not write to the cache. ${kept} Free some space on the disk, then sync again.`,
    { cause: error },
  );
}

/**
 * The error a run that ended with `error` records. After a cancel every error counts as the
 * cancel (a request aborted by it fails in its own words), except another LetterdeskError.
 * @param aborted the sync's signal was aborted
 */
export function failurePayload(error: unknown, aborted: boolean, kept: string): ErrorPayload {
  return aborted && !(isLetterdeskError(error) && error.code !== 'CANCELLED') ? cancelled(kept).toPayload() : toErrorPayload(diskFull(error, kept) ?? error);
}
