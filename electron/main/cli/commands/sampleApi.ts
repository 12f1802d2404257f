/** `letterdesk sample-api`: the loopback sample API, run until interrupted. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type FaultOptions, type SampleApiOptions } from '../../sampleApi/server.ts';
import { collect, intArg, oneOf, rateArg } from '../args.ts';
import { withContext, type CliIo } from '../context.ts';
import { fmt, writeLine } from '../output.ts';

interface SampleApiCommandOptions {
  host: string;
  port: number;
  contacts: number;
  orders: number;
  seed: number;
  maxPageSize: number;
  token?: string;
  refreshToken?: string;
  latencyMs?: number;
  serverErrorRate?: number;
  rateLimitRate?: number;
  retryAfter?: number;
  dropRate?: number;
  truncateRate?: number;
  htmlErrorRate?: number;
  invalidRecordRate?: number;
  driftInserts?: number;
  driftDeletes?: number;
  maxFaults?: number;
  faultSeed?: number;
  faultEndpoint?: ('contacts' | 'orders')[];
  clock?: Date;
}

/** A parser of the dataset's clock: a day (YYYY-MM-DD) or an ISO 8601 time, read in UTC. */
function clockArg(value: string): Date {
  const text = value.trim();
  const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at.getTime())) throw new InvalidArgumentError('give a day as YYYY-MM-DD (or an ISO 8601 time), e.g. 2026-03-15.');
  return at;
}

/** The fault options the command's flags ask for (none when no fault flag is given). */
function faultsOf(opts: SampleApiCommandOptions): FaultOptions {
  const faults: FaultOptions = {
    ...(opts.latencyMs !== undefined ? { latencyMs: opts.latencyMs } : {}),
    ...(opts.serverErrorRate !== undefined ? { serverErrorRate: opts.serverErrorRate } : {}),
    ...(opts.rateLimitRate !== undefined ? { rateLimitRate: opts.rateLimitRate } : {}),
    ...(opts.retryAfter !== undefined ? { retryAfterSeconds: opts.retryAfter } : {}),
    ...(opts.dropRate !== undefined ? { dropRate: opts.dropRate } : {}),
    ...(opts.truncateRate !== undefined ? { truncateRate: opts.truncateRate } : {}),
    ...(opts.htmlErrorRate !== undefined ? { htmlErrorRate: opts.htmlErrorRate } : {}),
    ...(opts.invalidRecordRate !== undefined ? { invalidRecordRate: opts.invalidRecordRate } : {}),
    ...(opts.maxFaults !== undefined ? { maxFaults: opts.maxFaults } : {}),
    ...(opts.faultSeed !== undefined ? { seed: opts.faultSeed } : {}),
    ...(opts.faultEndpoint !== undefined ? { endpoints: opts.faultEndpoint } : {}),
  };
  if (opts.driftInserts !== undefined || opts.driftDeletes !== undefined) faults.drift = { inserts: opts.driftInserts ?? 0, deletes: opts.driftDeletes ?? 0 };
  return faults;
}

/** Registers the `sample-api` command on `program`. */
export function registerSampleApiCommand(program: Command, io: CliIo): void {
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
    .option('--clock <day>', "the data's clock: its dates end at the start of this UTC day (YYYY-MM-DD; default today)", clockArg)
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
    .action((opts: SampleApiCommandOptions, cmd: Command) => {
      const faults = faultsOf(opts);
      const sample: SampleApiOptions = {
        host: opts.host,
        port: opts.port,
        contacts: opts.contacts,
        orders: opts.orders,
        seed: opts.seed,
        maxPageSize: opts.maxPageSize,
        ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
        ...(opts.token !== undefined ? { accessToken: opts.token } : {}),
        ...(opts.refreshToken !== undefined ? { refreshToken: opts.refreshToken } : {}),
        ...(Object.keys(faults).length ? { faults } : {}),
      };
      return withContext(
        cmd,
        io,
        async ({ core }) => {
          const baseUrl = await core.sampleApi.ensure();
          const dataset = core.sampleApi.server?.dataset;
          writeLine(io.stdout, baseUrl);
          writeLine(io.stdout, `Sample API: ${fmt(dataset?.contactCount ?? opts.contacts)} contacts, ${fmt(dataset?.orderCount ?? opts.orders)} orders. Press Ctrl+C to stop.`);
          if (opts.token === undefined) writeLine(io.stdout, `Access token:  ${SAMPLE_ACCESS_TOKEN}`);
          if (opts.refreshToken === undefined) writeLine(io.stdout, `Refresh token: ${SAMPLE_REFRESH_TOKEN}`);
          await new Promise<void>((resolveStop) => {
            const stop = () => resolveStop();
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
          });
        },
        { sample },
      );
    });
}
