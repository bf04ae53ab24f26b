import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { allowVolatileRedis } from '../config.ts';
import { FileError, parseFailureReason, UsageError } from '../errors/index.ts';
import { formatEta, AccountThrottle } from '../throttle/index.ts';
import {
  importOutcome,
  importSummary,
  loadProjectResolver,
  openSession,
  planBills,
  planEstimates,
  reportCsvChunks,
  writeReport,
  errorsFilePath,
  errorsFileSource,
  linesToFix,
  wirePayload,
  writeDryRun,
  writeErrorsFile,
  type ImportPlan,
  type ImportSummary,
  type PlanOptions,
} from '../engine/index.ts';
import { writeFileAtomically } from '../csv/atomic-file.ts';
import { ENCODING_OPTIONS, type EncodingOption } from '../csv/index.ts';
import { durabilityDecision, ImportStore, readDurabilityFacts, RedisNotDurableError } from '../ledger/index.ts';
import { loadMappingFile, presetMapping, PRESET_NAMES, UnresolvedProjects, type DateOrder } from '../mapping/index.ts';
import { submitImport } from '../queue/index.ts';
import { action, type CommandContext } from './command.ts';
import { exitCodeOf } from './exit.ts';
import { followJob } from './follow.ts';
import { createProgress } from './progress.ts';
import { configFor, ensureWorker, openQueues, serviceAccount, timeScale } from './runtime.ts';

export interface ImportFlags {
  mapping?: string;
  sheet?: string;
  vendors?: string;
  dryRun?: boolean;
  printPayloads?: boolean;
  report?: string;
  detach?: boolean;
  resendUnknown?: boolean;
  encoding?: EncodingOption;
  dateFormat?: 'auto' | DateOrder;
  decimalSeparator?: 'auto' | '.' | ',';
}

export function registerImport(program: Command): void {
  const imp = program.command('import').description('create records in the service from a file');
  const common = (c: Command) =>
    c
      .option('--dry-run', 'read, validate and map FILE; write the report; send nothing (needs neither Redis nor the service)')
      .option('--print-payloads', 'with --dry-run: print each payload that would be sent, one JSON per line, on stdout')
      .option('--report <path>', 'where the per-row report goes (default FILE.report.csv)')
      .option('--detach', 'submit the import, print its id and return')
      .option('--resend-unknown', 'send again records whose earlier request may have reached the service (bills: may create a duplicate)')
      .addOption(new Option('--encoding <encoding>', 'CSV: how FILE is encoded; auto reads UTF-8 (BOM or not), UTF-16 with BOM and Windows-1252, and stops on a mix').choices([...ENCODING_OPTIONS]))
      .addOption(new Option('--date-format <order>', 'how 03/02/2026 is read; auto decides from the file and stops when it cannot').choices(['auto', 'YMD', 'MDY', 'DMY']))
      .addOption(new Option('--decimal-separator <sep>', 'how numbers are written; auto: "," in a ;-separated file, else "."').choices(['auto', '.', ',']));
  common(
    imp
      .command('estimates <file>')
      .description('create one estimate per (project, estimate name) group in FILE (.csv or .xlsx)')
      .option('--mapping <map.json>', 'mapping file: rename, ignore or set columns')
      .option('--sheet <name>', '.xlsx: the sheet to read (default the first)'),
  ).action(action((ctx, file: string, flags: ImportFlags) => importCommand(ctx, 'estimates', file, flags)));
  common(
    imp
      .command('bills <file>')
      .description('create one bill per bill group in FILE')
      .option('--mapping <map.json|quickbooks|xero>', 'mapping file, or quickbooks / xero for a QuickBooks or Xero bill export')
      .option('--vendors <vendors.csv>', 'CSV of vendor,vendor_id to look up vendor names')
      .option('--sheet <name>', '.xlsx: the sheet to read (default the first)'),
  ).action(action((ctx, file: string, flags: ImportFlags) => importCommand(ctx, 'bills', file, flags)));
}

/**
 * A dry run needs no service, but when the account's credentials are set it resolves project
 * numbers and names through one listing; when they are not set, or the service cannot be reached,
 * ids are taken as written and numbers and names are reported as unresolved.
 */
