/**
 * The `letterdesk` command line (reference: docs/cli.md): thin commands over the same core as the
 * desktop app (core/), on the same data directory, so a sync from either shows in both. One file
 * per command group under commands/; argument parsing in args.ts; output in output.ts and progress.ts.
 *
 * Streams: results go to stdout (`--json` output is exactly one JSON document); errors go to stderr
 * as one line; progress goes to stderr (a bar on a terminal, plain lines otherwise).
 */
import { Command, CommanderError } from 'commander';
import { isLetterdeskError } from '../../../shared/errors.ts';
import { logger, redact } from '../base/log.ts';
import { registerExportCommand } from './commands/export.ts';
import { registerListCommands } from './commands/list.ts';
import { registerProfileCommands } from './commands/profile.ts';
import { registerQueryCommand } from './commands/query.ts';
import { registerViewCommands } from './commands/views.ts';
import { registerSampleApiCommand } from './commands/sampleApi.ts';
import { registerStatusCommand } from './commands/status.ts';
import { registerSyncCommand } from './commands/sync.ts';
import { registerTimelineCommand } from './commands/timeline.ts';
import { registerDuplicatesCommand } from './commands/duplicates.ts';
import { registerOverviewCommand } from './commands/overview.ts';
import { CliError, type CliIo } from './context.ts';
import { EXIT, exitCodeFor } from './exitCodes.ts';
import { writeLine } from './output.ts';

export { CliError, type CliIo } from './context.ts';

const EXIT_HELP = `
Exit status: 0 success, 2 usage error, 3 auth error, 4 network/unreachable, 5 server error,
6 data error, 130 interrupted, 1 anything else (see docs/cli.md).
Tokens: LETTERDESK_ACCESS_TOKEN / LETTERDESK_REFRESH_TOKEN, else the keychain, else a hidden prompt.`;

/**
 * Builds the commander program. Every action throws a LetterdeskError on failure; {@link runCli}
 * turns it into a one-line message and an exit status.
 */
export function createProgram(io: CliIo): Command {
  const program = new Command();
  program
    .name('letterdesk')
    .description('Letterdesk on the command line: profiles, sync, search and CSV export of the local cache, and the sample API.')
    .option('--data-dir <dir>', 'data directory (default: LETTERDESK_DATA_DIR, else the app\u2019s folder)')
    .option('--profile <name>', 'profile to use (name or id; default: the active profile)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showSuggestionAfterError(true)
    .addHelpText('after', EXIT_HELP);
  registerProfileCommands(program, io);
  registerSyncCommand(program, io);
  registerStatusCommand(program, io);
  registerListCommands(program, io);
  registerTimelineCommand(program, io);
  registerOverviewCommand(program, io);
  registerDuplicatesCommand(program, io);
  registerExportCommand(program, io);
  registerViewCommands(program, io);
  registerQueryCommand(program, io);
  registerSampleApiCommand(program, io);
  return program;
}

/**
 * Runs the CLI on `argv` (without the node and script paths).
 * @returns the exit status (see {@link EXIT}); never throws
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT.USAGE;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return EXIT.OK;
      // commander already printed its one-line message.
      return EXIT.USAGE;
    }
    if (isLetterdeskError(error)) {
      writeLine(io.stderr, `letterdesk: ${redact(error.message).replace(/\s*\n\s*/g, ' ')}`);
      return error instanceof CliError ? error.exitCode : exitCodeFor(error.code);
    }
    logger.error('cli: unexpected error', error);
    const message = error instanceof Error ? error.message : String(error);
    // The file the line above went to: `<--data-dir>/logs/cli.log` once the command has read its options.
    writeLine(io.stderr, `letterdesk: unexpected error: ${redact(message).replace(/\s*\n\s*/g, ' ')}. Details are in ${logger.transports.file.getFile().path}.`);
    return EXIT.OTHER;
  }
}
