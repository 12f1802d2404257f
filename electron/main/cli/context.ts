/**
 * What every command starts from: the streams it writes to, the data directory and profile chosen
 * by the global options, and the core (core/) that does the work — the same core the app runs.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Profile } from '../../../shared/contract.ts';
import { LetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import type { Core } from '../core/index.ts';
import { resolveDataDir } from '../base/paths.ts';
import type { SampleApiOptions } from '../sampleApi/server.ts';
import { EXIT } from './exitCodes.ts';
import { writeLine } from './output.ts';

/** An error that carries its own exit status (when the error code alone does not say it). */
export class CliError extends LetterdeskError {
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, exitCode: number) {
    super(code, message);
    this.exitCode = exitCode;
  }
}

/** Where the CLI reads and writes; tests pass their own. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** True when a person can answer prompts (stdin and stderr are terminals). */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Asks for a secret without echoing it. */
  promptSecret(message: string): Promise<string>;
}

/** The global options (`--data-dir`, `--profile`). */
export interface GlobalOptions {
  dataDir?: string;
  profile?: string;
}

/** One command's context. */
export interface CliContext {
  io: CliIo;
  dataDir: string;
  globals: GlobalOptions;
  core: Core;
}

/** Options of {@link withContext}. */
export interface ContextOptions {
  /** The sample API this invocation serves (the `sample-api` command). */
  sample?: SampleApiOptions;
}

/**
 * Runs `work` with the invocation's context: the data directory (`--data-dir`, else
 * LETTERDESK_DATA_DIR, else the app's folder), a core over it whose tokens may also come from the
 * environment and a hidden prompt, and the log in `<data dir>/logs/cli.log`. The core is closed
 * afterwards (its cache workers, a sample API).
 * @throws CliError USAGE when the data directory is a file
 */
export async function withContext<T>(cmd: Command, io: CliIo, work: (ctx: CliContext) => Promise<T> | T, options: ContextOptions = {}): Promise<T> {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  const dataDir = resolveDataDir({ override: globals.dataDir === undefined ? undefined : resolve(io.cwd, globals.dataDir), env: io.env });
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new CliError('VALIDATION', `The data folder ${dataDir} is a file, not a folder. Pass --data-dir (or LETTERDESK_DATA_DIR) a folder; it is created if missing.`, EXIT.USAGE);
  }
  // Loaded here, not at start: `--help` and usage errors answer without SQLite, keytar or workers.
  const { createCore } = await import('../core/index.ts');
  const core = createCore({
    dataDir,
    version: 'cli',
    logFile: null,
    logName: 'cli.log',
    platform: cliPlatform,
    emit: () => {},
    autoSyncAfterMinutes: 0,
    tokenSources: { env: io.env, promptSecret: io.interactive ? (message) => io.promptSecret(message) : null, onNote: (note) => writeLine(io.stderr, `note: ${note}`) },
    ...(options.sample ? { sample: options.sample, sampleApiThread: 'main' as const } : {}),
  });
  const problem = core.profiles.loadProblem();
  if (problem) writeLine(io.stderr, `warning: ${problem}`);
  try {
    return await work({ io, dataDir, globals, core });
  } finally {
    await core.close();
  }
}

/** The command line has no windows, taskbar or browser to open. */
const cliPlatform = {
  showSaveDialog: () => Promise.resolve(null),
  showItemInFolder: () => {},
  openExternal: () => Promise.reject(new LetterdeskError('VALIDATION', 'The command line opens no links.')),
  setProgress: () => {},
};

/**
 * A profile by name (case-insensitive) or id.
 * @throws LetterdeskError NOT_FOUND naming the profiles there are
 */
export function findProfile(core: Core, nameOrId: string): Profile {
  const found = core.profiles.getByName(nameOrId) ?? core.profiles.get(nameOrId);
  if (!found) {
    const names = core.profiles.list().profiles.map((p) => p.name);
    throw new LetterdeskError('NOT_FOUND', `There is no profile "${nameOrId}". ${names.length ? `Profiles: ${names.join(', ')}.` : 'Add one with `letterdesk profile add NAME --base-url URL`.'}`);
  }
  return found;
}

/**
 * The profile of this invocation: `--profile`, else the active one.
 * @throws LetterdeskError NOT_FOUND / NO_PROFILE
 */
export function chosenProfile(ctx: CliContext): Profile {
  if (ctx.globals.profile !== undefined) return findProfile(ctx.core, ctx.globals.profile);
  const active = ctx.core.profiles.active();
  if (!active) {
    throw new LetterdeskError('NO_PROFILE', ctx.core.profiles.list().profiles.length
      ? 'No profile is selected. Choose one with `letterdesk profile use NAME` or pass --profile NAME.'
      : 'There are no profiles yet. Add one with `letterdesk profile add NAME --base-url URL`.');
  }
  return active;
}

/** Runs `work` with an AbortSignal that Ctrl+C (SIGINT) or SIGTERM aborts. */
export async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await work(abort.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
