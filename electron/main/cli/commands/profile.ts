/** `letterdesk profile add|list|use|remove`: the profiles the app and the command line share. */
import { Command, Option } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../../../shared/contract.ts';
import { intArg } from '../args.ts';
import { findProfile, withContext, type CliIo } from '../context.ts';
import { printTable, writeJson, writeLine } from '../output.ts';

const DEFAULT_PAGE_SIZE = 500;

/** Registers the `profile` command group on `program`. */
export function registerProfileCommands(program: Command, io: CliIo): void {
  const profile = program.command('profile').description('add, list, choose and remove profiles');

  profile
    .command('add <name>')
    .description('add a profile (the first one becomes the active profile); tokens are not taken here')
    .requiredOption('--base-url <url>', 'service base address, ending in /api/v1 (https; http only to this computer)')
    .addOption(new Option('--environment <env>', 'demo, production or custom').choices(ENVIRONMENTS).default('custom'))
    .option('--account-id <id>', 'meta.account_id scope for both endpoints')
    .option('--page-size <n>', 'rows per request, 1\u20131000', intArg('--page-size', 1, 1000), DEFAULT_PAGE_SIZE)
    .option('--json', 'print the stored profile as JSON')
    .action((name: string, opts: { baseUrl: string; environment: Environment; accountId?: string; pageSize: number; json?: boolean }, cmd: Command) =>
      withContext(cmd, io, ({ core }) => {
        const saved = core.profiles.save({ name, environment: opts.environment, baseUrl: opts.baseUrl, accountId: opts.accountId ?? null, pageSize: opts.pageSize });
        if (opts.json) writeJson(io.stdout, saved, 2);
        else {
          const active = core.profiles.list().activeProfileId === saved.id;
          writeLine(io.stdout, `Added profile "${saved.name}" (id ${saved.id})${active ? ', now the active profile' : ''}.`);
        }
      }),
    );

  profile
    .command('list')
    .description('list profiles (* = active)')
    .option('--json', 'print { profiles, activeProfileId } as JSON')
    .action((opts: { json?: boolean }, cmd: Command) =>
      withContext(cmd, io, ({ core }) => {
        const list = core.profiles.list();
        if (opts.json) {
          writeJson(io.stdout, list, 2);
          return;
        }
        if (list.profiles.length === 0) {
          writeLine(io.stderr, 'No profiles yet. Add one with `letterdesk profile add NAME --base-url URL`.');
          return;
        }
        printTable(
          io.stdout,
          ['', 'NAME', 'ID', 'ENVIRONMENT', 'BASE URL', 'ACCOUNT'],
          list.profiles.map((p) => [p.id === list.activeProfileId ? '*' : '', p.name, p.id, p.environment, p.baseUrl, p.accountId ?? '']),
        );
      }),
    );

  profile
    .command('use <name>')
    .description('make a profile the active one')
    .action((name: string, _opts: unknown, cmd: Command) =>
      withContext(cmd, io, ({ core }) => {
        const p = findProfile(core, name);
        core.profiles.use(p.id);
        writeLine(io.stdout, `Active profile: "${p.name}".`);
      }),
    );

  profile
    .command('remove <name>')
    .description('remove a profile and its stored tokens')
    .option('--purge-cache', 'also delete its cached data')
    .action((name: string, opts: { purgeCache?: boolean }, cmd: Command) =>
      withContext(cmd, io, async ({ core }) => {
        const p = findProfile(core, name);
        const removed = await core.removeProfile(p.id, { purgeCache: opts.purgeCache === true });
        if (removed.credentialsProblem) writeLine(io.stderr, `warning: tokens in the keychain may remain: ${removed.credentialsProblem}`);
        writeLine(io.stdout, `Removed profile "${p.name}"${opts.purgeCache ? ' and its cached data' : ''}.`);
      }),
    );
}
