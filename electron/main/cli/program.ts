/**
 * The `letterdesk` command line (issue 7; reference: docs/cli.md). It composes the same main-side
 * modules as the desktop app (paths, profiles, credentials, cache, sync, export, sample API) on the
 * same data directory, so a sync from either shows in both.
 *
 * Streams: results go to stdout (`--json` output is exactly one JSON document); errors go to stderr
 * as one line; progress goes to stderr (a bar on a terminal, plain lines otherwise).
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import type Database from 'better-sqlite3';
import {
  ENVIRONMENTS,
  EXPORT_KINDS,
  type CsvOptions,
  type Environment,
  type ExportKind,
  type ExportRequest,
  type Profile,
  type ResourceState,
  type SyncProgress,
  type SyncRun,
} from '../../../shared/contract.ts';
import { LetterdeskError, isLetterdeskError, type ErrorCode } from '../../../shared/errors.ts';
import {
  CONTACT_SORT_COLUMNS,
  ORDER_SORT_COLUMNS,
  contactQuerySchema,
  orderQuerySchema,
  verifiedState,
  type ContactQuery,
  type OrderQuery,
} from '../../../shared/query.ts';
import { RESOURCES, type Resource } from '../../../shared/serviceRecords.ts';
import type { CredentialStore, Tokens } from '../credentials/store.ts';
import { exportColumns } from '../export/columns.ts';
import { logger, redact, registerSecret } from '../log.ts';
import { cacheDir, cacheFilePath, logsDir, resolveDataDir } from '../paths.ts';
import { ProfileStore } from '../profiles/store.ts';
import type { FaultOptions } from '../sampleApi/server.ts';
import { EXIT, exitCodeFor } from './exitCodes.ts';

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

interface GlobalOptions {
  dataDir?: string;
  profile?: string;
}

const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_LIMIT = 100;

// Heavy modules (SQLite, keytar, the sample API, worker threads) load only in the commands that use
// them, so `--help` and usage errors answer at once.
const lazy = {
  cache: () => import('../cache/db.ts'),
  queries: () => import('../cache/queries.ts'),
  views: () => import('../cache/views.ts'),
  credentials: () => import('../credentials/store.ts'),
  env: () => import('../credentials/env.ts'),
  exportRun: () => import('../export/run.ts'),
  remove: () => import('../profiles/remove.ts'),
  sampleApi: () => import('../sampleApi/server.ts'),
  sync: () => import('../sync/controller.ts'),
};

// ---------------------------------------------------------------------------------------------
// Argument parsers (commander calls these; InvalidArgumentError becomes a usage error, exit 2)
// ---------------------------------------------------------------------------------------------

function intArg(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max.toLocaleString('en-US')}.`);
    }
    return n;
  };
}

function rateArg(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('a rate is a number from 0 to 1 (0.1 = 10% of requests).');
  return n;
}

function collect<T>(parse: (value: string) => T): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => [...(previous ?? []), parse(value)];
}

const asText = (value: string): string => value;

/** A parser that accepts one of `allowed` (commander's `.choices` is not checked once an option has its own parser). */
function oneOf(name: string, allowed: readonly string[]): (value: string) => string {
  return (value: string) => {
    if (!allowed.includes(value)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(', ')}.`);
    return value;
  };
}

function sortArg(columns: readonly string[]): (value: string) => { column: string; direction: 'asc' | 'desc' } {
  return (value: string) => {
    const [column = '', direction = 'asc', ...rest] = value.split(':');
    if (!columns.includes(column) || !['asc', 'desc'].includes(direction) || rest.length > 0) {
      throw new InvalidArgumentError(`use COLUMN or COLUMN:desc with COLUMN one of ${columns.join(', ')}.`);
    }
    return { column, direction: direction as 'asc' | 'desc' };
  };
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

/** The data directory and profile store of this invocation; logs go to `<data dir>/logs/cli.log`. */
function context(cmd: Command, io: CliIo): { dataDir: string; profiles: ProfileStore; globals: GlobalOptions } {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  const dataDir = resolveDataDir({ override: globals.dataDir === undefined ? undefined : resolve(io.cwd, globals.dataDir), env: io.env });
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new CliError('VALIDATION', `The data folder ${dataDir} is a file, not a folder. Pass --data-dir (or LETTERDESK_DATA_DIR) a folder; it is created if missing.`, EXIT.USAGE);
  }
  logger.transports.file.resolvePathFn = () => `${logsDir(dataDir)}/cli.log`;
  const profiles = ProfileStore.open(dataDir);
  const problem = profiles.loadProblem();
  if (problem) writeLine(io.stderr, `warning: ${problem}`);
  return { dataDir, profiles, globals };
}

/** A profile by name (case-insensitive) or id. */
function findProfile(profiles: ProfileStore, nameOrId: string): Profile {
  const found = profiles.getByName(nameOrId) ?? profiles.get(nameOrId);
  if (!found) {
    const names = profiles.list().profiles.map((p) => p.name);
    throw new LetterdeskError('NOT_FOUND', `There is no profile "${nameOrId}". ${names.length ? `Profiles: ${names.join(', ')}.` : 'Add one with `letterdesk profile add NAME --base-url URL`.'}`);
  }
  return found;
}

/** The profile of this invocation: `--profile`, else the active one. */
function chosenProfile(profiles: ProfileStore, globals: GlobalOptions): Profile {
  if (globals.profile !== undefined) return findProfile(profiles, globals.profile);
  const active = profiles.active();
  if (!active) {
    throw new LetterdeskError('NO_PROFILE', profiles.list().profiles.length
      ? 'No profile is selected. Choose one with `letterdesk profile use NAME` or pass --profile NAME.'
      : 'There are no profiles yet. Add one with `letterdesk profile add NAME --base-url URL`.');
  }
  return active;
}

/**
 * Opens the profile's cache for reading `resource`; a resource never synced (no cache file, or no
 * sync of it has succeeded yet: a first sync that failed leaves the file without it) is a data
 * error (exit 6), not an empty list.
 */
async function openExistingCache(dataDir: string, profile: Profile, resource: Resource): Promise<Database.Database> {
  const file = cacheFilePath(dataDir, profile.id);
  const none = (why: string) => new CliError('NOT_FOUND', `Profile "${profile.name}" has no cached ${resource} yet${why}. Run \`letterdesk sync\` first.`, EXIT.DATA);
  if (!existsSync(file)) throw none('');
  const { openCache } = await lazy.cache();
  const { resourceStates } = await lazy.queries();
  const db = openCache(file, { skipCheck: true });
  const state = resourceStates(db)[resource];
  if (state.lastSyncedAt === null) {
    db.close();
    throw none(state.lastError ? ` (the last sync could not read them: ${state.lastError.message})` : '');
  }
  return db;
}

