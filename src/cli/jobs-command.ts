import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Job, Queue } from 'bullmq';
import type { Command } from 'commander';
import { FileError, UsageError } from '../errors/index.ts';
import { errorsFileChunks, importSummary, linesToFix, reportCsvChunks, writeErrorsFile, writeReport, type ErrorsFileSource } from '../engine/index.ts';
import { ImportStore } from '../ledger/index.ts';
import { AccountThrottle, formatEta } from '../throttle/index.ts';
import { loadConfig } from '../config.ts';
import { action, type CommandContext } from './command.ts';
import { intOption } from './options.ts';
import { configFor, openQueues, timeScale } from './runtime.ts';

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('what ran, what it did, and the per-row report of an import');
  jobs
    .command('list')
    .description('recent exports and imports, newest first')
    .option('--limit <n>', 'how many', '20')
    .action(action((ctx, opts: { limit: string }) => listJobs(ctx, intOption('--limit', opts.limit, 1, 1000))));
  jobs
    .command('show <id>')
    .description('one job: state, timing, result or error; for an import its counts and the account\'s rate budget')
    .action(action((ctx, id: string) => showJob(ctx, id)));
  jobs
    .command('report <id>')
    .description('write the report CSV of an import (or, with --errors, its rows to fix)')
    .option('--out <path>', 'where to write it; - or none: standard output')
    .option('--errors', 'write the rows to fix (invalid, failed, unknown) with their original columns, source_line and error, ready to import again')
    .action(action((ctx, id: string, opts: { out?: string; errors?: boolean }) => reportJob(ctx, id, opts.out, Boolean(opts.errors))));
}

async function listJobs(ctx: CommandContext, limit: number): Promise<number> {
  const { queues, close } = await openQueues(configFor(ctx));
  try {
    const all: Job[] = [];
    for (const q of [queues.exports, queues.imports]) {
      all.push(...(await q.getJobs(['active', 'waiting', 'waiting-children', 'delayed', 'completed', 'failed'], 0, limit - 1, false)));
    }
    all.sort((a, b) => b.timestamp - a.timestamp);
    ctx.out(['id', 'kind', 'state', 'created', 'took', 'result'].join('\t'));
    for (const job of all.slice(0, limit)) {
      const state = await job.getState();
      ctx.out([job.id, job.name, state, new Date(job.timestamp).toISOString(), took(job), resultLine(job)].join('\t'));
    }
    if (!all.length) ctx.err('no jobs yet');
    return 0;
  } finally {
    await close();
  }
}

async function findJob(queues: Queue[], id: string): Promise<Job | undefined> {
  for (const q of queues) {
    const job = await q.getJob(id);
    if (job) return job;
  }
  return undefined;
}

async function showJob(ctx: CommandContext, id: string): Promise<number> {
  const cfg = configFor(ctx);
  const { redis, queues, close } = await openQueues(cfg);
  try {
    const job = await findJob(queues.all(), id);
    if (!job) throw new UsageError(`no job ${id} in the queues (finished jobs are kept 30 days); see buildsync jobs list`);
    const state = await job.getState();
    const data = job.data as { account?: string; importId?: string };
    ctx.out(`job       ${job.id} (${job.name}) in ${job.queueName}`);
    ctx.out(`state     ${state}${job.attemptsMade ? ` (attempts: ${job.attemptsMade})` : ''}`);
    ctx.out(`created   ${new Date(job.timestamp).toISOString()}`);
    if (job.processedOn) ctx.out(`started   ${new Date(job.processedOn).toISOString()}`);
    if (job.finishedOn) ctx.out(`finished  ${new Date(job.finishedOn).toISOString()} (took ${took(job)})`);
    if (data.account) ctx.out(`account   ${data.account}`);
    if (job.failedReason) ctx.out(`error     ${job.failedReason}`);
    let pending = 0;
    if (data.importId) {
      const s = await importSummary(new ImportStore(redis, cfg.prefix), data.importId);
      const c = s.counts;
      pending = s.records - (c.created + c.exists + c.skipped + c.failed + c.unknown);
      ctx.out(`file      ${s.file} (${s.rows} rows, ${s.records} records)`);
      ctx.out(`records   created ${c.created}, exists ${c.exists}, skipped ${c.skipped}, failed ${c.failed}, unknown ${c.unknown}; invalid rows ${c.invalidRows}; pending ${pending}`);
    } else if (job.returnvalue) {
      ctx.out(`result    ${JSON.stringify(job.returnvalue)}`);
    } else if (typeof job.progress === 'object') {
      ctx.out(`progress  ${JSON.stringify(job.progress)}`);
    }
    if (data.account) {
      const account = loadConfig({ account: data.account === 'default' ? undefined : data.account }).account;
      const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
      const b = await throttle.status();
      for (const line of budgetLines(b)) ctx.out(line);
      // The ETA counts every window: 12,000 records at hour=500,day=10000 end tomorrow, not in 24 h.
      if (pending > 0) ctx.out(`eta       ${formatEta(await throttle.estimateMs(pending))} for ${pending} pending records at this budget`);
    }
    return 0;
  } finally {
    await close();
  }
}

