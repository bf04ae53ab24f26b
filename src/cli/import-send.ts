/**
 * `buildsync import` without --dry-run: the import sent through the queue and followed to its
 * report. Loaded by import-command.ts only when it sends, so that a dry run loads neither BullMQ
 * nor the progress bar (docs/benchmarks.md, startup).
 */
import { resolve } from 'node:path';
import { LedgerUnsafeError, parseFailureReason } from '../errors/index.ts';
import { AccountThrottle } from '../throttle/index.ts';
import { importOutcome, LocalReport, markerLostWhy, type ImportSummary } from '../import/index.ts';
import { collectResults, EarlierReport, ImportStore, reportAfterLostLedger, requireDurableRedis, submitFile, type SubmittedFile } from '../import-service/index.ts';
import { Ledger } from '../ledger/index.ts';
import type { CommandContext } from './command.ts';
import { exitCodeOf } from './exit.ts';
import { followJob } from './follow.ts';
import { headerOnly, importJson, noteIgnored, noteReading, type Config, type ImportFlags, type ImportJson, type PlanOpts } from './import-output.ts';
import { createProgress, outcomeText } from './progress.ts';
import { count } from './wording.ts';
import { ensureWorker, openQueues, serviceAccount, timeScale } from './runtime.ts';

/** The import sent through the queue and followed to its report. */
export async function sendCommand(ctx: CommandContext, cfg: Config, kind: 'estimates' | 'bills', file: string, flags: ImportFlags, planOpts: PlanOpts, reportPath: string, errorsPath: string): Promise<number> {
  const account = serviceAccount(ctx, cfg);
  // Redis first: it must answer and keep the ledger safely (docs/operators.md, "Durability") before
  // the file is read, and the project listing takes its token from the account's shared budget.
  const { redis, queues, close } = await openQueues(cfg, ctx);
  try {
    const durability = await requireDurableRedis(redis);
    if (durability.warning) ctx.err(`warning: ${durability.warning}`);
    const store = new ImportStore(redis, cfg.prefix);
    // The report an earlier run left (beside the file, or at --report) is checked against the ledger before anything is sent.
    const earlier = EarlierReport.read(reportPath, cfg.ledgerRetentionDays);
    const local = new LocalReport();
    const submitted = await submitFile(kind, file, {
      queues,
      store,
      account,
      place: { redis, prefix: cfg.prefix, connections: cfg.concurrency, timeScale: timeScale(), signal: ctx.signal },
      planOpts,
      reportPath,
      resendUnknown: Boolean(flags.resendUnknown),
      durability: durability.mode,
      earlier,
      ledgerLostAccept: flags.ledgerLost === 'accept',
      local: flags.detach ? undefined : local,
      onAdopted: (w, from) => {
        if (w.created > 0) ctx.err(`--ledger-lost accept: ${count(w.created, 'record')} that ${from} lists as created written into the ledger with the report's IDs; they are not sent again`);
        if (w.unknown > 0) ctx.err(`${count(w.unknown, 'record')} that ${from} lists as unknown written into the ledger as unknown (the ledger had lost ${w.unknown === 1 ? 'it' : 'them'}); not sent again on ${w.unknown === 1 ? 'its' : 'their'} own`);
      },
    });
    if (submitted.importId === undefined) return headerOnly(ctx, file, kind, reportPath, errorsPath, flags.json);
    const { importId, planned } = submitted;
    if (flags.detach) {
      if (flags.json) {
        const invalidRows = planned.invalidRows;
        ctx.out(importJson({ status: 'submitted', importId, kind, file: resolve(file), rows: planned.rows, records: planned.records, counts: { invalidRows } as ImportJson['counts'], ignored: planned.ignored, report: reportPath, exitCode: 0 }));
      } else ctx.out(importId);
      ctx.err(`submitted ${count(planned.records, kind.slice(0, -1))}; follow with: buildsync jobs show ${importId}`);
      noteIgnored(ctx.err, planned.ignored);
      noteReading(ctx, planned.table);
      return 0;
    }
    ctx.err(`planned ${count(planned.rows, 'row')}: ${count(planned.records, kind.slice(0, -1))} to send, ${count(planned.invalidRows, 'invalid row')} [import ${importId}]`);
    const followed = await followImport(ctx, { cfg, kind, file, flags, account, redis, queues, store, local, submitted, reportPath, errorsPath });
    if (typeof followed === 'number') return followed;
    const { summary, fixRows } = followed;
    const outcome = importOutcome(summary);
    const unknown = outcome.unknown;
    if (flags.json) {
      const { created, exists, skipped, failed, invalidRows } = summary.counts;
      ctx.out(importJson({ status: 'done', importId, kind, file: resolve(file), rows: summary.rows, records: summary.records, counts: { created, exists, skipped, failed, unknown, invalidRows }, ignored: summary.ignored, report: reportPath, errorsFile: fixRows > 0 ? errorsPath : null, exitCode: outcome.exitCode }));
    } else {
      ctx.out(outcome.line);
      noteIgnored(ctx.out, summary.ignored);
      ctx.out(`report: ${reportPath} [import ${importId}]`);
      if (fixRows > 0) ctx.out(`rows to fix: ${errorsPath} (${count(fixRows, 'row')}; fix them and import that file as it is)`);
    }
    noteReading(ctx, planned.table);
    if (summary.stopped !== undefined) ctx.err(`buildsync: ${summary.stopped.replace(/^not sent: /, '')}`);
    if (unknown > 0 && kind === 'bills') {
      ctx.err(`${unknown === 1 ? '1 bill is' : `${unknown} bills are`} unknown: their request may have reached the service. Check them in the service (see the report), then run again with --resend-unknown for those that are missing.`);
    }
    return outcome.exitCode;
  } finally {
    await close();
  }
}