/** Runs `work` with an AbortSignal that Ctrl+C (SIGINT) or SIGTERM aborts. */
async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
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

/**
 * Tokens for a sync, in the documented order: sample tokens for a sample-data profile;
 * LETTERDESK_ACCESS_TOKEN / LETTERDESK_REFRESH_TOKEN; the keychain; a hidden prompt on a terminal.
 */
async function tokensFor(profile: Profile, io: CliIo, credentials: CredentialStore): Promise<{ tokens: Tokens; from: 'sample' | 'env' | 'keychain' | 'prompt' }> {
  if (profile.sampleData) {
    const { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } = await lazy.sampleApi();
    return { tokens: { accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }, from: 'sample' };
  }
  const fromEnv = (await lazy.env()).tokensFromEnv(io.env);
  if (fromEnv) return { tokens: fromEnv, from: 'env' };
  let keychainProblem: string | null = null;
  try {
    const stored = await credentials.get(profile.id);
    if (stored) return { tokens: stored, from: 'keychain' };
  } catch (error) {
    if (!isLetterdeskError(error) || error.code !== 'KEYCHAIN_UNAVAILABLE') throw error;
    keychainProblem = error.message;
  }
  if (io.interactive) {
    if (keychainProblem) writeLine(io.stderr, `note: ${keychainProblem}`);
    const accessToken = (await io.promptSecret(`Access token for "${profile.name}"`)).trim();
    registerSecret(accessToken);
    if (!accessToken) throw new LetterdeskError('AUTH_MISSING', 'No access token was entered; nothing was synced.');
    const refresh = (await io.promptSecret('Refresh token (Enter for none)')).trim();
    registerSecret(refresh);
    return { tokens: { accessToken, refreshToken: refresh === '' ? null : refresh }, from: 'prompt' };
  }
  throw new LetterdeskError(
    keychainProblem ? 'KEYCHAIN_UNAVAILABLE' : 'AUTH_MISSING',
    `No tokens for profile "${profile.name}". Set LETTERDESK_ACCESS_TOKEN (and LETTERDESK_REFRESH_TOKEN), save them in the app, or run on a terminal to be asked.${keychainProblem ? ` (${keychainProblem})` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Query and filter options shared by contacts / orders / export
// ---------------------------------------------------------------------------------------------

interface ContactFilterOptions {
  search?: string;
  label?: string[];
  state?: string[];
  verified?: ('yes' | 'no' | 'unknown')[];
  sort?: { column: string; direction: 'asc' | 'desc' };
}

interface OrderFilterOptions {
  search?: string;
  status?: number[];
  productType?: string[];
  sort?: { column: string; direction: 'asc' | 'desc' };
}

function addContactFilters(cmd: Command): Command {
  return cmd
    .option('--search <q>', 'free-text search (names, company, email, phone, address, labels; prefix match)')
    .option('--label <id>', 'only contacts with this label id or title (repeatable: any of them)', collect(asText))
    .option('--state <s>', 'only contacts in this state, full name (repeatable)', collect(asText))
    .addOption(
      new Option('--verified <v>', 'verified state: yes, no or unknown (repeatable)').argParser(
        collect((v: string) => {
          const parsed = verifiedState.safeParse(v);
          if (!parsed.success) throw new InvalidArgumentError('use yes, no or unknown.');
          return parsed.data;
        }),
      ),
    )
    .option('--sort <col[:desc]>', `sort column: ${CONTACT_SORT_COLUMNS.join(', ')}; add :desc to reverse`, sortArg(CONTACT_SORT_COLUMNS));
}

function addOrderFilters(cmd: Command): Command {
  return cmd
    .option('--search <q>', 'free-text search (order id, campaign, product, template, recipients)')
    .option('--status <n>', 'only orders with this status code (repeatable)', collect(intArg('--status', 0, 2 ** 31 - 1)))
    .option('--product-type <t>', 'only orders of this product type (repeatable)', collect(asText))
    .option('--sort <col[:desc]>', `sort column: ${ORDER_SORT_COLUMNS.join(', ')}; add :desc to reverse`, sortArg(ORDER_SORT_COLUMNS));
}

function contactQuery(o: ContactFilterOptions): ContactQuery {
  const parsed = contactQuerySchema.safeParse({
    ...(o.search !== undefined ? { search: o.search } : {}),
    ...(o.label ? { labels: o.label } : {}),
    ...(o.state ? { states: o.state } : {}),
    ...(o.verified ? { verified: o.verified } : {}),
    ...(o.sort ? { sort: o.sort } : {}),
  });
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `Invalid filter: ${parsed.error.issues[0]?.message ?? 'check the options'}.`);
  return parsed.data;
}

function orderQuery(o: OrderFilterOptions): OrderQuery {
  const parsed = orderQuerySchema.safeParse({
    ...(o.search !== undefined ? { search: o.search } : {}),
    ...(o.status ? { statuses: o.status } : {}),
    ...(o.productType ? { productTypes: o.productType } : {}),
    ...(o.sort ? { sort: o.sort } : {}),
  });
  if (!parsed.success) throw new LetterdeskError('VALIDATION', `Invalid filter: ${parsed.error.issues[0]?.message ?? 'check the options'}.`);
  return parsed.data;
}

/** The raw service records of a view, in view order (the cache keeps each record's JSON). */
async function viewRecords(db: Database.Database, kind: 'contacts' | 'orders', query: ContactQuery | OrderQuery, limit: number): Promise<IterableIterator<string>> {
  const { contactViewSql, orderViewSql } = await lazy.views();
  const view = kind === 'contacts' ? contactViewSql(query as ContactQuery) : orderViewSql(query as OrderQuery);
  const alias = kind === 'contacts' ? 'c' : 'o';
  const sql = `SELECT ${alias}.raw FROM ${view.from} WHERE ${view.where} ORDER BY ${view.orderBy} LIMIT :__limit`;
  return db.prepare(sql).pluck().iterate({ ...view.params, __limit: limit }) as IterableIterator<string>;
}

/** Prints rows as aligned columns (cells cut at 32 characters, line breaks shown as spaces). */
function printTable(out: NodeJS.WritableStream, header: string[], rows: string[][]): void {
  const clean = (s: string) => {
    const flat = s.replace(/[\r\n\t]+/g, ' ');
    return flat.length > 32 ? `${flat.slice(0, 31)}…` : flat;
  };
  const cells = [header, ...rows.map((r) => r.map(clean))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  for (const r of cells) writeLine(out, r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - [...c].length))).join('  ').trimEnd());
}

function printRecords(io: CliIo, kind: 'contacts' | 'orders', rawRows: IterableIterator<string>, json: boolean): void {
  if (json) {
    // The cached JSON of each record, exactly as the service sent it (§2.2 / §2.3 shapes), streamed
    // in chunks so a large --limit does not hold every record in memory.
    let chunk = '[';
    let first = true;
    for (const raw of rawRows) {
      chunk += `${first ? '\n' : ',\n'}${raw}`;
      first = false;
      if (chunk.length >= 1 << 20) {
        io.stdout.write(chunk);
        chunk = '';
      }
    }
    io.stdout.write(`${chunk}${first ? ']' : '\n]'}\n`);
    return;
  }
  const raws = [...rawRows];
  const records = raws.map((r) => JSON.parse(r) as Record<string, unknown>);
  const s = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  if (kind === 'contacts') {
    printTable(
      io.stdout,
      ['ID', 'NAME', 'COMPANY', 'EMAIL', 'CITY', 'STATE', 'LABELS'],
      records.map((c) => [s(c.id), s(c.fullName), s(c.companyName), s(c.email), s(c.city), s(c.state), Array.isArray(c.ContactLabels) ? c.ContactLabels.map((l: { title?: unknown }) => s(l.title)).join(', ') : '']),
    );
  } else {
    const sub = (v: unknown, key: string) => (v && typeof v === 'object' ? s((v as Record<string, unknown>)[key]) : '');
    printTable(
      io.stdout,
      ['ID', 'STATUS', 'CAMPAIGN', 'PRODUCT', 'TEMPLATE', 'RECIPIENTS', 'DELIVERED'],
      records.map((o) => {
        const contacts = Array.isArray(o.contacts) ? (o.contacts as { isDelivered?: unknown }[]) : [];
        return [s(o.id), s(o.status), sub(o.campaign, 'name'), sub(o.product, 'name'), sub(o.template, 'title'), String(contacts.length), String(contacts.filter((c) => c.isDelivered === true).length)];
      }),
    );
  }
  writeLine(io.stderr, `${fmt(records.length)} ${kind} shown.`);
}

// ---------------------------------------------------------------------------------------------
// Progress display
// ---------------------------------------------------------------------------------------------

/** Progress of a sync: a bar on a terminal, one plain line per step (phase) otherwise. */
function syncProgressView(io: CliIo): { update(p: SyncProgress): void; stop(): void } {
  const left = (p: SyncProgress) => (p.etaSeconds === null ? '' : `${p.etaSeconds} s left`);
  if (io.stderr.isTTY) {
    let bar: cliProgress.SingleBar | null = null;
    let resource: string | null = null;
    return {
      update(p) {
        if (p.resource !== resource) {
          bar?.stop();
          resource = p.resource;
          bar = new cliProgress.SingleBar(
            { stream: io.stderr as NodeJS.WritableStream as never, format: '{resource} {phase} [{bar}] {value}/{total} rows | {rate} rows/s | {left}', hideCursor: true, clearOnComplete: false },
            cliProgress.Presets.shades_classic,
          );
          bar.start(p.rowsTotal ?? 0, p.rowsDone, { resource: p.resource.padEnd(8), phase: p.phase.padEnd(10), rate: fmt(p.rowsPerSecond), left: left(p) });
        }
        if (p.rowsTotal !== null) bar?.setTotal(p.rowsTotal);
        bar?.update(p.rowsDone, { phase: p.phase.padEnd(10), rate: fmt(p.rowsPerSecond), left: left(p) });
      },
      stop() {
        bar?.stop();
      },
    };
  }
  let last = '';
  return {
    update(p) {
      const key = `${p.resource}:${p.phase}`;
      if (key === last) return;
      last = key;
      const rows = p.rowsTotal === null ? fmt(p.rowsDone) : `${fmt(p.rowsDone)}/${fmt(p.rowsTotal)}`;
      writeLine(io.stderr, `${p.resource}: ${p.phase} (${rows} rows)`);
    },
    stop() {},
  };
}

/** Progress of an export: a bar on a terminal, a line every 10% otherwise. */
function exportProgressView(io: CliIo, kind: string): { update(p: { rowsDone: number; rowsTotal: number }): void; stop(): void } {
  if (io.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream: io.stderr as NodeJS.WritableStream as never, format: `export ${kind} [{bar}] {value}/{total} rows | ETA {eta}s`, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        if (!started) {
          bar.start(p.rowsTotal, p.rowsDone);
          started = true;
        }
        bar.setTotal(p.rowsTotal);
        bar.update(p.rowsDone);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastTenth = -1;
  return {
    update(p) {
      const tenth = p.rowsTotal > 0 ? Math.floor((p.rowsDone / p.rowsTotal) * 10) : 10;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      writeLine(io.stderr, `export ${kind}: ${fmt(p.rowsDone)}/${fmt(p.rowsTotal)} rows`);
    },
    stop() {},
  };
}

// ---------------------------------------------------------------------------------------------
// The program
// ---------------------------------------------------------------------------------------------

const EXIT_HELP = `
Exit status: 0 success, 2 usage error, 3 auth error, 4 network/unreachable, 5 server error,
6 data error, 130 interrupted, 1 anything else (see docs/cli.md).
Tokens: LETTERDESK_ACCESS_TOKEN / LETTERDESK_REFRESH_TOKEN, else the keychain, else a hidden prompt.`;

/**
 * Builds the commander program. Every action throws a {@link LetterdeskError} on failure; {@link runCli}
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

  // --- profile -------------------------------------------------------------------------------
  const profile = program.command('profile').description('add, list, choose and remove profiles');

  profile
    .command('add <name>')
    .description('add a profile (the first one becomes the active profile); tokens are not taken here')
    .requiredOption('--base-url <url>', 'service base address, ending in /api/v1 (https; http only to this computer)')
    .addOption(new Option('--environment <env>', 'demo, production or custom').choices(ENVIRONMENTS).default('custom'))
    .option('--account-id <id>', 'meta.account_id scope for both endpoints')
    .option('--page-size <n>', 'rows per request, 1\u20131000', intArg('--page-size', 1, 1000), DEFAULT_PAGE_SIZE)
    .option('--json', 'print the stored profile as JSON')
    .action((name: string, opts: { baseUrl: string; environment: Environment; accountId?: string; pageSize: number; json?: boolean }, cmd: Command) => {
      const { profiles } = context(cmd, io);
      const saved = profiles.save({ name, environment: opts.environment, baseUrl: opts.baseUrl, accountId: opts.accountId ?? null, pageSize: opts.pageSize });
      if (opts.json) writeLine(io.stdout, JSON.stringify(saved, null, 2));
      else {
        const active = profiles.list().activeProfileId === saved.id;
        writeLine(io.stdout, `Added profile "${saved.name}" (id ${saved.id})${active ? ', now the active profile' : ''}.`);
      }
    });

  profile
    .command('list')
    .description('list profiles (* = active)')
    .option('--json', 'print { profiles, activeProfileId } as JSON')
    .action((opts: { json?: boolean }, cmd: Command) => {
      const { profiles } = context(cmd, io);
      const list = profiles.list();
      if (opts.json) {
        writeLine(io.stdout, JSON.stringify(list, null, 2));
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
    });

  profile
    .command('use <name>')
    .description('make a profile the active one')
    .action((name: string, _opts: unknown, cmd: Command) => {
      const { profiles } = context(cmd, io);
      const p = findProfile(profiles, name);
      profiles.use(p.id);
      writeLine(io.stdout, `Active profile: "${p.name}".`);
    });

  profile
    .command('remove <name>')
    .description('remove a profile and its stored tokens')
    .option('--purge-cache', 'also delete its cached data')
    .action(async (name: string, opts: { purgeCache?: boolean }, cmd: Command) => {
      const { profiles } = context(cmd, io);
      const p = findProfile(profiles, name);
      const { removeProfileAndCredentials } = await lazy.remove();
      const { CredentialStore } = await lazy.credentials();
      const removed = await removeProfileAndCredentials(profiles, new CredentialStore(), p.id, { purgeCache: opts.purgeCache === true });
      if (removed.credentialsProblem) writeLine(io.stderr, `warning: tokens in the keychain may remain: ${removed.credentialsProblem}`);
      writeLine(io.stdout, `Removed profile "${p.name}"${opts.purgeCache ? ' and its cached data' : ''}.`);
    });

  // --- sync ----------------------------------------------------------------------------------
  program
    .command('sync')
    .description('mirror contacts and/or orders of the profile into the local cache')
    .addArgument(program.createArgument('[what]', 'contacts, orders or all').choices(['contacts', 'orders', 'all']).default('all'))
    .action(async (what: 'contacts' | 'orders' | 'all', _opts: unknown, cmd: Command) => {
      const { dataDir, profiles, globals } = context(cmd, io);
      const p = chosenProfile(profiles, globals);
      const { CredentialStore } = await lazy.credentials();
      const credentials = new CredentialStore();
      const { tokens, from } = await tokensFor(p, io, credentials);
      mkdirSync(cacheDir(dataDir), { recursive: true });
      const cacheFile = cacheFilePath(dataDir, p.id);
      const { openCache } = await lazy.cache();
      const { startSync } = await lazy.sync();
      openCache(cacheFile).close(); // create / migrate before the sync process opens it
      const resources: Resource[] = what === 'all' ? [...RESOURCES] : [what];
      const view = syncProgressView(io);
      const started = performance.now();
      let runs: SyncRun[];
      try {
        runs = await withInterrupt((signal) =>
          startSync({ cacheFile, baseUrl: p.baseUrl, tokens, accountId: p.accountId, pageSize: p.pageSize, resources, profileId: p.id, signal, onProgress: (x) => view.update(x) }),
        );
      } finally {
        view.stop();
      }
      let failure: SyncRun | null = null;
      for (const run of runs) {
        const seconds = ((run.endedAt ? Date.parse(run.endedAt) : Date.now()) - Date.parse(run.startedAt)) / 1000;
        if (run.outcome === 'succeeded') {
          const invalid = run.invalidRecords ? ` (${fmt(run.invalidRecords)} kept with validation problems)` : '';
          writeLine(io.stdout, `${run.resource}: ${fmt(run.rows)} rows synced in ${seconds.toFixed(1)} s${invalid}.`);
        } else {
          failure ??= run;
          writeLine(io.stdout, `${run.resource}: ${run.outcome}${run.error ? ` \u2014 ${run.error.message}` : ''}`);
        }
      }
      logger.info(`cli sync ${p.id} ${what}: ${runs.map((r) => `${r.resource}=${r.outcome}`).join(' ')} in ${Math.round(performance.now() - started)} ms`);
      if (failure) {
        if (failure.error?.code === 'AUTH_REJECTED' && from === 'keychain') await credentials.markRejected(p.id, tokens.accessToken);
        const code = (failure.error?.code ?? (failure.outcome === 'cancelled' ? 'CANCELLED' : 'INTERNAL')) as ErrorCode;
        throw new LetterdeskError(code, failure.error?.message ?? `The ${failure.resource} sync was ${failure.outcome}.`);
      }
    });

  // --- status --------------------------------------------------------------------------------
  program
    .command('status')
    .description('rows and last sync of each resource of the profile')
    .option('--json', 'print { profile, resources: { contacts: { rows, lastSyncedAt, lastError }, orders: { \u2026 } } }')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { dataDir, profiles, globals } = context(cmd, io);
      const p = chosenProfile(profiles, globals);
      const file = cacheFilePath(dataDir, p.id);
      let resources: Record<Resource, ResourceState> = {
        contacts: { rows: 0, lastSyncedAt: null, lastError: null },
        orders: { rows: 0, lastSyncedAt: null, lastError: null },
      };
      if (existsSync(file)) {
        const { openCache } = await lazy.cache();
        const { resourceStates } = await lazy.queries();
        const db = openCache(file, { skipCheck: true });
        try {
          resources = resourceStates(db);
        } finally {
          db.close();
        }
      }
      if (opts.json) {
        writeLine(io.stdout, JSON.stringify({ profile: p, resources }, null, 2));
        return;
      }
      writeLine(io.stdout, `Profile "${p.name}" (${p.id}) \u2014 ${p.baseUrl}`);
      for (const r of RESOURCES) {
        const s = resources[r];
        const when = s.lastSyncedAt ? `last synced ${s.lastSyncedAt}` : 'never synced';
        writeLine(io.stdout, `  ${r.padEnd(8)} ${fmt(s.rows).padStart(10)} rows, ${when}${s.lastError ? `; last error: ${s.lastError.message}` : ''}`);
      }
    });

  // --- contacts / orders ---------------------------------------------------------------------
  addContactFilters(program.command('contacts').description('search and list cached contacts (newest first unless --sort)'))
    .option('--limit <n>', `at most this many rows (default ${DEFAULT_LIMIT})`, intArg('--limit', 1, 10_000_000), DEFAULT_LIMIT)
    .option('--json', 'print a JSON array of contacts in the service\u2019s record shape (\u00a72.2)')
    .action(async (opts: ContactFilterOptions & { limit: number; json?: boolean }, cmd: Command) => {
      const { dataDir, profiles, globals } = context(cmd, io);
      const p = chosenProfile(profiles, globals);
      const query = contactQuery(opts);
      const db = await openExistingCache(dataDir, p, 'contacts');
      try {
        printRecords(io, 'contacts', await viewRecords(db, 'contacts', query, opts.limit), opts.json === true);
      } finally {
        db.close();
      }
    });

  addOrderFilters(program.command('orders').description('search and list cached orders (newest first unless --sort)'))
    .option('--limit <n>', `at most this many rows (default ${DEFAULT_LIMIT})`, intArg('--limit', 1, 10_000_000), DEFAULT_LIMIT)
    .option('--json', 'print a JSON array of orders in the service\u2019s record shape (\u00a72.3)')
    .action(async (opts: OrderFilterOptions & { limit: number; json?: boolean }, cmd: Command) => {
      const { dataDir, profiles, globals } = context(cmd, io);
      const p = chosenProfile(profiles, globals);
      const query = orderQuery(opts);
      const db = await openExistingCache(dataDir, p, 'orders');
      try {
        printRecords(io, 'orders', await viewRecords(db, 'orders', query, opts.limit), opts.json === true);
      } finally {
        db.close();
      }
    });

  // --- export --------------------------------------------------------------------------------
  const exportCmd = program
    .command('export')
    .description('write a CSV file of contacts, orders or order recipients (the rows the same filters select)')
    .addArgument(program.createArgument('<kind>', 'contacts, orders or recipients').choices(EXPORT_KINDS))
    .requiredOption('--out <file>', 'the CSV file to write (replaced atomically if it exists)')
    .option('--columns <keys>', 'comma-separated column keys, in the order wanted (default: all)')
    .option('--bom', 'start the file with a UTF-8 byte-order mark (Excel on Windows needs it to read UTF-8)')
    .addOption(new Option('--delimiter <d>', 'field delimiter').choices(['comma', 'semicolon', 'tab']).default('comma'))
    .option(
      '--no-neutralize',
      'keep cells that start with = + - @ TAB CR NUL as they are. By default they get a leading \' so a spreadsheet shows them as text instead of running them as formulas (CSV injection); turn it off only when a program, not a person, reads the file',
    )
    .option('--json', 'print { path, rows } as JSON when done');
  addContactFilters(exportCmd);
  exportCmd
    .option('--status <n>', 'orders/recipients: only orders with this status code (repeatable)', collect(intArg('--status', 0, 2 ** 31 - 1)))
    .option('--product-type <t>', 'orders/recipients: only orders of this product type (repeatable)', collect(asText))
    .addHelpText(
      'after',
      `\nFilters: contacts take --search --label --state --verified --sort (${CONTACT_SORT_COLUMNS.join(', ')});\norders and recipients take --search --status --product-type --sort (${ORDER_SORT_COLUMNS.join(', ')}).\n\nColumns (--columns):\n${EXPORT_KINDS.map((k) => `  ${k}: ${exportColumns(k).map((c) => c.key).join(', ')}`).join('\n')}`,
    );
  // The contact --sort parser only knows contact columns; accept both and check per kind below.
  exportCmd.options.find((o) => o.long === '--sort')?.argParser(sortArg([...new Set<string>([...CONTACT_SORT_COLUMNS, ...ORDER_SORT_COLUMNS])]));
  exportCmd.action(
    async (
      kind: ExportKind,
      opts: ContactFilterOptions & OrderFilterOptions & { out: string; columns?: string; bom?: boolean; delimiter: CsvOptions['delimiter']; neutralize: boolean; json?: boolean },
      cmd: Command,
    ) => {
      const { dataDir, profiles, globals } = context(cmd, io);
      const p = chosenProfile(profiles, globals);
      const options: CsvOptions = { delimiter: opts.delimiter, bom: opts.bom === true, neutralizeFormulas: opts.neutralize };
      const columns = opts.columns === undefined ? null : opts.columns.split(',').map((c) => c.trim()).filter((c) => c !== '');
      let request: ExportRequest;
      if (kind === 'contacts') {
        if (opts.status || opts.productType) throw new LetterdeskError('VALIDATION', '--status and --product-type filter orders; contacts take --search, --label, --state, --verified.');
        request = { kind, query: contactQuery(opts), columns, options };
      } else {
        if (opts.label || opts.state || opts.verified) throw new LetterdeskError('VALIDATION', `--label, --state and --verified filter contacts; ${kind} take --search, --status, --product-type.`);
        request = { kind, query: orderQuery(opts), columns, options };
      }
      const target = resolve(io.cwd, opts.out);
      const db = await openExistingCache(dataDir, p, kind === 'contacts' ? 'contacts' : 'orders');
      const { runExport } = await lazy.exportRun();
      const view = exportProgressView(io, kind);
      try {
        const { rows } = await withInterrupt((signal) => runExport(db, request, target, { signal, onProgress: (x) => view.update(x) }));
        view.stop();
        if (opts.json) writeLine(io.stdout, JSON.stringify({ path: target, rows }));
        else writeLine(io.stdout, `Exported ${fmt(rows)} ${kind === 'recipients' ? 'recipient rows' : kind} to ${target}`);
      } finally {
        view.stop();
        db.close();
      }
    },
  );

  // --- sample-api ----------------------------------------------------------------------------
  program
    .command('sample-api')
    .description('run the loopback sample API (deterministic generated data) until interrupted; prints its base URL first')
    .option('--host <host>', 'loopback address: 127.0.0.1, ::1 or localhost', '127.0.0.1')
    .option('--port <n>', 'TCP port (0 = any free port)', intArg('--port', 0, 65535), 0)
    .option('--contacts <n>', 'number of contacts', intArg('--contacts', 0, 10_000_000), 1000)
    .option('--orders <n>', 'number of orders', intArg('--orders', 0, 10_000_000), 300)
    .option('--token <t>', 'bearer token to accept (default: the published sample token)')
    .option('--refresh-token <t>', 'refreshtoken header to accept on /contacts (default: the sample refresh token)')
    .option('--max-page-size <n>', 'largest page the server returns', intArg('--max-page-size', 1, 100_000), 1000)
    .option('--seed <n>', 'dataset seed (equal seeds, equal data)', intArg('--seed', 0, 2 ** 31 - 1), 1)
    .option('--latency-ms <n>', 'fault: delay before every answer', intArg('--latency-ms', 0, 600_000))
    .option('--server-error-rate <r>', 'fault: share of requests answered 500/502/503', rateArg)
    .option('--rate-limit-rate <r>', 'fault: share of requests answered 429', rateArg)
    .option('--retry-after <s>', 'fault: Retry-After seconds of a 429', intArg('--retry-after', 0, 3600))
    .option('--drop-rate <r>', 'fault: share of connections dropped without an answer', rateArg)
    .option('--truncate-rate <r>', 'fault: share of answers cut off halfway', rateArg)
    .option('--html-error-rate <r>', 'fault: share of requests answered 502 with an HTML page', rateArg)
    .option('--invalid-record-rate <r>', 'fault: share of rows replaced by schema-violating records', rateArg)
    .option('--drift-inserts <n>', 'fault: records inserted after each page read', intArg('--drift-inserts', 0, 1_000_000))
    .option('--drift-deletes <n>', 'fault: records deleted after each page read', intArg('--drift-deletes', 0, 1_000_000))
    .option('--max-faults <n>', 'fault: stop injecting errors after this many', intArg('--max-faults', 0, 1_000_000_000))
    .option('--fault-seed <n>', 'fault: seed of the fault generator', intArg('--fault-seed', 0, 2 ** 31 - 1))
    .addOption(new Option('--fault-endpoint <e>', 'fault: only this endpoint gets faults (repeatable)').choices(['contacts', 'orders']).argParser(collect(oneOf('--fault-endpoint', ['contacts', 'orders']))))
    .action(async (opts: Record<string, unknown>) => {
      const faults: FaultOptions = {};
      const copy = (from: string, to: keyof FaultOptions) => {
        if (opts[from] !== undefined) (faults as Record<string, unknown>)[to] = opts[from];
      };
      copy('latencyMs', 'latencyMs');
      copy('serverErrorRate', 'serverErrorRate');
      copy('rateLimitRate', 'rateLimitRate');
      copy('retryAfter', 'retryAfterSeconds');
      copy('dropRate', 'dropRate');
      copy('truncateRate', 'truncateRate');
      copy('htmlErrorRate', 'htmlErrorRate');
      copy('invalidRecordRate', 'invalidRecordRate');
      copy('maxFaults', 'maxFaults');
      copy('faultSeed', 'seed');
      copy('faultEndpoint', 'endpoints');
      if (opts.driftInserts !== undefined || opts.driftDeletes !== undefined) faults.drift = { inserts: (opts.driftInserts as number) ?? 0, deletes: (opts.driftDeletes as number) ?? 0 };
      const { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } = await lazy.sampleApi();
      const api = await startSampleApi({
        host: opts.host as string,
        port: opts.port as number,
        contacts: opts.contacts as number,
        orders: opts.orders as number,
        seed: opts.seed as number,
        maxPageSize: opts.maxPageSize as number,
        ...(opts.token !== undefined ? { accessToken: opts.token as string } : {}),
        ...(opts.refreshToken !== undefined ? { refreshToken: opts.refreshToken as string } : {}),
        ...(Object.keys(faults).length ? { faults } : {}),
      });
      writeLine(io.stdout, api.baseUrl);
      writeLine(io.stdout, `Sample API: ${fmt(api.dataset.contactCount)} contacts, ${fmt(api.dataset.orderCount)} orders. Press Ctrl+C to stop.`);
      if (opts.token === undefined) writeLine(io.stdout, `Access token:  ${SAMPLE_ACCESS_TOKEN}`);
      if (opts.refreshToken === undefined) writeLine(io.stdout, `Refresh token: ${SAMPLE_REFRESH_TOKEN}`);
      await new Promise<void>((resolveStop) => {
        const stop = () => resolveStop();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await api.close();
    });

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
