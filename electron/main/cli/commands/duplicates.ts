/** `letterdesk duplicates`: the contacts that would receive the same letter twice, from the cache, offline. */
import { Option, type Command } from 'commander';
import { DEFAULT_DUPLICATE_LEVEL, DUPLICATE_LEVELS, type DuplicateLevel } from '../../../../shared/duplicates.ts';
import { chosenProfile, withContext, type CliIo } from '../context.ts';
import { fmt, printTable, writeJson, writeLine } from '../output.ts';

/** Registers the `duplicates` command on `program`. */
export function registerDuplicatesCommand(program: Command, io: CliIo): void {
  program
    .command('duplicates')
    .description('groups of contacts that share a normalised address (and last name, or full name) and would receive the same letter twice (offline)')
    .addOption(new Option('--level <level>', 'address: the address alone; household: and the last name; individual: and the first and last name').choices(DUPLICATE_LEVELS).default(DEFAULT_DUPLICATE_LEVEL))
    .option('--json', 'print [{ key, level, contactIds }], one object per group, by key')
    .action((opts: { level: DuplicateLevel; json?: boolean }, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const cache = await ctx.core.caches.openSynced(chosenProfile(ctx), 'contacts');
        const groups = await cache.duplicateGroupIds(opts.level);
        if (opts.json) {
          writeJson(io.stdout, groups, 2);
          return;
        }
        const contacts = groups.reduce((n, g) => n + g.contactIds.length, 0);
        writeLine(io.stdout, `${fmt(groups.length)} ${opts.level} groups, ${fmt(contacts)} contacts`);
        if (groups.length === 0) return;
        writeLine(io.stdout);
        printTable(io.stdout, ['contacts', 'key'], groups.map((g) => [g.contactIds.join(' '), g.key.replaceAll('|', ' · ')]));
      }),
    );
}
