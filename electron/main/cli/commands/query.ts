/**
 * `letterdesk query contacts|orders [--param NAME=VALUE]…`: a service query read live, with no
 * cache involved: every page (the sync's own paging), or one page with `--page`; printed as the
 * service sent the records (`--json`), as a table, or written as CSV (`--out`).
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { EXPORT_KINDS, type CsvOptions, type ExportRequest } from '../../../../shared/contract.ts';
import { LetterdeskError } from '../../../../shared/errors.ts';
import { intArg } from '../args.ts';
import { chosenProfile, withContext, withInterrupt, type CliIo } from '../context.ts';
import { fmt, JsonArrayWriter, printRecordTable, writeLine } from '../output.ts';
import { exportProgressView, syncProgressView } from '../progress.ts';
import { addParamOption, serviceQueryOf } from '../viewOptions.ts';

interface QueryOptions {
  param?: string[];
  page?: number;
  pageSize?: number;
  json?: boolean;
  out?: string;
  bom?: boolean;
  delimiter: CsvOptions['delimiter'];
}

/** Registers the `query` command on `program`. */
export function registerQueryCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('query')
    .description('ask the service live (no cache): every page of a query, or one with --page')
    .addArgument(program.createArgument('<resource>', 'contacts or orders').choices(['contacts', 'orders']));
  addParamOption(cmd);
  cmd
    .option('--page <n>', 'read this page only (zero-based), as the service answers it', intArg('--page', 0, 10_000_000))
    .option('--page-size <n>', 'rows a request (default: the profile\u2019s page size)', intArg('--page-size', 1, 1000))
    .option('--json', 'print a JSON array of the records as the service sent them')
    .option('--out <file>', 'write the records as a CSV file (every page; the columns of `export`)')
    .option('--bom', 'with --out: start the file with a UTF-8 byte-order mark')
    .addOption(new Option('--delimiter <d>', 'with --out: field delimiter').choices(['comma', 'semicolon', 'tab']).default('comma'))
    .action((resource: 'contacts' | 'orders', opts: QueryOptions, cmd: Command) =>
      withContext(cmd, io, async (ctx) => {
        const profile = chosenProfile(ctx);
        const params = serviceQueryOf(resource, opts.param);
        if (opts.json && opts.out) throw new LetterdeskError('VALIDATION', 'Choose one output: --json prints the records, --out writes them as CSV.');
        const pageSize = opts.pageSize ?? profile.pageSize;
        if (opts.page !== undefined) {
          if (opts.out) throw new LetterdeskError('VALIDATION', '--out writes every page of the query; leave out --page, or print the page with --json.');
          const { count, records } = await withInterrupt((signal) => ctx.core.views.readPage(profile, resource, params, opts.page ?? 0, pageSize, signal));
          if (opts.json) {
            const writer = new JsonArrayWriter(io.stdout);
            writer.add(records.map((r) => JSON.stringify(r)));
            writer.end();
          } else printRecordTable(io.stdout, io.stderr, resource, records.map((r) => JSON.stringify(r)));
          writeLine(io.stderr, `page ${opts.page} of ${fmt(count)} ${resource} (${fmt(pageSize)} a page).`);
          return;
        }
        const progress = syncProgressView(io.stderr);
        let live;
        try {
          live = await withInterrupt((signal) => ctx.core.views.readLive({ ...profile, pageSize }, resource, params, { signal, onProgress: (p) => progress.update(p) }));
        } finally {
          progress.stop();
        }
        try {
          const query = { view: live.viewId };
          if (opts.out) {
            const kind = EXPORT_KINDS.find((k) => k === resource) ?? resource;
            const request = { kind, query, columns: null, options: { delimiter: opts.delimiter, bom: opts.bom === true, neutralizeFormulas: true } } as ExportRequest;
            const target = resolve(io.cwd, opts.out);
            const view = exportProgressView(io.stderr, resource);
            try {
              const { rows } = await withInterrupt((signal) => ctx.core.exports.run(live.cache, request, target, { signal, onProgress: (x) => view.update(x) }));
              view.stop();
              writeLine(io.stdout, `Wrote ${fmt(rows)} ${resource} to ${target}`);
            } finally {
              view.stop();
            }
            return;
          }
          const raws: string[] = [];
          const writer = opts.json ? new JsonArrayWriter(io.stdout) : null;
          await live.cache.records(resource, query, 10_000_000, (chunk) => (writer ? writer.add(chunk) : raws.push(...chunk)));
          if (writer) writer.end();
          else printRecordTable(io.stdout, io.stderr, resource, raws);
          if (!opts.json) writeLine(io.stderr, `${fmt(live.count)} ${resource} match the query.`);
        } finally {
          await live.close();
        }
      }),
    );
}
