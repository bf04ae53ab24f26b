import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, FileError, firstExit, MAX_LISTED, listAtMost, parseFailureReason, UsageError } from '../errors/index.ts';
import { formatEta, AccountThrottle } from '../throttle/index.ts';
import { encodingNote, ignoredLine, importOutcome, errorsFilePath, refuseOverwritingInput, readingNote, wirePayload, mappingOption, parseFillDown, type ImportSummary } from '../import/index.ts';
import type { DelimiterOption, EncodingOption } from '../tables/index.ts';
import type { DateOrder, IgnoredCounts, ReadingRules } from '../mapping/index.ts';
import { collectResults, dryRunImport, type SubmittedFile, EarlierReport, importPlanOptions, ImportStore, reportAfterLostLedger, requireDurableRedis, submitFile, writeEmptyReport } from '../import-service/index.ts';
import { LocalReport, markerLostWhy } from '../import/index.ts';
import { LedgerUnsafeError } from '../errors/index.ts';
import { Ledger } from '../ledger/index.ts';
import type { CommandContext } from './command.ts';
import { exitCodeOf } from './exit.ts';
import { followJob } from './follow.ts';
import { createProgress, outcomeText } from './progress.ts';
import { count } from './wording.ts';
import { intOption } from './options.ts';
import { configFor, ensureWorker, openQueues, serviceAccount, timeScale } from './runtime.ts';

/** Excel's last row: no header row is further down. */
const MAX_HEADER_ROW = 1_048_576;

export interface ImportFlags {
  mapping?: string;
  sheet?: string;
  /** `--header-row N`, as typed. */
  headerRow?: string;
  vendors?: string;
  dryRun?: boolean;
  printPayloads?: boolean;
  report?: string;
  /** The same as --report: `--out` names a command's output file everywhere. */
  out?: string;
  detach?: boolean;
  json?: boolean;
  resendUnknown?: boolean;
  encoding?: EncodingOption;
  delimiter?: DelimiterOption;
  dateFormat?: 'auto' | DateOrder;
  decimalSeparator?: 'auto' | '.' | ',';
  hidden?: 'include' | 'skip';
  /** Bills: `--credits negative`. */
  credits?: 'negative';
  /** Bills: `--discounts apply`. */
  discounts?: 'apply';
  /** Bills: `--ignore-tax`. */
  ignoreTax?: boolean;
  /** `--fill-down COLS`, as typed. */
  fillDown?: string;
  layout?: 'sections';
  /** `--ledger-lost accept`: an earlier report's created records the ledger lost are written into it, never sent again. */
  ledgerLost?: 'accept';
}

/**
 * `import … --json`: one object on stdout, always these keys (README, "Scripting"). `status` is
 * `done`, `submitted` (--detach), `dry-run` or `failed` (the import job itself failed: `error`).
 * A dry run's counts are all 0 but `invalidRows`; `records` is what it would send. `ignored`: the
 * rows that are no part of any record, by reason (`{}` for none), from the plan.
 */
export interface ImportJson {
  status: 'done' | 'submitted' | 'dry-run' | 'failed';
  importId: string | null;
  kind: 'estimates' | 'bills';
  file: string;
  rows: number;
  records: number;
  counts: { created: number; exists: number; skipped: number; failed: number; unknown: number; invalidRows: number };
  ignored: IgnoredCounts;
  report: string | null;
  errorsFile: string | null;
  exitCode: number;
  error: { code: string | null; message: string } | null;
}

function importJson(fields: Partial<ImportJson> & Pick<ImportJson, 'status' | 'kind' | 'file' | 'rows' | 'records' | 'exitCode'>): string {
  const zero = { created: 0, exists: 0, skipped: 0, failed: 0, unknown: 0, invalidRows: 0 };
  const o: ImportJson = { importId: null, report: null, errorsFile: null, error: null, ignored: {}, ...fields, counts: { ...zero, ...fields.counts } };
  // Keys in the documented order, whatever order the fields came in.
  const { status, importId, kind, file, rows, records, counts, ignored, report, errorsFile, exitCode, error } = o;
  return JSON.stringify({ status, importId, kind, file, rows, records, counts, ignored, report, errorsFile, exitCode, error });
}

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
  return sendCommand(ctx, cfg, kind, file, flags, planOpts, reportPath, errorsPath);
}

type Config = ReturnType<typeof configFor>;
type PlanOpts = Awaited<ReturnType<typeof importPlanOptions>>;

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

/** The import sent through the queue and followed to its report. */
async function sendCommand(ctx: CommandContext, cfg: Config, kind: 'estimates' | 'bills', file: string, flags: ImportFlags, planOpts: PlanOpts, reportPath: string, errorsPath: string): Promise<number> {
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

/** The summary's line of the rows that are no part of any record ("4 rows ignored: title 3, footer 1"), when there are any. */
function noteIgnored(print: (line: string) => void, ignored: IgnoredCounts): void {
  const line = ignoredLine(ignored);
  if (line !== undefined) print(line);
}

/**
 * Says once, after the summary, how the file was read where that is not plain: the encoding of a
 * file that is not UTF-8 ("read as Mac Roman"), dates read by BUILDSYNC_DATE_FORMAT, the sheets.
 */
function noteReading(ctx: CommandContext, table: { rules: ReadingRules; encoding?: string; sheets?: { read: string[]; notRead: string[] } } | undefined): void {
  if (table === undefined) return;
  const { rules, sheets } = table;
  const encoding = encodingNote(table.encoding);
  if (encoding !== undefined) ctx.err(encoding);
  const note = readingNote(rules);
  if (note !== undefined) ctx.err(note);
  if (sheets !== undefined) ctx.err(sheetsNote(sheets));
}

/** `--sheet all` says which sheets it read and which it did not (docs/reading-rules.md). */
function sheetsNote({ read, notRead }: { read: string[]; notRead: string[] }): string {
  const names = (ns: string[]): string => listAtMost(ns.slice(0, MAX_LISTED).map((n) => `"${n}"`), ns.length);
  return `sheets read: ${names(read)}; not read: ${notRead.length === 0 ? 'none' : names(notRead)}`;
}

/**
 * A file with a header and no data rows: nothing to do, and the user is told so (README, Commands);
 * its report (a header line) is written as every import's is, and a stale errors file removed
 * (`writeEmptyReport`).
 */
async function headerOnly(ctx: CommandContext, file: string, kind: 'estimates' | 'bills', reportPath: string, errorsPath: string, json?: boolean): Promise<number> {
  await writeEmptyReport(reportPath, errorsPath);
  ctx.err(`${file} has a header row and no data rows: no ${kind} to import; report: ${reportPath}`);
  if (json) ctx.out(importJson({ status: 'done', kind, file: resolve(file), rows: 0, records: 0, report: reportPath, exitCode: 0 }));
  return 0;
}

