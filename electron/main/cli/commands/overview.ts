/** `letterdesk overview`: the profile's mailing at a glance, from the cache and its observed history, offline. */
import type { Command } from 'commander';
import { withLearnedNames } from '../../../../shared/statusCodes.ts';
import { chosenProfile, withContext, type CliIo } from '../context.ts';
import { fmt, printTable, writeJson, writeLine } from '../output.ts';

/** Registers the `overview` command on `program`. */
export function registerOverviewCommand(program: Command, io: CliIo): void {
  program
    .command('overview')
    .description('contacts per state, orders per status, deliveries and campaigns of the cached data (offline)')
    .option(
      '--json',
      'print { computedAt, contacts: { total, byState, stateValues, invalid }, orders: { total, byStatus: [{ code, name, count }], byProductType, byEnvelope, byPostage: [{ value, count }], ' +
        'firstSeenByDay: [{ day, count }], invalid }, recipients: { total, delivered }, deliveriesByDay: [{ day, count }], campaigns: [{ id, name, recipients, delivered }], ' +
        'templates: [{ id, title, orders, recipients }], kept: [{ resource, param, value, members, readAt }] }',
    )
    .action((opts: { json?: boolean }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const p = chosenProfile(ctx);
        const cache = await ctx.core.caches.openSynced(p, 'orders');
        const names = withLearnedNames(p.statusNames, (await cache.learnedStatusNames()).names);
        const o = await cache.overview(Object.fromEntries(Object.entries(names).map(([code, n]) => [code, n.name])));
        if (opts.json) {
          writeJson(io.stdout, o, 2);
          return;
        }
        const share = o.recipients.total > 0 ? ` (${((o.recipients.delivered / o.recipients.total) * 100).toFixed(1)} %)` : '';
        writeLine(io.stdout, `${fmt(o.contacts.total)} contacts, ${fmt(o.orders.total)} orders, ${fmt(o.recipients.total)} recipients, ${fmt(o.recipients.delivered)} delivered${share}`);
        const invalid = o.contacts.invalid + o.orders.invalid;
        if (invalid > 0) writeLine(io.stdout, `${fmt(o.contacts.invalid)} contacts and ${fmt(o.orders.invalid)} orders kept as invalid`);
        if (o.computedAt) writeLine(io.stdout, `computed at the sync of ${o.computedAt}`);
        writeLine(io.stdout);
        printTable(io.stdout, ['status', 'orders'], o.orders.byStatus.map((s) => [s.name ?? (s.code === null ? 'no status' : `Status ${s.code}`), fmt(s.count)]));
        writeLine(io.stdout);
        const states = Object.entries(o.contacts.byState).sort((a, b) => b[1] - a[1]).slice(0, 10);
        printTable(io.stdout, ['state', 'contacts'], states.map(([code, n]) => [code === 'other' ? 'other / outside the US' : code, fmt(n)]));
        writeLine(io.stdout);
        printTable(io.stdout, ['product type', 'orders'], o.orders.byProductType.map((p) => [p.value || '(none)', fmt(p.count)]));
        writeLine(io.stdout);
        printTable(io.stdout, ['campaign', 'recipients', 'delivered'], o.campaigns.slice(0, 10).map((c) => [c.name || `#${c.id}`, fmt(c.recipients), fmt(c.delivered)]));
        writeLine(io.stdout);
        printTable(io.stdout, ['template', 'orders', 'recipients'], o.templates.slice(0, 10).map((t) => [t.title || `#${t.id}`, fmt(t.orders), fmt(t.recipients)]));
        const days = o.deliveriesByDay.slice(-7);
        if (days.length > 0) {
          writeLine(io.stdout);
          printTable(io.stdout, ['day', 'observed delivered'], days.map((d) => [d.day, fmt(d.count)]));
        }
      }),
    );
}