/** What following a submitted import needs. */
interface Following {
  cfg: Config;
  kind: 'estimates' | 'bills';
  file: string;
  flags: ImportFlags;
  account: ReturnType<typeof serviceAccount>;
  redis: Awaited<ReturnType<typeof openQueues>>['redis'];
  queues: Awaited<ReturnType<typeof openQueues>>['queues'];
  store: ImportStore;
  local: LocalReport;
  submitted: Extract<SubmittedFile, { importId: string }>;
  reportPath: string;
  errorsPath: string;
}

/**
 * Follows a submitted import with its progress bar until it ends: its results collected into
 * the report, or the exit code of an import job that failed. A ledger lost meanwhile stops it
 * with the report of what was created.
 */
async function followImport(ctx: CommandContext, o: Following): Promise<{ summary: ImportSummary; fixRows: number } | number> {
  const { cfg, kind, file, flags, account, redis, queues, store, local, reportPath, errorsPath } = o;
  const { importId, planned, errorsSource, ledgerMarker } = o.submitted;
  const worker = await ensureWorker(ctx, cfg, queues);
  const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
  const progress = createProgress(kind);
  const ledger = new Ledger(redis, cfg.prefix);
  // Each poll keeps the outcomes settled so far and checks that the ledger the import started with is still there.
  const ledgerStillThere = async (): Promise<void> => {
    await local.catchUp(store, importId);
    const marker = await ledger.marker(account.name);
    if (marker !== ledgerMarker) throw new LostLedger(marker);
  };
  try {
    let lastBudget = 0;
    let budgetText = '';
    const done = await followJob(ctx, queues.imports, importId, async () => {
      const c = await store.counts(importId);
      const now = Date.now();
      if (now - lastBudget > 1000) {
        lastBudget = now;
        budgetText = await throttle.progressText(planned.records - c.settled);
      }
      // Every settled outcome moves the bar, and each is named: a re-run ends at "4/4 … skipped 4".
      progress.update(c.settled, planned.records, outcomeText(c, budgetText));
    }, undefined, ledgerStillThere).catch(async (err: unknown) => {
      if (!(err instanceof LostLedger)) throw err;
      progress.stop();
      const why = markerLostWhy(err.marker ?? '');
      const r = await reportAfterLostLedger(store, importId, local, { reportPath, errorsPath, errorsSource, why, signal: ctx.signal });
      throw new LedgerUnsafeError(
        `sending stopped: ${why}. ${count(r.created, 'record')} created before it stopped ${r.created === 1 ? 'is' : 'are'} in the report with ${r.created === 1 ? 'its ID' : 'their IDs'}: ${reportPath}. ` +
          `Run the import again once Redis keeps its data: it stops at the records the report names as created that the ledger does not know; restore the ledger (buildsync ledger import FILE) or pass --ledger-lost accept`,
      );
    });
    progress.stop();
    if (done.state === 'failed') {
      // The import job itself failed (not a record): the same exit code as in-process.
      const f = parseFailureReason(done.job.failedReason);
      ctx.err(`buildsync: import ${importId} failed: ${f.message}${f.code ? ` [${f.code}]` : ''}`);
      const exitCode = exitCodeOf(f.code);
      if (flags.json) ctx.out(importJson({ status: 'failed', importId, kind, file: resolve(file), rows: planned.rows, records: planned.records, ignored: planned.ignored, exitCode, error: { code: f.code ?? null, message: f.message } }));
      return exitCode;
    }
    return await collectResults(store, importId, { reportPath, errorsPath, errorsSource, signal: ctx.signal });
  } finally {
    progress.stop();
    await worker?.close();
  }
}

/** The ledger's marker is not the one the import started with (undefined: gone). */
class LostLedger extends Error {
  constructor(readonly marker: string | undefined) {
    super('the ledger was lost');
  }
}
