/**
 * How the command line names saved views: `--view NAME` on the listing and export commands, the
 * `--param NAME=VALUE` service-query options, and the stable `--json` shape of a view.
 */
import type { Command } from 'commander';
import type { Profile } from '../../../shared/contract.ts';
import { contactQuerySchema, orderQuerySchema, type ContactQuery, type OrderQuery } from '../../../shared/query.ts';
import { formatServiceParams, parseServiceParams, type ServiceResource } from '../../../shared/serviceQuery.ts';
import { viewLocalQuery, type SavedView, type ViewServiceQuery } from '../../../shared/views.ts';
import type { Core } from '../core/index.ts';
import { collect } from './args.ts';

/** Adds `--param NAME=VALUE` (repeatable) to `cmd`. */
export function addParamOption(cmd: Command): Command {
  return cmd.option('--param <NAME=VALUE>', 'a service filter by the spec\u2019s name (repeatable): lists comma-separated, dates START..END as YYYY-MM-DD, booleans true/false', collect((v: string) => v));
}

/**
 * The service query of `--param` options.
 * @throws LetterdeskError VALIDATION naming the parameter and what it accepts
 */
export function serviceQueryOf(resource: ServiceResource, params: readonly string[] | undefined): ViewServiceQuery {
  return parseServiceParams(resource, params ?? []) as ViewServiceQuery;
}

/**
 * The query of a listing or export limited to `viewName`'s members: the view's own local filters
 * and sort, then the command line's on top (they win where both set the same one).
 */
export async function queryInView<Q extends ContactQuery | OrderQuery>(core: Core, profile: Profile, table: 'contacts' | 'orders', viewName: string, fromCli: Q): Promise<Q> {
  const view = await core.views.byName(profile, viewName, table);
  const local: ContactQuery | OrderQuery = table === 'contacts' ? viewLocalQuery(view.settings, contactQuerySchema) : viewLocalQuery(view.settings, orderQuerySchema);
  const set = Object.fromEntries(Object.entries(fromCli).filter(([, v]) => v !== undefined));
  return { ...local, ...set, view: view.id } as Q;
}

/** A view as `view list --json` and `status --json` print it. */
export interface ViewJson {
  id: string;
  name: string;
  resource: 'contacts' | 'orders';
  /** The service query by the spec's names, or null for a view of local settings only. */
  params: ViewServiceQuery | null;
  /** Members of the last membership read, or null when it was never read. */
  members: number | null;
  refreshedAt: string | null;
  lastError: { code: string; message: string; at: string } | null;
}

/** The `--json` shape of a view. */
export function viewJson(view: SavedView): ViewJson {
  return {
    id: view.id,
    name: view.name,
    resource: view.resource,
    params: view.serviceQuery,
    members: view.membership?.members ?? null,
    refreshedAt: view.membership?.refreshedAt ?? null,
    lastError: view.lastError,
  };
}

/** The service query of a view as `NAME=VALUE` words, or `—`. */
export function paramsText(view: SavedView): string {
  return view.serviceQuery === null ? '—' : formatServiceParams(view.resource, view.serviceQuery as never).join(' ');
}
