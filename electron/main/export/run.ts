/**
 * Exports for callers outside the database worker (the command line, tests): {@link runExport}
 * validates the request and writes the file (write.ts) on the caller's thread; and the default file
 * name of an export.
 */
import type Database from 'better-sqlite3';
import { exportRequestSchema, type AnyExportKind, type ExportFormat } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import { describeIssues } from '../../../shared/zodIssues.ts';
import { writeExport, type ExportOutcome, type RunExportOptions } from './write.ts';

export type { ExportOutcome, ExportRunProgress, RunExportOptions } from './write.ts';

/**
 * A file name for an export: `letterdesk-<profile>-<kind>-<YYYY-MM-DD>.csv` (or `.xlsx`; local date). The
 * profile name keeps only letters and digits (any script), other runs become `-`, so a name like
 * `../../etc` or `C:\x` cannot steer the path; at most 40 characters of it are used.
 * @param profileName the profile's display name
 * @param kind contacts | orders | recipients | templates | campaigns
 * @param date the day to put in the name (local calendar date)
 * @param format the file's format, its extension
 */
export function defaultExportFileName(profileName: string, kind: AnyExportKind, date: Date, format: ExportFormat = 'csv'): string {
  return `letterdesk-${fileSlug(profileName, 'profile')}-${kind}-${fileDay(date)}.${format}`;
}

/**
 * Text as a part of a file name: accents dropped, lower case, anything but letters and digits as
 * one hyphen, at most 40 characters ("Acme Mail Co." → "acme-mail-co").
 * @param fallback what stands for text that leaves nothing
 */
export function fileSlug(text: string, fallback: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/g, '') || fallback
  );
}

/** The local day of `date` as a file name gives it, YYYY-MM-DD. */
function fileDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** The save dialog's suggested name of a chart of the Overview: `letterdesk-acme-overview-orders-by-status-2026-12-03.png`. */
export function chartFileName(profileName: string, chart: string, format: 'png' | 'svg', date: Date): string {
  return `letterdesk-${fileSlug(profileName, 'profile')}-overview-${fileSlug(chart, 'chart')}-${fileDay(date)}.${format}`;
}

/**
 * Runs one export, CSV or xlsx (write.ts {@link writeExport}) after checking the request.
 * @param db an open cache connection; it stays usable while the export runs
 * @param request what to export, checked against `exportRequestSchema`: kind, view query (null =
 *   everything), columns (null = all), CSV options
 * @param path absolute path of the file to create or replace
 * @returns the number of data rows written, once the file is in place
 * @throws LetterdeskError VALIDATION (bad request, path or column), CANCELLED (signal aborted),
 *   DISK_FULL; in every failure case no file exists under `path` unless one was there before, and
 *   then it is unchanged
 */
export async function runExport(db: Database.Database, request: unknown, path: string, options: RunExportOptions = {}): Promise<ExportOutcome> {
  const parsed = exportRequestSchema.safeParse(request);
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `Invalid export request: ${describeIssues(parsed.error)}.`);
  return writeExport(db, parsed.data, path, options);
}
