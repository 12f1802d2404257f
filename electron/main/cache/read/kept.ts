/**
 * Reading the kept filters (shared/keptFilters.ts; tables in docs/cache-schema.md): the list the
 * CLI's status and the profile's settings show, and the filter pane's counts of each kept value
 * within the current view. Every function reads inside the caller's read transaction or its own.
 */
import type Database from 'better-sqlite3';
import { KEPT_PARAMS, keptValueName, type KeptFacet, type KeptFilter, type KeptSelection } from '../../../../shared/keptFilters.ts';
import type { Resource } from '../../../../shared/serviceRecords.ts';
import type { LearnedStatusNames } from '../../../../shared/statusCodes.ts';
import { read, stmt, type Row } from './rows.ts';
import type { ViewSql } from './list.ts';
import { countBoth, keptBits, selectedBits, viewBits } from './keptBits.ts';

/** The spec's order of the parameters of `resource`, for sorting. */
function paramOrder(resource: Resource, param: string): number {
  const i = KEPT_PARAMS[resource].findIndex((p) => p.param === param);
  return i === -1 ? KEPT_PARAMS[resource].length : i;
}

function toKept(r: Row): KeptFilter {
  const resource = r.resource as Resource;
  const param = String(r.param);
  const value = String(r.value);
  return {
    resource, param, value, name: keptValueName(param, value),
    members: r.members === null ? null : Number(r.members),
    serverCount: r.server_count === null ? null : Number(r.server_count),
    readAt: r.read_at === null ? null : String(r.read_at),
    asOfDay: r.as_of_day === null ? null : String(r.as_of_day),
    lastError: r.error_code === null ? null : { code: String(r.error_code), message: String(r.error_message ?? ''), at: String(r.error_at ?? '') },
  };
}

/** `selections` without the one of `param` (a facet's counts leave its own selection out). */
export function withoutKept(selections: readonly KeptSelection[] | undefined, param: string): KeptSelection[] | undefined {
  return selections?.filter((s) => s.param !== param);
}

/** The kept values of every resource, or of one: by resource, then parameter in the pane's order, then as kept. */
export function listKeptFilters(db: Database.Database, resource?: Resource): KeptFilter[] {
  const rows = stmt(db, 'SELECT fid, resource, param, value, read_at, as_of_day, server_count, members, error_code, error_message, error_at FROM kept_filters ORDER BY resource, fid').all() as Row[];
  return rows
    .map(toKept)
    .filter((k) => resource === undefined || k.resource === resource)
    .sort((a, b) => a.resource.localeCompare(b.resource) || paramOrder(a.resource, a.param) - paramOrder(b.resource, b.param));
}

/**
 * The filter pane's kept parameters of `resource` with each kept value's count within the view
 * `viewOf(query without this parameter's selection)`. Where every row of the view is the
 * mirror's, the counts are bit operations (keptBits.ts): the rows of `local()` (the query without
 * any kept selection; none read for the whole mirror), narrowed by the other parameters'
 * selections `kept`, met with each value's members. Otherwise one grouped scan of the view per
 * parameter. For the whole mirror with nothing else ticked, the stored count of members.
 * @param kept the query's kept selections
 * @param local the view of the query without its kept selections
 */
export function keptFacets(db: Database.Database, resource: Resource, kept: readonly KeptSelection[] | undefined, viewOf: (without: string) => ViewSql, local: () => ViewSql): KeptFacet[] {
  return read(db, () => {
    const all = listKeptFilters(db, resource);
    const alias = resource === 'contacts' ? 'c' : 'o';
    const params = KEPT_PARAMS[resource].filter((spec) => all.some((k) => k.param === spec.param));
    if (params.length === 0) return [];
    const base = local();
    const selections = kept ?? [];
    // Bitsets when every row is the mirror's; nothing to build for the whole mirror alone.
    const bitwise = base.outside === undefined && !(base.all && selections.length === 0) ? keptBits(db, resource) : null;
    const rows = bitwise ? viewBits(db, base, alias, bitwise.words) : null;
    return params.map((spec): KeptFacet => {
      const values = all.filter((k) => k.param === spec.param);
      let counts: Map<string, number> | null = null;
      if (bitwise) {
        const within = selectedBits(bitwise, rows, selections, spec.param);
        // A value never read has no bitset; its count is not shown (null below).
        const members = bitwise.byValue.get(spec.param);
        if (within) counts = new Map(values.map((k) => [k.value, members?.has(k.value) ? countBoth(within, members.get(k.value)!) : 0]));
      } else {
        const v = viewOf(spec.param);
        if (!v.all) {
          const sql = `SELECT kf.value AS v, count(*) AS n FROM ${v.from} JOIN kept_members km ON km.id = ${alias}.id JOIN kept_filters kf ON kf.fid = km.fid
            WHERE (${v.where}) AND kf.resource = '${resource}' AND kf.param = :keptFacetParam GROUP BY kf.value`;
          counts = new Map((stmt(db, sql).all({ ...v.params, keptFacetParam: spec.param }) as Row[]).map((r) => [String(r.v), Number(r.n)]));
        }
      }
      return {
        param: spec.param, title: spec.title, kind: spec.kind,
        options: values.map((k) => ({
          value: k.value, label: k.name, readAt: k.readAt, asOfDay: k.asOfDay, lastError: k.lastError,
          count: k.readAt === null ? null : counts === null ? k.members : (counts.get(k.value) ?? 0),
        })),
      };
    });
  });
}

/**
 * The names the kept order statuses give the status codes (shared/statusCodes.ts
 * `LearnedStatusNames`): each code of the mirror's orders is named by the one status whose members
 * hold every order of that code; a code whose orders the service returned under several statuses
 * is a conflict. Codes with orders under no kept status stay unnamed.
 */
export function learnedStatusNames(db: Database.Database): LearnedStatusNames {
  return read(db, () => {
    const totals = new Map((stmt(db, 'SELECT status AS code, count(*) AS n FROM orders WHERE status IS NOT NULL GROUP BY status').all() as Row[]).map((r) => [Number(r.code), Number(r.n)]));
    const rows = stmt(db, `SELECT o.status AS code, kf.value AS value, count(*) AS n FROM kept_filters kf JOIN kept_members km ON km.fid = kf.fid JOIN orders o ON o.id = km.id
      WHERE kf.resource = 'orders' AND kf.param = 'orderStatus' AND kf.read_at IS NOT NULL AND o.status IS NOT NULL GROUP BY o.status, kf.value ORDER BY o.status, n DESC, kf.value`).all() as Row[];
    const byCode = new Map<number, { name: string; orders: number }[]>();
    for (const r of rows) {
      const code = Number(r.code);
      byCode.set(code, [...(byCode.get(code) ?? []), { name: keptValueName('orderStatus', String(r.value)), orders: Number(r.n) }]);
    }
    const names: LearnedStatusNames['names'] = {};
    const conflicts: LearnedStatusNames['conflicts'] = [];
    for (const [code, statuses] of byCode) {
      if (statuses.length > 1) conflicts.push({ code, statuses });
      else if (statuses[0] && statuses[0].orders === totals.get(code)) names[String(code)] = statuses[0].name;
    }
    return { names, conflicts };
  });
}
