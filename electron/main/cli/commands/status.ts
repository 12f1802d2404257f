/** `letterdesk status`: rows, last sync and last error of each resource of the profile. */
import type { Command } from 'commander';
import { keptParamSpec } from '../../../../shared/keptFilters.ts';
import { RESOURCES } from '../../../../shared/serviceRecords.ts';
import { chosenProfile, withContext, type CliIo } from '../context.ts';
import { fmt, writeJson, writeLine } from '../output.ts';
import { viewJson } from '../viewOptions.ts';

/** Registers the `status` command on `program`. */
export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('rows and last sync of each resource of the profile')
    .option('--json', 'print { profile, resources: { contacts: { rows, invalidRecords, lastSyncedAt, lastError, source }, orders: { \u2026 } }, views: [\u2026], keptFilters: [\u2026] }')
    .action((opts: { json?: boolean }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const p = chosenProfile(ctx);
        const resources = await ctx.core.caches.resourceStates(p);
        const views = await ctx.core.caches.views(p);
        const kept = await ctx.core.caches.keptFilters(p);
        if (opts.json) {
          const keptFilters = kept.map((k) => ({ resource: k.resource, param: k.param, value: k.value, members: k.members, readAt: k.readAt, asOfDay: k.asOfDay, lastError: k.lastError }));
          writeJson(io.stdout, { profile: p, resources, views: views.map(viewJson), keptFilters }, 2);
          return;
        }
        writeLine(io.stdout, `Profile "${p.name}" (${p.id}) \u2014 ${p.baseUrl}`);
        for (const r of RESOURCES) {
          const s = resources[r];
          const when = s.lastSyncedAt ? `last synced ${s.lastSyncedAt}` : 'never synced';
          writeLine(io.stdout, `  ${r.padEnd(8)} ${fmt(s.rows).padStart(10)} rows, ${when}${s.lastError ? `; last error: ${s.lastError.message}` : ''}`);
          const from = s.source;
          if (from && !p.sampleData && (from.origin !== new URL(p.baseUrl).origin || from.accountId !== p.accountId)) {
            writeLine(io.stdout, `           read from ${from.origin}${from.accountId ? ` (account ${from.accountId})` : ''}, not the profile's address or account; the next sync replaces it`);
          }
        }
        for (const param of [...new Set(kept.map((k) => `${k.resource} ${k.param}`))]) {
          const values = kept.filter((k) => `${k.resource} ${k.param}` === param);
          const title = keptParamSpec(values[0]!.resource, values[0]!.param)?.title ?? values[0]!.param;
          const counts = values.map((k) => `${k.name} ${k.members === null ? 'not read yet' : fmt(k.members)}${k.lastError ? ' (last read failed)' : ''}`).join(', ');
          writeLine(io.stdout, `  kept ${title} (${values[0]!.resource}): ${counts}`);
        }
        for (const v of views) {
          const members = v.serviceQuery === null ? 'local filters only' : v.membership ? `${fmt(v.membership.members)} members, read ${v.membership.refreshedAt}` : 'not read yet';
          writeLine(io.stdout, `  view "${v.name}" (${v.resource}): ${members}${v.lastError ? `; last refresh failed: ${v.lastError.message}` : ''}`);
        }
      }),
    );
}
