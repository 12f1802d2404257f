/**
 * Entry point of the `letterdesk` command line: `npm run cli -- …` runs this file with Node ≥ 22
 * (type stripping), `electron/main/cli/letterdesk.js` launches it after `npm link`. See docs/cli.md.
 */
import { runCli, type CliIo } from './program.ts';

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
  env: process.env,
  cwd: process.cwd(),
  // Nothing is echoed (mask: false) and the answer never reaches argv or shell history.
  promptSecret: async (message) => {
    const { default: password } = await import('@inquirer/password');
    return password({ message, mask: false }, { output: process.stderr });
  },
};

// `letterdesk contacts --json | head`: a closed pipe ends the program quietly, as other tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

const code = await runCli(process.argv.slice(2), io);
// Let pending output drain, then leave even if a library keeps a handle open.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
