import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { estimateDurationMs, formatEta, AccountThrottle } from '../throttle/index.ts';
import { UsageError, FileError } from '../errors/index.ts';
import {
  dryRunReport,
  importExitCode,
  importSummary,
  loadProjectResolver,
  openSession,
  planBills,
  planEstimates,
  reportCsvChunks,
  writeReport,
  type ImportPlan,
  type ImportSummary,
  type PlanOptions,
} from '../engine/index.ts';
import { writeFileAtomically } from '../csv/atomic-file.ts';
import { ImportStore } from '../ledger/index.ts';
import { loadMappingFile } from '../mapping/index.ts';
import { submitImport } from '../queue/index.ts';
import { action, type CommandContext } from './command.ts';
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
}

export function registerImport(program: Command): void {
  const imp = program.command('import').description('create records in the service from a file');
  const common = (c: Command) =>
    c
      .option('--dry-run', 'read, validate and map FILE; write the report; send nothing (needs neither Redis nor the service)')
      .option('--print-payloads', 'with --dry-run: print each payload that would be sent, one JSON per line, on stdout')
      .option('--report <path>', 'where the per-row report goes (default FILE.report.csv)')
      .option('--detach', 'submit the import, print its id and return')
      .option('--resend-unknown', 'send again records whose earlier request may have reached the service (bills: may create a duplicate)');
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
      .option('--mapping <map.json|quickbooks>', 'mapping file, or quickbooks for a QuickBooks bill export')
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
  const planOpts: PlanOptions = { sheet: flags.sheet, vendorsFile: flags.vendors, signal: ctx.signal };
  if (flags.mapping === 'quickbooks') {
    if (kind !== 'bills') throw new UsageError('--mapping quickbooks is for bill imports');
    planOpts.quickbooks = true;
  } else if (flags.mapping !== undefined) {
    planOpts.mapping = await loadMappingFile(flags.mapping);
  }
  const reportPath = resolve(flags.report ?? `${file}.report.csv`);
  const cfg = configFor(ctx);
  const plan = (p: PlanOptions): Promise<ImportPlan> => (kind === 'estimates' ? planEstimates(file, p) : planBills(file, p));

  if (flags.dryRun) {
    const planned = await plan({ ...planOpts, resolver: await dryRunResolver(ctx, cfg) });
    const out = await writeFileAtomically(reportPath);
    try {
      for (const chunk of reportCsvChunks(dryRunReport(planned))) await out.write(chunk);
      await out.commit();
    } catch (err) {
      await out.abort();
      throw err;
    }
    if (flags.printPayloads) for (const r of planned.records) ctx.out(r.payloadJson ?? JSON.stringify(r.payload));
    const invalid = planned.statics.filter((s) => s.status === 'invalid').length;
    const eta = estimateDurationMs(cfg.account.limits, [], planned.records.length, Date.now());
    ctx.err(
      `dry run: ${planned.rows} rows -> ${planned.records.length} ${kind} to send, ${invalid} invalid rows; report: ${reportPath}\n` +
        `sending them would take about ${formatEta(eta)} at the budget ${cfg.account.limitsText}`,
    );
    return invalid > 0 ? 1 : 0;
  }

  const account = serviceAccount(ctx, cfg);
  const session = openSession(account, { prefix: cfg.prefix, connections: cfg.concurrency });
  let planned: ImportPlan;
  try {
    planned = await plan({ ...planOpts, resolver: await loadProjectResolver(session.client, ctx.signal) });
  } finally {
    await session.close();
  }

  const { redis, queues, close } = await openQueues(cfg);
  try {
    const store = new ImportStore(redis, cfg.prefix);
    const { importId } = await submitImport(queues, store, planned, {
      account: account.name,
      reportPath,
      resendUnknown: Boolean(flags.resendUnknown),
    });
    if (flags.detach) {
      ctx.out(importId);
      ctx.err(`submitted ${planned.records.length} ${kind}; follow with: buildsync jobs show ${importId}`);
      return 0;
    }
    ctx.err(`planned ${planned.rows} rows: ${planned.records.length} ${kind} to send, ${planned.statics.filter((l) => l.status === 'invalid').length} invalid rows [import ${importId}]`);
    const worker = await ensureWorker(ctx, cfg, queues);
    const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
    const progress = createProgress(kind);
    let summary: ImportSummary;
    try {
      let lastBudget = 0;
      let budgetText = '';
      const done = await followJob(ctx, queues.imports, importId, async () => {
        const c = await store.counts(importId);
        const now = Date.now();
        if (now - lastBudget > 1000) {
          lastBudget = now;
          const b = await throttle.status();
          const left = planned.records.length - c.settled;
          const eta = left > 0 ? formatEta(await throttle.estimateMs(left)) : '0 s';
          budgetText = `${b.reason ? `${b.reason} | ` : ''}${b.tightest ? `${b.tightest.remaining} requests left this ${b.tightest.window}` : 'no budget limit'} | ETA ${eta}`;
        }
        progress.update(c.settled, planned.records.length, `created ${c.created} failed ${c.failed} | ${budgetText}`);
      });
      progress.stop();
      if (done.state === 'failed') throw new Error(`import ${importId} failed: ${done.job.failedReason}`);
      summary = await importSummary(store, importId);
      await writeReport(store, importId, reportPath);
    } finally {
      progress.stop();
      await worker?.close();
    }
    const c = summary.counts;
    // A record whose job ended without an outcome is reported unknown (see ImportStore.report).
    const unknown = c.unknown + summary.unsettled;
    ctx.out(
      `${kind}: ${summary.rows} rows, ${summary.records} records: created ${c.created}, exists ${c.exists}, skipped ${c.skipped}, failed ${c.failed}, unknown ${unknown}; invalid rows ${c.invalidRows}`,
    );
    ctx.out(`report: ${reportPath} [import ${importId}]`);
    if (unknown > 0 && kind === 'bills') {
      ctx.err(`${unknown} bills are unknown: their request may have reached the service. Check them in the service (see the report), then run again with --resend-unknown for those that are missing.`);
    }
    return importExitCode(summary);
  } finally {
    await close();
  }
}