/** The account's budget as `jobs show` prints it. */
export function budgetLines(b: Awaited<ReturnType<AccountThrottle['status']>>): string[] {
  const lines = b.windows.map(
    (w) => `budget    ${w.window.padEnd(6)} ${w.remaining}/${w.limit} left${w.learned !== undefined ? ` (limit learned from a 429 at ${w.learned.at.toISOString()}; configured ${w.configured ?? 'none'})` : ''}`,
  );
  if (b.pausedUntil && b.reason) lines.push(`waiting   ${b.reason}`);
  return lines;
}

async function reportJob(ctx: CommandContext, id: string, out: string | undefined, errors: boolean): Promise<number> {
  const cfg = configFor(ctx);
  const { redis, queues, close } = await openQueues(cfg);
  try {
    const store = new ImportStore(redis, cfg.prefix);
    // The import id is the parent job's id; accept a record job's id too.
    const job = await findJob([queues.imports, queues.records], id);
    const importId = (job?.data as { importId?: string } | undefined)?.importId ?? id;
    const meta = await store.meta(importId);
    if (!meta) throw new UsageError(`no import ${id} (imports are kept 30 days); see buildsync jobs list`);
    const toStdout = out === undefined || out === '-';
    // While the import runs, records without an outcome are `pending` (CONTRACT.md §5).
    const parent = await queues.imports.getJob(importId);
    const state = parent ? await parent.getState() : 'unknown';
    const running = ['active', 'waiting', 'waiting-children', 'delayed', 'prioritized'].includes(state);
    const report = () => store.report(importId, { running });
    if (errors) {
      const source = meta.errorsSource as ErrorsFileSource | undefined;
      if (source === undefined) throw new UsageError(`import ${importId} was submitted by an older buildsync that did not keep how its file was read; run the import again to get its rows to fix.`);
      if (!existsSync(source.file)) throw new FileError(source.file, `the rows to fix are read again from ${source.file}, which is not on this machine (any more); run jobs report --errors where the file is.`);
      const toFix = linesToFix(await report());
      if (toStdout) {
        let rows = 0;
        if (toFix.size > 0) for await (const chunk of errorsFileChunks(source, toFix, ctx.signal)) {
          process.stdout.write(chunk.text);
          rows += chunk.rows;
        }
        ctx.err(`${rows} rows to fix`);
      } else {
        const rows = await writeErrorsFile(source, toFix, resolve(out));
        ctx.out(rows > 0 ? `wrote ${rows} rows to fix to ${resolve(out)}` : `nothing to fix in import ${importId}`);
      }
      return 0;
    }
    if (toStdout) {
      for (const chunk of reportCsvChunks(await report())) process.stdout.write(chunk);
      return 0;
    }
    const n = await writeReport(store, importId, resolve(out), { running });
    ctx.out(`wrote ${n} report lines to ${resolve(out)}`);
    return 0;
  } finally {
    await close();
  }
}

function took(job: Job): string {
  if (!job.finishedOn || !job.processedOn) return '';
  return `${((job.finishedOn - job.processedOn) / 1000).toFixed(1)} s`;
}

function resultLine(job: Job): string {
  if (job.failedReason) return `error: ${job.failedReason}`;
  const r = job.returnvalue as Record<string, unknown> | null;
  if (!r) {
    // Still running: an import's share of records settled, an export's projects so far.
    const p = job.progress as number | { projects?: number } | undefined;
    if (typeof p === 'number') return `${p}% of records done`;
    if (p && typeof p === 'object' && typeof p.projects === 'number') return `${p.projects} projects so far`;
    return '';
  }
  if ('path' in r) return `${r.projects} projects -> ${r.path}`;
  if ('counts' in r) {
    const c = r.counts as Record<string, number>;
    return `created ${c.created}, exists ${c.exists}, skipped ${c.skipped}, failed ${c.failed}, unknown ${c.unknown}, invalid rows ${c.invalidRows}`;
  }
  return JSON.stringify(r).slice(0, 120);
}
