/**
 * `letterdesk timeline <contacts|orders> <id>`: the changes syncs observed in one record (the
 * observed history, docs/cache-schema.md), oldest first. "history" names the sync runs already.
 */
import type { Command } from 'commander';
import type { Observation } from '../../../../shared/contract.ts';
import { LetterdeskError } from '../../../../shared/errors.ts';
import { RESOURCES, type Resource } from '../../../../shared/serviceRecords.ts';
import { chosenProfile, withContext, type CliIo } from '../context.ts';
import { printTable, writeJson, writeLine } from '../output.ts';

/** A JSON value as a table cell: text as it is, anything else as JSON. */
const cell = (value: Observation['from']): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Registers the `timeline` command on `program`. */
export function registerTimelineCommand(program: Command, io: CliIo): void {
  program
    .command('timeline <resource> <id>')
    .description('the changes syncs observed in one contact or order, oldest first (each between two reads of the service)')
    .option('--json', 'print [{ field, from, to, recipientId?, after, atOrBefore }]')
    .action((resource: string, id: string, opts: { json?: boolean }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        if (!(RESOURCES as readonly string[]).includes(resource)) {
          throw new LetterdeskError('VALIDATION', `"${resource}" is not a resource: write \`letterdesk timeline contacts <id>\` or \`letterdesk timeline orders <id>\`.`);
        }
        const p = chosenProfile(ctx);
        const cache = await ctx.core.caches.openSynced(p, resource as Resource);
        const timeline = await cache.recordTimeline(resource as Resource, id);
        if (opts.json) {
          writeJson(io.stdout, timeline, 2);
          return;
        }
        if (timeline.length === 0) {
          writeLine(io.stdout, `No change of ${resource === 'contacts' ? 'contact' : 'order'} ${id} has been observed: a change is seen when a sync reads it after an earlier one did.`);
          return;
        }
        printTable(io.stdout, ['after', 'at or before', 'field', 'recipient', 'from', 'to'], timeline.map((o) => [o.after, o.atOrBefore, o.field, o.recipientId ?? '', cell(o.from), cell(o.to)]));
      }),
    );
}
