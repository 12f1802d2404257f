/** `letterdesk view add|list|refresh|remove`: saved views, shared with the app. */
import { Option, type Command } from 'commander';
import type { Profile } from '../../../../shared/contract.ts';
import { LetterdeskError, type ErrorCode } from '../../../../shared/errors.ts';
import type { SavedView, ViewRefresh } from '../../../../shared/views.ts';
import type { Core } from '../../core/index.ts';
import { addBothFilters, localQueryFor, type ContactFilterOptions, type OrderFilterOptions } from '../args.ts';
import { chosenProfile, withContext, withInterrupt, type CliIo } from '../context.ts';
import { fmt, printTable, writeJson, writeLine } from '../output.ts';
import { syncProgressView } from '../progress.ts';
import { addParamOption, paramsText, serviceQueryOf, viewJson } from '../viewOptions.ts';

/** One line about a view's membership. */
function membershipLine(view: SavedView): string {
  if (view.serviceQuery === null) return `"${view.name}" (${view.resource}): local filters only, no service query.`;
  const m = view.membership;
  const members = m ? `${fmt(m.members)} members as of ${m.refreshedAt}${m.newerThanMirror ? ` (${fmt(m.newerThanMirror)} newer than the last sync)` : ''}` : 'not read yet';
  return `"${view.name}" (${view.resource}): ${members}${view.lastError ? `; last refresh failed: ${view.lastError.message}` : ''}.`;
}

/**
 * Reads the memberships of `views` (a sync run of views only), printing a line per view.
 * @throws LetterdeskError the first view's failure (its previous membership is kept)
 */
async function refreshViews(io: CliIo, core: Core, profile: Profile, views: SavedView[], print = true): Promise<void> {
  if (views.length === 0) return;
  const view = syncProgressView(io.stderr);
  const refreshes: ViewRefresh[] = [];
  try {
    await withInterrupt(async (signal) => (await core.views.refresh(profile, views.map((v) => v.id), { signal, onProgress: (p) => view.update(p), onViewRefreshed: (r) => refreshes.push(r) })).done);
  } finally {
    view.stop();
  }
  const now = await core.views.list(profile);
  let failure: ViewRefresh | null = null;
  for (const asked of views) {
    const refresh = refreshes.find((r) => r.viewId === asked.id);
    const current = now.find((v) => v.id === asked.id) ?? asked;
    if (refresh?.outcome === 'succeeded') {
      if (print) writeLine(io.stdout, membershipLine(current));
    } else {
      failure ??= refresh ?? null;
      if (print) writeLine(io.stdout, `"${asked.name}" (${asked.resource}): ${refresh?.outcome ?? 'not read'}${refresh?.error ? ` \u2014 ${refresh.error.message}` : ''}`);
    }
  }
  if (failure) throw new LetterdeskError((failure.error?.code ?? (failure.outcome === 'cancelled' ? 'CANCELLED' : 'INTERNAL')) as ErrorCode, failure.error?.message ?? 'The view was not read.');
}

/** Registers the `view` command group on `program`. */
export function registerViewCommands(program: Command, io: CliIo): void {
  const viewCmd = program.command('view').description('saved views: a service query kept offline, and local filters');

  const add = viewCmd
    .command('add <name>')
    .description('save a view and read its members from the service at once (with --param); the app shows it too')
    .addOption(new Option('--resource <r>', 'contacts or orders').choices(['contacts', 'orders']).makeOptionMandatory());
  addParamOption(add);
  addBothFilters(add);
  add
    .option('--no-refresh-after-sync', 'do not read the members again after every sync (only with `view refresh`)')
    .option('--json', 'print the view as JSON')
    .action((name: string, opts: ContactFilterOptions & OrderFilterOptions & { resource: 'contacts' | 'orders'; param?: string[]; refreshAfterSync: boolean; json?: boolean }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const core = ctx.core;
        const p = chosenProfile(ctx);
        const serviceQuery = opts.param?.length ? serviceQueryOf(opts.resource, opts.param) : null;
        const local = localQueryFor(opts.resource, opts.resource, opts);
        const created = await core.views.create(p, { resource: opts.resource, name, serviceQuery, settings: Object.keys(local).length ? { query: local as never } : {}, refreshAfterSync: opts.refreshAfterSync }, { readInBackground: false });
        let failure: unknown = null;
        if (serviceQuery !== null) await refreshViews(io, core, p, [created], false).catch((error: unknown) => (failure = error));
        const saved = (await core.views.list(p)).find((v) => v.id === created.id) ?? created;
        if (opts.json) writeJson(io.stdout, viewJson(saved), 2);
        else writeLine(io.stdout, `Saved view ${membershipLine(saved)}`);
        if (failure) throw new LetterdeskError((failure as LetterdeskError).code ?? 'INTERNAL', `The view was saved, but its members could not be read: ${(failure as Error).message} Run \`letterdesk view refresh "${name}"\` to try again.`);
      }),
    );

  viewCmd
    .command('list')
    .description('the views of the profile, with their members and when they were read')
    .option('--json', 'print { views: [{ id, name, resource, params, members, refreshedAt, lastError }] }')
    .action((opts: { json?: boolean }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const views = await ctx.core.views.list(chosenProfile(ctx));
        if (opts.json) {
          writeJson(io.stdout, { views: views.map(viewJson) }, 2);
          return;
        }
        if (views.length === 0) {
          writeLine(io.stderr, 'No views yet. Save one with `letterdesk view add NAME --resource contacts|orders --param NAME=VALUE`.');
          return;
        }
        printTable(
          io.stdout,
          ['NAME', 'RESOURCE', 'MEMBERS', 'READ AT', 'SERVICE QUERY', 'LAST ERROR'],
          views.map((v) => [v.name, v.resource, v.membership ? fmt(v.membership.members) : '', v.membership?.refreshedAt ?? '', paramsText(v), v.lastError?.message ?? '']),
        );
      }),
    );

  viewCmd
    .command('refresh [name]')
    .description('read the members of one view, or of every view with a service query, from the service again')
    .action((name: string | undefined, _opts: unknown, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const p = chosenProfile(ctx);
        const views = name === undefined ? (await ctx.core.views.list(p)).filter((v) => v.serviceQuery !== null) : [await ctx.core.views.byName(p, name)];
        if (name !== undefined && views[0]?.serviceQuery === null) throw new LetterdeskError('VALIDATION', `"${name}" has no service query: there is nothing to read. Give it one in the app, or save a new view with --param.`);
        if (views.length === 0) writeLine(io.stderr, 'No view has a service query; nothing to read.');
        await refreshViews(io, ctx.core, p, views);
      }),
    );

  viewCmd
    .command('remove <name>')
    .description('delete a view (its members go with it; the cached records stay)')
    .action((name: string, _opts: unknown, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const p = chosenProfile(ctx);
        const view = await ctx.core.views.byName(p, name);
        await ctx.core.views.remove(p, view.id);
        writeLine(io.stdout, `Removed view "${view.name}" (${view.resource}).`);
      }),
    );
}
