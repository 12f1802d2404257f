/** `letterdesk contacts` and `letterdesk orders`: search and list the cached records, offline. */
import type { Command } from 'commander';
import type { Profile } from '../../../../shared/contract.ts';
import type { ContactQuery, OrderQuery } from '../../../../shared/query.ts';
import { addContactFilters, addOrderFilters, contactQuery, intArg, orderQuery, type ContactFilterOptions, type OrderFilterOptions } from '../args.ts';
import { chosenProfile, withContext, type CliContext, type CliIo } from '../context.ts';
import { addKeptOptions, hasKeptOptions, withKeptOptions } from '../keptOptions.ts';
import { JsonArrayWriter, printRecordTable } from '../output.ts';
import { withLearnedNames } from '../../../../shared/statusCodes.ts';
import { queryInView } from '../viewOptions.ts';

const DEFAULT_LIMIT = 100;

/**
 * Prints the records of a view: with `json` the cached JSON of each record as the service sent it
 * (§2.2 / §2.3 shapes) plus one key, `letterdesk`, of what Letterdesk derives (contacts: times
 * mailed, delivered, last order; orders: status name, first seen), streamed; else a table. The service-filter options (keptOptions.ts)
 * narrow it first.
 */
async function listRecords(ctx: CliContext, profile: Profile, kind: 'contacts' | 'orders', opts: Record<string, unknown>, local: ContactQuery | OrderQuery, view: string | undefined, limit: number, json: boolean): Promise<void> {
  const cache = await ctx.core.caches.openSynced(profile, kind);
  const inView = view === undefined ? local : await queryInView(ctx.core, profile, kind, view, local);
  const query = hasKeptOptions(kind, opts) ? await withKeptOptions(ctx, profile, kind, opts, inView) : inView;
  if (query === null) {
    // The service returned none for the values it was asked.
    if (json) new JsonArrayWriter(ctx.io.stdout).end();
    else printRecordTable(ctx.io.stdout, ctx.io.stderr, kind, []);
    return;
  }
  if (json) {
    // What Letterdesk derives goes under one added key; the rest is the service's record.
    const names = kind === 'orders' ? withLearnedNames(profile.statusNames, (await cache.learnedStatusNames()).names) : {};
    const statusNames = Object.fromEntries(Object.entries(names).map(([code, n]) => [code, n.name]));
    const writer = new JsonArrayWriter(ctx.io.stdout);
    await cache.records(kind, query, limit, (raws) => writer.add(raws), { derived: { statusNames } });
    writer.end();
    return;
  }
  const raws: string[] = [];
  await cache.records(kind, query, limit, (chunk) => raws.push(...chunk));
  printRecordTable(ctx.io.stdout, ctx.io.stderr, kind, raws);
}

/** Registers the `contacts` and `orders` commands on `program`. */
export function registerListCommands(program: Command, io: CliIo): void {
  addKeptOptions(addContactFilters(program.command('contacts').description('search and list cached contacts (newest first unless --sort)')), 'contacts')
    .option('--limit <n>', `at most this many rows (default ${DEFAULT_LIMIT})`, intArg('--limit', 1, 10_000_000), DEFAULT_LIMIT)
    .option('--json', 'print a JSON array of contacts in the service\u2019s record shape (\u00a72.2), with letterdesk: { timesMailed, deliveredCount, lastOrderSeenAt }')
    .option('--view <name>', 'only the members of this saved contacts view, with its filters (offline, from the cache)')
    .action((opts: ContactFilterOptions & { limit: number; json?: boolean; view?: string }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        return listRecords(ctx, chosenProfile(ctx), 'contacts', opts as unknown as Record<string, unknown>, contactQuery(opts), opts.view, opts.limit, opts.json === true);
      }),
    );

  addKeptOptions(addOrderFilters(program.command('orders').description('search and list cached orders (newest first unless --sort)')), 'orders')
    .option('--limit <n>', `at most this many rows (default ${DEFAULT_LIMIT})`, intArg('--limit', 1, 10_000_000), DEFAULT_LIMIT)
    .option('--json', 'print a JSON array of orders in the service\u2019s record shape (\u00a72.3), with letterdesk: { statusName, firstSeenAt }')
    .option('--view <name>', 'only the members of this saved orders view, with its filters (offline, from the cache)')
    .action((opts: OrderFilterOptions & { limit: number; json?: boolean; view?: string }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        return listRecords(ctx, chosenProfile(ctx), 'orders', opts as unknown as Record<string, unknown>, orderQuery(opts), opts.view, opts.limit, opts.json === true);
      }),
    );
}
