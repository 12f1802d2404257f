/** `letterdesk sync [contacts|orders|all]`: mirrors the profile's resources into its cache. */
import type { Command } from 'commander';
import type { SyncRun } from '../../../../shared/contract.ts';
import { LetterdeskError, type ErrorCode } from '../../../../shared/errors.ts';
import { RESOURCES, type Resource } from '../../../../shared/serviceRecords.ts';
import type { ViewRefresh } from '../../../../shared/views.ts';
import { logger } from '../../base/log.ts';
import { chosenProfile, withContext, withInterrupt, type CliIo } from '../context.ts';
import { fmt, writeLine } from '../output.ts';
import { syncProgressView } from '../progress.ts';

/** Registers the `sync` command on `program`. */
export function registerSyncCommand(program: Command, io: CliIo): void {
  program
    .command('sync')
    .description('mirror contacts and/or orders of the profile into the local cache')
    .addArgument(program.createArgument('[what]', 'contacts, orders or all').choices(['contacts', 'orders', 'all']).default('all'))
    .action((what: 'contacts' | 'orders' | 'all', _opts: unknown, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const p = chosenProfile(ctx);
        const resources: Resource[] = what === 'all' ? [...RESOURCES] : [what];
        const view = syncProgressView(io.stderr);
        const started = performance.now();
        let runs: SyncRun[];
        const refreshes: ViewRefresh[] = [];
        try {
          runs = await withInterrupt(async (signal) => (await ctx.core.syncs.start(p, resources, { signal, onProgress: (x) => view.update(x), onViewRefreshed: (r) => refreshes.push(r) })).done);
        } finally {
          view.stop();
        }
        let failure: SyncRun | null = null;
        for (const run of runs) {
          const seconds = ((run.endedAt ? Date.parse(run.endedAt) : Date.now()) - Date.parse(run.startedAt)) / 1000;
          if (run.outcome === 'succeeded') {
            const invalid = run.invalidRecords ? ` (${fmt(run.invalidRecords)} kept with validation problems)` : '';
            writeLine(io.stdout, `${run.resource}: ${fmt(run.rows)} rows synced in ${seconds.toFixed(1)} s${invalid}.`);
          } else {
            failure ??= run;
            writeLine(io.stdout, `${run.resource}: ${run.outcome}${run.error ? ` \u2014 ${run.error.message}` : ''}`);
          }
        }
        if (refreshes.length > 0) {
          const names = new Map((await ctx.core.views.list(p)).map((v) => [v.id, v.name]));
          for (const r of refreshes) {
            const name = names.get(r.viewId) ?? r.viewId;
            if (r.outcome === 'succeeded' && r.membership) writeLine(io.stdout, `view "${name}": ${fmt(r.membership.members)} members.`);
            else writeLine(io.stdout, `view "${name}": ${r.outcome}${r.error ? ` \u2014 ${r.error.message}` : ''} (the previous members are kept)`);
          }
        }
        logger.info(`cli sync ${p.id} ${what}: ${runs.map((r) => `${r.resource}=${r.outcome}`).join(' ')} in ${Math.round(performance.now() - started)} ms`);
        if (failure) {
          const code = (failure.error?.code ?? (failure.outcome === 'cancelled' ? 'CANCELLED' : 'INTERNAL')) as ErrorCode;
          throw new LetterdeskError(code, failure.error?.message ?? `The ${failure.resource} sync was ${failure.outcome}.`);
        }
      }),
    );
}
