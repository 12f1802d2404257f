/**
 * `letterdesk export contacts|orders|recipients|templates|campaigns|duplicates --out FILE [--format csv|xlsx]`:
 * a CSV file or an Excel workbook of the rows the filters select (templates and campaigns: the
 * lists over the cached orders, by --search; duplicates: one row per member of each group at --level).
 */
import { withLearnedNames } from '../../../../shared/statusCodes.ts';
import { extname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import {
  ALL_EXPORT_KINDS, EXPORT_FORMATS, type AnyExportKind, type CsvOptions, type ExportFormat, type ExportKind, type ExportRequest, type RecordExportRequest, type SummaryExportKind,
} from '../../../../shared/contract.ts';
import { DEFAULT_DUPLICATE_LEVEL, DUPLICATE_LEVELS, type DuplicateLevel } from '../../../../shared/duplicates.ts';
import { LetterdeskError } from '../../../../shared/errors.ts';
import { CONTACT_SORT_COLUMNS, ORDER_SORT_COLUMNS } from '../../../../shared/query.ts';
import { exportColumns } from '../../export/columns.ts';
import { addBothFilters, localQueryFor, type ContactFilterOptions, type OrderFilterOptions } from '../args.ts';
import { chosenProfile, withContext, withInterrupt, type CliIo } from '../context.ts';
import { fmt, writeJson, writeLine } from '../output.ts';
import { exportProgressView } from '../progress.ts';
import { queryInView } from '../viewOptions.ts';

type ExportOptions = ContactFilterOptions &
  OrderFilterOptions & { out: string; format?: ExportFormat; columns?: string; bom?: boolean; delimiter: CsvOptions['delimiter']; neutralize: boolean; json?: boolean; view?: string; level?: DuplicateLevel };

/** The format asked for, else the one `--out`'s extension names (`.xlsx`), else CSV. */
function formatOf(opts: ExportOptions): ExportFormat {
  return opts.format ?? (extname(opts.out).toLowerCase() === '.xlsx' ? 'xlsx' : 'csv');
}

/** The sheet of an xlsx export: the saved view's name, else what the rows are. */
function sheetNameOf(kind: AnyExportKind, opts: ExportOptions): string {
  return opts.view ?? kind.charAt(0).toUpperCase() + kind.slice(1);
}

/**
 * The export request of the options: contact filters for contacts, order filters for orders and
 * recipients.
 * @throws LetterdeskError VALIDATION when a filter of the other kind is given
 */
function exportRequest(kind: ExportKind, opts: ExportOptions): RecordExportRequest {
  const options: CsvOptions = { delimiter: opts.delimiter, bom: opts.bom === true, neutralizeFormulas: opts.neutralize };
  const columns = opts.columns === undefined ? null : opts.columns.split(',').map((c) => c.trim()).filter((c) => c !== '');
  return { kind, query: localQueryFor(kind === 'contacts' ? 'contacts' : 'orders', kind, opts), columns, options } as RecordExportRequest;
}

/**
 * The export request of a templates or campaigns list: only --search applies.
 * @throws LetterdeskError VALIDATION when a record filter, a sort or --view is given
 */
function summaryRequest(kind: SummaryExportKind, opts: ExportOptions): ExportRequest {
  if (opts.label || opts.state || opts.verified || opts.status || opts.productType || opts.invalidOnly || opts.changed || opts.sort || opts.view !== undefined) {
    throw new LetterdeskError('VALIDATION', `The ${kind} export takes --search only (with --columns and the CSV options); record filters, --sort and --view apply to contacts, orders and recipients.`);
  }
  const options: CsvOptions = { delimiter: opts.delimiter, bom: opts.bom === true, neutralizeFormulas: opts.neutralize };
  const columns = opts.columns === undefined ? null : opts.columns.split(',').map((c) => c.trim()).filter((c) => c !== '');
  return { kind, query: opts.search === undefined ? null : { search: opts.search }, columns, options };
}

/**
 * The export request of the duplicate groups: only --level applies.
 * @throws LetterdeskError VALIDATION when a filter, a sort or --view is given
 */
function duplicatesRequest(opts: ExportOptions): ExportRequest {
  if (opts.search !== undefined || opts.label || opts.state || opts.verified || opts.status || opts.productType || opts.invalidOnly || opts.changed || opts.sort || opts.view !== undefined) {
    throw new LetterdeskError('VALIDATION', 'The duplicates export takes --level only (with --columns and the CSV options); filters, --sort and --view apply to contacts, orders and recipients.');
  }
  const options: CsvOptions = { delimiter: opts.delimiter, bom: opts.bom === true, neutralizeFormulas: opts.neutralize };
  const columns = opts.columns === undefined ? null : opts.columns.split(',').map((c) => c.trim()).filter((c) => c !== '');
  return { kind: 'duplicates', query: { level: opts.level ?? DEFAULT_DUPLICATE_LEVEL }, columns, options };
}

/** Registers the `export` command on `program`. */
export function registerExportCommand(program: Command, io: CliIo): void {
  const exportCmd = program
    .command('export')
    .description('write a CSV file or an Excel workbook of contacts, orders or order recipients (the rows the same filters select), of the templates or campaigns of the cached orders, or of the members of the duplicate groups')
    .addArgument(program.createArgument('<kind>', 'contacts, orders, recipients, templates, campaigns or duplicates').choices(ALL_EXPORT_KINDS))
    .requiredOption('--out <file>', 'the file to write (replaced atomically if it exists)')
    .addOption(new Option('--format <format>', 'csv, or xlsx for an Excel workbook (codes and ZIPs as text, dates as dates, a frozen header with filters); default: xlsx when --out ends in .xlsx, else csv').choices(EXPORT_FORMATS))
    .option('--columns <keys>', 'comma-separated column keys, in the order wanted (default: every column but raw)')
    .option('--bom', 'start a CSV file with a UTF-8 byte-order mark (Excel on Windows needs it to read UTF-8)')
    .addOption(new Option('--delimiter <d>', 'field delimiter of a CSV file').choices(['comma', 'semicolon', 'tab']).default('comma'))
    .option(
      '--no-neutralize',
      'keep cells that start with = + - @ TAB CR NUL as they are. By default they get a leading \' so a spreadsheet shows them as text instead of running them as formulas (CSV injection); turn it off only when a program, not a person, reads the file',
    )
    .option('--json', 'print { path, rows } as JSON when done')
    .addOption(new Option('--level <level>', 'duplicates: how alike the members are (address, household, individual; default household)').choices(DUPLICATE_LEVELS))
    .option('--view <name>', 'only the members of this saved view (a contacts view for contacts, an orders view for orders and recipients), with its filters');
  addBothFilters(exportCmd);
  exportCmd
    .addHelpText(
      'after',
      `\nFilters: contacts, orders and recipients take --invalid-only and --changed added,changed,removed;\ncontacts take --search --label --state --verified --sort (${CONTACT_SORT_COLUMNS.join(', ')});\norders and recipients take --search --status --product-type --sort (${ORDER_SORT_COLUMNS.join(', ')});\ntemplates and campaigns take --search; duplicates take --level.\n\nColumns (--columns; raw, the record as cached, only when named):\n${ALL_EXPORT_KINDS.map((k) => `  ${k}: ${exportColumns(k).map((c) => c.key).join(', ')}`).join('\n')}`,
    );
  exportCmd.action((kind: AnyExportKind, opts: ExportOptions, cmd: Command) =>
    withContext(cmd, io, async (ctx) => {
      const p = chosenProfile(ctx);
      const table = kind === 'contacts' || kind === 'duplicates' ? 'contacts' : 'orders';
      let request: ExportRequest = kind === 'templates' || kind === 'campaigns' ? summaryRequest(kind, opts) : kind === 'duplicates' ? duplicatesRequest(opts) : exportRequest(kind, opts);
      const format = formatOf(opts);
      if (format === 'xlsx') request = { ...request, format, sheetName: sheetNameOf(kind, opts) };
      const target = resolve(io.cwd, opts.out);
      const cache = await ctx.core.caches.openSynced(p, table);
      // The "Status name" columns name the codes as the profile does, then as the service's kept statuses do.
      if (request.kind === 'orders' || request.kind === 'recipients') request = { ...request, statusNames: withLearnedNames(p.statusNames, (await cache.learnedStatusNames()).names) };
      if (opts.view !== undefined && (request.kind === 'contacts' || request.kind === 'orders' || request.kind === 'recipients')) {
        request = { ...request, query: await queryInView(ctx.core, p, table, opts.view, request.query ?? {}) } as RecordExportRequest;
      }
      const view = exportProgressView(io.stderr, kind);
      try {
        const { rows, sheets } = await withInterrupt((signal) => ctx.core.exports.run(cache, request, target, { signal, onProgress: (x) => view.update(x) }));
        view.stop();
        if (sheets && sheets.length > 1) {
          writeLine(io.stderr, `More rows than an Excel sheet holds: the workbook continues on ${sheets.length - 1 === 1 ? 'a second sheet' : `${sheets.length - 1} more sheets`} (${sheets.slice(1).map((n) => `"${n}"`).join(', ')}), each with the header row.`);
        }
        if (opts.json) writeJson(io.stdout, { path: target, rows, ...(sheets ? { sheets } : {}) });
        else writeLine(io.stdout, `Exported ${fmt(rows)} ${kind === 'recipients' ? 'recipient rows' : kind} to ${target}`);
      } finally {
        view.stop();
      }
    }),
  );
}