async function dryRunResolver(ctx: CommandContext, cfg: ReturnType<typeof configFor>): Promise<PlanOptions['resolver']> {
  let account;
  try {
    account = serviceAccount(ctx, cfg);
  } catch {
    return undefined;
  }
  // Without Redis a dry run's one listing request takes no budget token (CONTRACT.md §2: "says so").
  ctx.err('dry run: reading the project listing to resolve project numbers and names (one request, not counted in the shared budget)');
  const session = openSession(account, { prefix: cfg.prefix, connections: 1 });
  try {
    return await loadProjectResolver(session.client, ctx.signal);
  } catch (err) {
    ctx.err(`dry run: could not list the account's projects (${(err as Error).message}); project numbers and names stay unresolved`);
    return undefined;
  } finally {
    await session.close();
  }
}

export async function importCommand(ctx: CommandContext, kind: 'estimates' | 'bills', file: string, flags: ImportFlags): Promise<number> {
  if (!existsSync(file)) throw new FileError(file, `${file}: no such file; check the path`);
  if (flags.printPayloads && !flags.dryRun) throw new UsageError('--print-payloads goes with --dry-run');
  const planOpts: PlanOptions = {
    sheet: flags.sheet,
    vendorsFile: flags.vendors,
    signal: ctx.signal,
    encoding: flags.encoding,
    dateFormat: flags.dateFormat,
    decimalSeparator: flags.decimalSeparator,
    resendUnknown: flags.resendUnknown,
  };
  if (flags.mapping !== undefined) {
    const preset = presetMapping(flags.mapping);
    if (preset !== undefined && !existsSync(flags.mapping)) {
      if (kind !== 'bills') throw new UsageError(`--mapping ${flags.mapping} reads ${flags.mapping} bill exports; it is for bill imports. Pass a mapping file (--mapping MAP.json) instead.`);
      planOpts.mapping = preset;
    } else {
      if (!existsSync(flags.mapping) && !/\.json$/i.test(flags.mapping) && !flags.mapping.includes('/')) {
        throw new UsageError(`--mapping ${flags.mapping}: no such file, and not a built-in mapping (${PRESET_NAMES.join(', ')}).`);
      }
      planOpts.mapping = await loadMappingFile(flags.mapping);
    }
  }
  const reportPath = resolve(flags.report ?? `${file}.report.csv`);
  const errorsPath = errorsFilePath(reportPath);
  const cfg = configFor(ctx);
  const plan = (p: PlanOptions): Promise<ImportPlan> => (kind === 'estimates' ? planEstimates(file, p) : planBills(file, p));

  if (flags.dryRun) {
    const listed = await dryRunResolver(ctx, cfg);
    const unresolved = listed === undefined ? new UnresolvedProjects() : undefined;
    const planned = await plan({ ...planOpts, resolver: listed ?? unresolved });
    if (planned.rows === 0) return headerOnly(ctx, file, kind, reportPath, errorsPath);
    const r = await writeDryRun(planned, {
      reportPath,
      errorsPath,
      source: errorsFileSource(planned, resolve(file), planOpts),
      limits: cfg.account.limits,
      unresolved,
      signal: ctx.signal,
    });
    if (flags.printPayloads) for (const rec of planned.records) ctx.out(wirePayload(kind, rec, unresolved));
    const invalid = r.invalid;
    if (unresolved !== undefined && unresolved.count > 0) {
      ctx.err(`dry run: ${unresolved.count} project ${unresolved.count === 1 ? 'number or name was' : 'numbers or names were'} not resolved: no credentials for the service, so its project listing was not read (set BUILDSYNC_BASE_URL and the account's credentials to check them); everything else was checked`);
    }
    ctx.err(
      `dry run: ${planned.rows} ${plural(planned.rows, 'row')} -> ${planned.records.length} ${plural(planned.records.length, kind.slice(0, -1))} to send, ${invalid} invalid ${plural(invalid, 'row')}; report: ${reportPath}` +
        (r.fixRows > 0 ? `; rows to fix: ${errorsPath}` : '') +
        `\nsending them would take about ${formatEta(r.etaMs)} at the budget ${cfg.account.limitsText}`,
    );
    return invalid > 0 ? 1 : 0;
  }

  const account = serviceAccount(ctx, cfg);
  // Redis first: it must answer and keep the ledger safely (CONTRACT.md §2, Durability) before
  // the file is read, and the project listing takes its token from the account's shared budget.
  const { redis, queues, close } = await openQueues(cfg, ctx);
  try {
    const durability = durabilityDecision(await readDurabilityFacts(redis), { allowVolatile: allowVolatileRedis() });
    if (durability.mode === 'refuse') throw new RedisNotDurableError('refused', durability.message);
    if (durability.warning) ctx.err(`warning: ${durability.warning}`);
    const session = openSession(account, { redis, prefix: cfg.prefix, connections: cfg.concurrency, timeScale: timeScale() });
    let planned: ImportPlan;
    try {
      planned = await plan({ ...planOpts, resolver: await loadProjectResolver(session.client, ctx.signal) });
    } finally {
      await session.close();
    }
    if (planned.rows === 0) return headerOnly(ctx, file, kind, reportPath, errorsPath);
    const errorsSource = errorsFileSource(planned, resolve(file), planOpts);

    const store = new ImportStore(redis, cfg.prefix);
    const { importId } = await submitImport(queues, store, planned, {
      account: account.name,
      reportPath,
      resendUnknown: Boolean(flags.resendUnknown),
      errorsSource,
    });
    if (flags.detach) {
      ctx.out(importId);
      ctx.err(`submitted ${planned.records.length} ${plural(planned.records.length, kind.slice(0, -1))}; follow with: buildsync jobs show ${importId}`);
      return 0;
    }
    ctx.err(`planned ${planned.rows} ${plural(planned.rows, 'row')}: ${planned.records.length} ${plural(planned.records.length, kind.slice(0, -1))} to send, ${planned.statics.filter((l) => l.status === 'invalid').length} invalid rows [import ${importId}]`);
    const worker = await ensureWorker(ctx, cfg, queues);
    const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
    const progress = createProgress(kind);
    let summary: ImportSummary;
    let fixRows = 0;
    try {
      let lastBudget = 0;
      let budgetText = '';
      const done = await followJob(ctx, queues.imports, importId, async () => {
        const c = await store.counts(importId);
        const now = Date.now();
        if (now - lastBudget > 1000) {
          lastBudget = now;
          budgetText = await throttle.progressText(planned.records.length - c.settled);
        }
        progress.update(c.settled, planned.records.length, `created ${c.created} failed ${c.failed} | ${budgetText}`);
      });
      progress.stop();
      if (done.state === 'failed') {
        // The import job itself failed (not a record): the same exit code as in-process.
        const f = parseFailureReason(done.job.failedReason);
        ctx.err(`buildsync: import ${importId} failed: ${f.message}${f.code ? ` [${f.code}]` : ''}`);
        return exitCodeOf(f.code);
      }
      summary = await importSummary(store, importId);
      await writeReport(store, importId, reportPath);
      fixRows = await writeErrorsFile(errorsSource, linesToFix(await store.report(importId)), errorsPath, ctx.signal);
    } finally {
      progress.stop();
      await worker?.close();
    }
    const outcome = importOutcome(summary);
    const unknown = outcome.unknown;
    ctx.out(outcome.line);
    ctx.out(`report: ${reportPath} [import ${importId}]`);
    if (fixRows > 0) ctx.out(`rows to fix: ${errorsPath} (${fixRows} ${plural(fixRows, 'row')}; fix them and import that file as it is)`);
    if (unknown > 0 && kind === 'bills') {
      ctx.err(`${unknown} bills are unknown: their request may have reached the service. Check them in the service (see the report), then run again with --resend-unknown for those that are missing.`);
    }
    return outcome.exitCode;
  } finally {
    await close();
  }
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/**
 * A file with a header and no data rows: nothing to do, and the user is told so (CONTRACT.md §2);
 * its report (a header line) is written as every import's is, and a stale errors file removed.
 */
async function headerOnly(ctx: CommandContext, file: string, kind: string, reportPath: string, errorsPath: string): Promise<number> {
  const out = await writeFileAtomically(reportPath);
  try {
    for (const chunk of reportCsvChunks([])) await out.write(chunk);
    await out.commit();
  } catch (err) {
    await out.abort();
    throw err;
  }
  await rm(errorsPath, { force: true });
  ctx.err(`${file} has a header row and no data rows: no ${kind} to import; report: ${reportPath}`);
  return 0;
}

