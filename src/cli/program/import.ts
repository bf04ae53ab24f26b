import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { action, type JsonFailure } from '../command.ts';
import type { ImportFlags, ImportJson } from '../import-command.ts';
// The encodings' module itself, not tables/index.ts, which would load the readers (csv-parse, exceljs).
import { isEncodingOption, unknownEncodingText } from '../../tables/encodings.ts';
import { examples } from './examples.ts';

/** `buildsync import estimates|bills`; the work is in ../import-command.ts, loaded when it runs. */
export function registerImport(program: Command): void {
  const imp = program
    .command('import')
    .description('create records in the service from a file')
    .addHelpText('after', examples(['buildsync import estimates estimates.csv', 'buildsync import bills bills.csv --vendors vendors.csv']));
  const common = (c: Command) =>
    c
      .option('--dry-run', 'read, validate and map FILE; write the report; send nothing (needs neither Redis nor the service)')
      .option('--print-payloads', 'with --dry-run: print each payload that would be sent, one JSON per line, on stdout')
      .option('--report <path>', 'where the per-row report goes (default FILE.report.csv)')
      .option('--out <path>', 'the same as --report')
      .option('--detach', 'submit the import, print its id and return')
      .option('--json', 'print the summary as one JSON object on standard output (progress stays on standard error)')
      .option('--resend-unknown', 'send again records whose earlier request may have reached the service (bills: may create a duplicate)')
      .addOption(new Option('--ledger-lost <how>', "accept: records the earlier report (FILE.report.csv or --report) lists as created and the ledger lost (Redis restarted empty) are written into the ledger as created with the report's IDs and never sent again; without it the import stops at them").choices(['accept']))
      .option('--header-row <n>', 'the line (.xlsx: the row) of the header row; default the first of the first 30 rows that has every required column, the rows above it being a title block')
      .option('--fill-down <cols>', 'columns (as the tool names them, comma-separated) whose empty cells take the value of the row above, e.g. bill_ref,vendor for split lines')
      .addOption(new Option('--hidden <mode>', '.xlsx: how hidden rows (by hand or by a filter) and hidden columns the mapping reads are read; without it they stop the import, naming them').choices(['include', 'skip']))
      .addOption(new Option('--encoding <label>', 'CSV: how FILE is encoded: auto (UTF-8, UTF-16, or Windows-1252, Windows-1250 or Mac Roman by the evidence of the text; stops when that does not settle it), utf8, utf16le, utf16be, cp1252, or any WHATWG encoding label (windows-1250, macintosh, shift_jis, …)').argParser(encodingArgument))
      .addOption(new Option('--delimiter <delimiter>', 'CSV: what separates the cells; auto finds it among , ; tab and | (the one under which the header row comes first)').choices(['auto', ',', ';', 'tab', 'pipe']))
      .addOption(new Option('--date-format <order>', 'how 03/02/2026 is read; auto decides from the file and stops when it cannot').choices(['auto', 'YMD', 'MDY', 'DMY']))
      .addOption(new Option('--decimal-separator <sep>', 'how numbers are written; auto: "," in a ;-separated file, else "."').choices(['auto', '.', ',']));
  common(
    imp
      .command('estimates <file>')
      .description('create one estimate per (project, estimate name) group in FILE (.csv or .xlsx)')
      .option('--mapping <map.json>', 'mapping file: rename, ignore or set columns')
      .addOption(new Option('--layout <layout>', 'sections: heading rows (02 - Demolition) give the category of the rows under them').choices(['sections']))
      .option('--ignore-tax', 'leave out tax lines (an item or subcategory named Tax, Sales Tax, VAT, GST, HST or PST, with or without a rate); without it such a line stops the import')
      .option('--sheet <name|all>', '.xlsx: the sheet to read (a hidden one too), or all: every visible sheet with a header row (default: the one visible sheet with a header row)'),
  )
    .addHelpText(
      'after',
      examples([
        'buildsync import estimates estimates.csv',
        'buildsync import estimates estimates.xlsx --sheet Alternates',
        'buildsync import estimates other-headers.csv --mapping estimates-mapping.json',
        'buildsync import estimates big.csv --dry-run --print-payloads > payloads.jsonl',
        'buildsync import estimates estimates.csv --json > summary.json',
        'buildsync template estimates --out estimates.xlsx     # an empty spreadsheet to fill in',
      ]),
    )
    .action(action(async (ctx, file: string, flags: ImportFlags) => (await import('../import-command.ts')).importCommand(ctx, 'estimates', file, flags), { jsonFailure: failedImport('estimates') }));
  common(
    imp
      .command('bills <file>')
      .description('create one bill per bill group in FILE (.csv or .xlsx)')
      .option('--mapping <map.json|quickbooks|xero>', 'mapping file, or quickbooks / xero for a QuickBooks or Xero bill export')
      .option('--vendors <vendors.csv>', 'CSV of vendor,vendor_id to look up vendor names')
      .addOption(new Option('--layout <layout>', 'sections: a vendor\'s name alone in the first cell of a row (a vendor-grouped report) is the vendor of the rows under it').choices(['sections']))
      .addOption(new Option('--credits <mode>', 'credits (a kind the mapping lists as credit): negative sends each as a bill whose rates are negative; without it they are ignored').choices(['negative']))
      .addOption(new Option('--discounts <mode>', 'a Discount column: apply sends each rate less its discount (unit price x (1 - discount %)); without it a discount stops its row').choices(['apply']))
      .option('--ignore-tax', 'send bills without the tax amount or tax rate columns not mapped to tax_percent; without it a tax other than zero stops its row')
      .option('--sheet <name|all>', '.xlsx: the sheet to read (a hidden one too), or all: every visible sheet with a header row (default: the one visible sheet with a header row)'),
  )
    .addHelpText(
      'after',
      examples([
        'buildsync import bills bills.csv --vendors vendors.csv',
        'buildsync import bills quickbooks-bills.csv --mapping quickbooks',
        'buildsync import bills xero-bills.csv --mapping xero --credits negative --discounts apply',
        'buildsync import bills bills.csv --dry-run                 # check the file, send nothing',
        'buildsync import bills bills.csv --detach                  # print the import id and return',
        'buildsync import bills bills.csv --resend-unknown          # after checking the unknown ones in the service',
        'buildsync import bills bills.csv --ledger-lost accept      # Redis lost the ledger: trust the earlier report',
        'buildsync jobs report IMPORT_ID --errors --out fix.csv     # the rows to fix, to import again',
      ]),
    )
    .action(action(async (ctx, file: string, flags: ImportFlags) => (await import('../import-command.ts')).importCommand(ctx, 'bills', file, flags), { jsonFailure: failedImport('bills') }));
}

/** `--json` of an import that failed before it had a summary (a bad file, no Redis, …): the same keys. */
function failedImport(kind: 'estimates' | 'bills') {
  return ([file]: [string, ImportFlags], f: JsonFailure): ImportJson => ({
    status: 'failed',
    importId: null,
    kind,
    file: resolve(file),
    rows: 0,
    records: 0,
    counts: { created: 0, exists: 0, skipped: 0, failed: 0, unknown: 0, invalidRows: 0 },
    ignored: {},
    report: null,
    errorsFile: null,
    exitCode: f.exitCode,
    error: { code: f.code, message: f.message },
  });
}

/** `--encoding`: auto or any encoding label the reader knows (docs/reading-rules.md). */
function encodingArgument(value: string): string {
  if (!isEncodingOption(value)) throw new InvalidArgumentError(unknownEncodingText(value));
  return value;
}
