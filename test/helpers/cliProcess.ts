/**
 * Runs the real `letterdesk` command line as a user would: a child process of this Node on
 * `electron/main/cli/index.ts`, a clean environment (no tokens unless given, no keychain bus),
 * collecting its exit status and both streams.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The CLI's entry point. */
export const CLI_ENTRY = join(import.meta.dirname, '..', '..', 'electron', 'main', 'cli', 'index.ts');

/** What a run of the CLI printed and how it ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `letterdesk --data-dir <dataDir> …args` in `cwd` (also its HOME).
 * @param env added to a minimal environment (PATH, HOME, no D-Bus session)
 */
export function runCliProcess(dataDir: string, cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, '--data-dir', dataDir, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: cwd,
        DBUS_SESSION_BUS_ADDRESS: 'disabled:',
        // Node's cache of compiled code, when the run keeps one (test/run.ts): it changes no behaviour.
        ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
