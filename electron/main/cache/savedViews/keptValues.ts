/**
 * Choosing which values of a service filter the cache keeps (shared/keptFilters.ts; tables in
 * docs/cache-schema.md): the Profiles page's setting writes here, on the database worker's
 * connection. A value kept already keeps its members and last read; a value dropped loses them; a
 * value added has none until the next sync reads it.
 */
import type Database from 'better-sqlite3';
import { LetterdeskError } from '../../../../shared/errors.ts';
import { MAX_KEPT_VALUES_PER_PARAM, keptParamSpec, keptValueProblem, type KeptFilter } from '../../../../shared/keptFilters.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import { listKeptFilters } from '../read/kept.ts';
import { keptStagingId } from './kept.ts';
import { clearMembershipStage } from './staging.ts';

/** What {@link setKeptValues} takes: the whole list of values `param` of `resource` keeps from now on. */
export interface KeptValuesInput {
  resource: Resource;
  param: string;
  values: string[];
}

/**
 * Makes `values` the kept values of `param` of `resource`, in one transaction: the values not
 * listed are dropped with their members (and any read of them being staged), the new ones are added
 * unread, the others are left as they are. Duplicates in `values` count once.
 * @returns every kept filter of the cache afterwards ({@link listKeptFilters})
 * @throws LetterdeskError VALIDATION for a parameter that cannot be kept, a value it does not
 *   accept (the message says what it accepts), or more than {@link MAX_KEPT_VALUES_PER_PARAM} values;
 *   nothing changes
 */
export function setKeptValues(db: Database.Database, input: KeptValuesInput): KeptFilter[] {
  const { resource, param } = input;
  const values = [...new Set(input.values)];
  const spec = keptParamSpec(resource, param);
  // The problem of any value names the parameters that can be kept when this one cannot.
  if (!spec) throw new LetterdeskError('VALIDATION', keptValueProblem(resource, param, '')!);
  for (const value of values) {
    const problem = keptValueProblem(resource, param, value);
    if (problem) throw new LetterdeskError('VALIDATION', problem);
  }
  if (values.length > MAX_KEPT_VALUES_PER_PARAM) {
    throw new LetterdeskError('VALIDATION', `${spec.title} keeps at most ${MAX_KEPT_VALUES_PER_PARAM} values; each one is read from the service after every sync. Remove some of the ${values.length}.`);
  }
  db.transaction(() => {
    const existing = db.prepare('SELECT fid, value FROM kept_filters WHERE resource = ? AND param = ?').all(resource, param) as { fid: number; value: string }[];
    const dropMembers = db.prepare('DELETE FROM kept_members WHERE fid = ?');
    const drop = db.prepare('DELETE FROM kept_filters WHERE fid = ?');
    for (const { fid, value } of existing) {
      if (values.includes(value)) continue;
      dropMembers.run(fid);
      drop.run(fid);
      clearMembershipStage(db, keptStagingId(fid));
    }
    const add = db.prepare('INSERT OR IGNORE INTO kept_filters (resource, param, value) VALUES (?, ?, ?)');
    for (const value of values) add.run(resource, param, value);
  }).immediate();
  return listKeptFilters(db);
}
