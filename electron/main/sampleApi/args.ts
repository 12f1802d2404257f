/**
 * The flags of the sample API's direct run (`node electron/main/sampleApi/server.ts …`).
 */
import { LetterdeskError } from '../../../shared/errors.ts';
import type { SampleApiOptions } from './server.ts';

/**
 * Parses the direct-run flags (`--contacts`, `--orders`, `--seed`, `--port`, `--host`,
 * `--max-page-size`, `--latency-ms`, `--prerender-page-size`, `--prerender-orders-page-size`).
 * @throws LetterdeskError VALIDATION on an unknown flag or a non-numeric value
 */
export function parseSampleApiArgs(argv: readonly string[]): SampleApiOptions {
  const numbers: Record<string, number> = {};
  let host: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = inline ?? argv[++i];
    if (flag === '--host') {
      host = value;
      continue;
    }
    if (!['--contacts', '--orders', '--seed', '--port', '--max-page-size', '--latency-ms', '--prerender-page-size', '--prerender-orders-page-size'].includes(flag)) {
      throw new LetterdeskError('VALIDATION', `Unknown option ${flag}. Use --contacts, --orders, --seed, --port, --host, --max-page-size, --latency-ms, --prerender-page-size, --prerender-orders-page-size.`);
    }
    const n = Number(value);
    if (value === undefined || !Number.isFinite(n)) throw new LetterdeskError('VALIDATION', `${flag} needs a number.`);
    numbers[flag] = n;
  }
  return {
    host,
    port: numbers['--port'] ?? 0,
    contacts: numbers['--contacts'] ?? 1000,
    orders: numbers['--orders'] ?? 300,
    seed: numbers['--seed'] ?? 1,
    maxPageSize: numbers['--max-page-size'] ?? 1000,
    faults: numbers['--latency-ms'] ? { latencyMs: numbers['--latency-ms'] } : undefined,
    ...(numbers['--prerender-page-size'] === undefined ? {} : { prerenderPageSize: numbers['--prerender-page-size'] }),
    ...(numbers['--prerender-orders-page-size'] === undefined ? {} : { prerenderOrdersPageSize: numbers['--prerender-orders-page-size'] }),
  };
}
