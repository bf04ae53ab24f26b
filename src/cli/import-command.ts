import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, FileError, firstExit, UsageError } from '../errors/index.ts';
import { formatEta } from '../throttle/index.ts';
import { errorsFilePath, refuseOverwritingInput, wirePayload, mappingOption, parseFillDown } from '../import/index.ts';
import { dryRunImport, importPlanOptions } from '../import-service/index.ts';
import type { CommandContext } from './command.ts';
import { headerOnly, importJson, noteIgnored, noteReading, type Config, type ImportFlags, type ImportJson, type PlanOpts } from './import-output.ts';
import { count } from './wording.ts';
import { intOption } from './options.ts';
import { configFor, serviceAccount } from './runtime.ts';

export type { ImportFlags, ImportJson } from './import-output.ts';

/** Excel's last row: no header row is further down. */
const MAX_HEADER_ROW = 1_048_576;

export async function importCommand(ctx: CommandContext, kind: 'estimates' | 'bills', file: string, flags: ImportFlags): Promise<number> {
  if (!existsSync(file)) throw new FileError(file, `${file}: no such file; check the path`);
  if (flags.printPayloads && !flags.dryRun) throw new UsageError('--print-payloads goes with --dry-run');
  if (flags.printPayloads && flags.json) throw new UsageError('--print-payloads and --json both write to standard output; use one of them');
  if (flags.report !== undefined && flags.out !== undefined && resolve(flags.report) !== resolve(flags.out)) {
    throw new UsageError(`--report ${flags.report} and --out ${flags.out} name two places for the report; give one of them`);
  }
  const cfg = configFor(ctx);
  const planOpts = await cliPlanOptions(ctx, cfg, kind, flags);
  const reportPath = resolve(flags.report ?? flags.out ?? `${file}.report.csv`);
  const errorsPath = errorsFilePath(reportPath);
  refuseOverwritingInput(file, [
    { path: reportPath, what: flags.report === undefined && flags.out === undefined ? 'the report' : `the report (${flags.report === undefined ? '--out' : '--report'} ${flags.report ?? flags.out})` },
    { path: errorsPath, what: 'the rows to fix (named after the report)' },
  ]);

  if (flags.dryRun) return dryRunCommand(ctx, cfg, kind, file, flags, planOpts, reportPath, errorsPath);
  // The send path (BullMQ, the worker, the progress bar) is loaded only when it sends.
  return (await import('./import-send.ts')).sendCommand(ctx, cfg, kind, file, flags, planOpts, reportPath, errorsPath);
}

/** The flags as plan options, through the one options builder of the CLI and the import page (src/import-service/import-options.ts). */
async function cliPlanOptions(ctx: CommandContext, cfg: Config, kind: 'estimates' | 'bills', flags: ImportFlags): Promise<PlanOpts> {
  return importPlanOptions({
    sheet: flags.sheet,
    hidden: flags.hidden,
    fillDown: flags.fillDown === undefined ? undefined : parseFillDown(flags.fillDown),
    layout: flags.layout,
    headerRow: flags.headerRow === undefined ? undefined : intOption('--header-row', flags.headerRow, 1, MAX_HEADER_ROW),
    vendorsFile: flags.vendors,
    encoding: flags.encoding,
    delimiter: flags.delimiter,
    dateFormat: flags.dateFormat,
    decimalSeparator: flags.decimalSeparator,
    resendUnknown: flags.resendUnknown,
    credits: flags.credits,
    discounts: flags.discounts,
    ignoreTax: flags.ignoreTax,
    // Loaded after the flags are checked, as before: a bad flag is said first.
    mapping: flags.mapping === undefined ? undefined : await mappingOption(kind, flags.mapping),
  }, cfg.account, ctx.signal);
}

/** `--dry-run`: the plan checked and reported, nothing sent. */
async function dryRunCommand(ctx: CommandContext, cfg: Config, kind: 'estimates' | 'bills', file: string, flags: ImportFlags, planOpts: PlanOpts, reportPath: string, errorsPath: string): Promise<number> {
  let account;
  try {
    account = serviceAccount(ctx, cfg);
  } catch {
    account = undefined;
  }
  const { planned, result: r, unresolved, unresolvedVendors } = await dryRunImport(kind, file, {
    planOpts,
    account,
    accountName: cfg.account.name,
    redisUrl: cfg.redisUrl,
    prefix: cfg.prefix,
    limits: cfg.account.limits,
    reportPath,
    errorsPath,
    signal: ctx.signal,
    notice: ctx.err,
  });
  if (r === undefined) return headerOnly(ctx, file, kind, reportPath, errorsPath, flags.json);
  if (flags.printPayloads) for (const rec of planned.records) ctx.out(wirePayload(kind, rec, unresolved, unresolvedVendors));
  const invalid = r.invalid;
  if (unresolved !== undefined && unresolved.count > 0) {
    ctx.err(`dry run: ${unresolved.count} project ${unresolved.count === 1 ? 'number or name was' : 'numbers or names were'} not resolved: no credentials for the service, so its project listing was not read (set BUILDSYNC_BASE_URL and the account's credentials to check them); everything else was checked`);
  }
  ctx.err(
    `dry run: ${count(planned.rows, 'row')} -> ${count(planned.records.length, kind.slice(0, -1))} to send, ${count(invalid, 'invalid row')}; report: ${reportPath}` +
      (r.fixRows > 0 ? `; rows to fix: ${errorsPath}` : '') +
      `\nsending them would take ${r.etaMs > 0 ? 'about ' : ''}${formatEta(r.etaMs)} at the budget ${cfg.account.limitsText}`,
  );
  noteIgnored(ctx.err, r.ignored);
  noteReading(ctx, planned.table);
  // Ignored rows are no part of any record: they change no exit code.
  const exitCode = firstExit([invalid > 0 && EXIT.partial]);
  if (flags.json) {
    ctx.out(importJson({ status: 'dry-run', kind, file: resolve(file), rows: planned.rows, records: planned.records.length, counts: { invalidRows: invalid } as ImportJson['counts'], ignored: r.ignored, report: reportPath, errorsFile: r.fixRows > 0 ? errorsPath : null, exitCode }));
  }
  return exitCode;
}

