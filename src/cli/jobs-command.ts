import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Job, Queue } from 'bullmq';
import { FileError, parseFailureReason, UsageError } from '../errors/index.ts';
import { errorsFileChunks, ignoredLine, importSummary, linesToFix, lineNameOf, reportCsvChunks, writeErrorsFile, writeReport, type ErrorsFileSource } from '../import/index.ts';
import { ImportStore } from '../import/index.ts';
import type { IgnoredCounts } from '../mapping/index.ts';
import { AccountThrottle, formatEta } from '../throttle/index.ts';
import { loadConfig } from '../config.ts';
import type { CommandContext } from './command.ts';
import { configFor, openQueues, timeScale } from './runtime.ts';
import { count } from './wording.ts';

/** One job in `jobs list --json` (README, "Scripting"); times are ISO 8601, `seconds` its run time. */
export interface JobListEntry {
  id: string;
  kind: string;
  state: string;
  created: string;
  finished: string | null;
  seconds: number | null;
  account: string | null;
  result: string;
  error: string | null;
}

export async function listJobs(ctx: CommandContext, limit: number, json = false): Promise<number> {
  const { queues, close } = await openQueues(configFor(ctx));
  try {
    const all: Job[] = [];
    for (const q of [queues.exports, queues.imports]) {
      all.push(...(await q.getJobs(['active', 'waiting', 'waiting-children', 'delayed', 'completed', 'failed'], 0, limit - 1, false)));
    }
    all.sort((a, b) => b.timestamp - a.timestamp);
    const entries: JobListEntry[] = [];
    for (const job of all.slice(0, limit)) {
      const data = job.data as { account?: string };
      entries.push({
        id: job.id!,
        kind: job.name,
        state: await job.getState(),
        created: new Date(job.timestamp).toISOString(),
        finished: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        seconds: job.finishedOn && job.processedOn ? (job.finishedOn - job.processedOn) / 1000 : null,
        account: data.account ?? null,
        result: job.failedReason ? '' : resultLine(job),
        error: job.failedReason || null,
      });
    }
    if (json) {
      ctx.out(JSON.stringify({ jobs: entries }));
      return 0;
    }
    if (!entries.length) {
      ctx.err('no jobs yet');
      return 0;
    }
    ctx.out(['id', 'kind', 'state', 'created', 'took', 'result'].join('\t'));
    for (const e of entries) {
      ctx.out([e.id, e.kind, e.state, e.created, e.seconds === null ? '' : `${e.seconds.toFixed(1)} s`, e.error ? `error: ${e.error}` : e.result].join('\t'));
    }
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

/** `jobs show ID --json` (README, "Scripting"): the same keys for every job; `import` or `export` is null when it is the other kind. */
export interface JobShowJson {
  id: string;
  kind: string;
  queue: string;
  state: string;
  attempts: number;
  created: string;
  started: string | null;
  finished: string | null;
  seconds: number | null;
  account: string | null;
  error: { code: string | null; message: string } | null;
  import: {
    file: string;
    rows: number;
    records: number;
    counts: { created: number; exists: number; skipped: number; failed: number; unknown: number; invalidRows: number };
    /** Rows that are no part of any record, by reason (`{}` for none). */
    ignored: IgnoredCounts;
    pending: number;
    /** Where the report was written, or null while it is not (see `reportCommand`). */
    report: string | null;
    /** The command that writes the report now, wherever the worker ran. */
    reportCommand: string;
  } | null;
  export: { path: string | null; projects: number | null; bytes: number | null; seconds: number | null } | null;
  budget: Array<{ window: string; remaining: number; limit: number }> | null;
  etaSeconds: number | null;
}

export async function showJob(ctx: CommandContext, id: string, json = false): Promise<number> {
  const cfg = configFor(ctx);
  const { redis, queues, close } = await openQueues(cfg);
  try {
    const job = await findJob(queues.all(), id);
    if (!job) throw new UsageError(`no job ${id} in the queues (finished jobs are kept 30 days); see buildsync jobs list`);
    const state = await job.getState();
    const data = job.data as { account?: string; importId?: string; reportPath?: string; out?: string; outDir?: string };
    const failure = job.failedReason ? parseFailureReason(job.failedReason) : undefined;
    const show: JobShowJson = {
      id: job.id!,
      kind: job.name,
      queue: job.queueName,
      state,
      attempts: job.attemptsMade,
      created: new Date(job.timestamp).toISOString(),
      started: job.processedOn ? new Date(job.processedOn).toISOString() : null,
      finished: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
      seconds: job.finishedOn && job.processedOn ? (job.finishedOn - job.processedOn) / 1000 : null,
      account: data.account ?? null,
      error: failure ? { code: failure.code ?? null, message: failure.message } : null,
      import: null,
      export: null,
      budget: null,
      etaSeconds: null,
    };
    let pending = 0;
    if (data.importId) {
      const s = await importSummary(new ImportStore(redis, cfg.prefix), data.importId);
      const c = s.counts;
      pending = s.records - (c.created + c.exists + c.skipped + c.failed + c.unknown);
      // The worker writes the report where the import asked when that folder exists on its
      // machine (its result says so); the command that followed the import wrote it there too.
      const written = (job.returnvalue as { reportPath?: string } | null)?.reportPath ?? (state === 'completed' && data.reportPath && existsSync(data.reportPath) ? data.reportPath : undefined);
      show.import = { file: s.file, rows: s.rows, records: s.records, counts: { ...c }, ignored: s.ignored, pending, report: written ?? null, reportCommand: `buildsync jobs report ${data.importId} --out report.csv` };
    } else if (job.name === 'export-projects') {
      const r = job.returnvalue as { path?: string; projects?: number; bytes?: number; ms?: number } | null;
      const p = (typeof job.progress === 'object' ? job.progress : {}) as { projects?: number; bytes?: number };
      show.export = {
        path: r?.path ?? data.out ?? null,
        projects: r?.projects ?? p.projects ?? null,
        bytes: r?.bytes ?? p.bytes ?? null,
        seconds: r?.ms !== undefined ? r.ms / 1000 : null,
      };
    }
    let budgetLinesText: string[] = [];
    if (data.account) {
      const account = loadConfig({ account: data.account === 'default' ? undefined : data.account }).account;
      const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
      const b = await throttle.status();
      show.budget = b.windows.map((w) => ({ window: w.window, remaining: w.remaining, limit: w.limit }));
      budgetLinesText = budgetLines(b);
      // The ETA counts every window: 12,000 records at hour=500,day=10000 end tomorrow, not in 24 h.
      if (pending > 0) show.etaSeconds = Math.round((await throttle.estimateMs(pending)) / 1000);
    }
    if (json) {
      ctx.out(JSON.stringify(show));
      return 0;
    }
    ctx.out(`job       ${show.id} (${show.kind}) in ${show.queue}`);
    ctx.out(`state     ${state}${job.attemptsMade ? ` (attempts: ${job.attemptsMade})` : ''}`);
    ctx.out(`created   ${show.created}`);
    if (show.started) ctx.out(`started   ${show.started}`);
    if (show.finished) ctx.out(`finished  ${show.finished} (took ${took(job)})`);
    if (show.account) ctx.out(`account   ${show.account}`);
    if (show.error) ctx.out(`error     ${show.error.message}${show.error.code ? ` [${show.error.code}]` : ''}`);
    if (show.import) {
      const i = show.import;
      const c = i.counts;
      ctx.out(`file      ${i.file} (${count(i.rows, 'row')}, ${count(i.records, 'record')})`);
      ctx.out(`records   created ${c.created}, exists ${c.exists}, skipped ${c.skipped}, failed ${c.failed}, unknown ${c.unknown}; invalid rows ${c.invalidRows}; pending ${i.pending}`);
      const ignored = ignoredLine(i.ignored);
      if (ignored !== undefined) ctx.out(`ignored   ${ignored}`);
      if (i.report) ctx.out(`report    ${i.report}`);
      else if (state === 'completed') ctx.out(`report    not written on this machine${data.reportPath ? ` (${data.reportPath})` : ''}; write it with: ${i.reportCommand}`);
      else ctx.out(`report    written when the import ends${data.reportPath ? ` to ${data.reportPath}` : ''}; so far: ${i.reportCommand}`);
    } else if (show.export) {
      const e = show.export;
      if (e.path) ctx.out(`file      ${e.path}${state === 'completed' ? '' : ' (appears when complete)'}`);
      if (e.projects !== null) ctx.out(`projects  ${e.projects}${e.bytes !== null ? ` (${(e.bytes / 1e6).toFixed(1)} MB)` : ''}${state === 'completed' ? '' : ' so far'}`);
    } else if (job.returnvalue) {
      ctx.out(`result    ${JSON.stringify(job.returnvalue)}`);
    }
    for (const line of budgetLinesText) ctx.out(line);
    if (show.etaSeconds !== null) ctx.out(`eta       ${formatEta(show.etaSeconds * 1000)} for ${count(pending, 'pending record')} at this budget`);
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

export async function reportJob(ctx: CommandContext, id: string, out: string | undefined, errors: boolean): Promise<number> {
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
    // While the import runs, records without an outcome are `pending` (README, Reports, re-runs and `unknown`).
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
        ctx.err(count(rows, 'row') + ' to fix');
      } else {
        const rows = await writeErrorsFile(source, toFix, resolve(out));
        ctx.out(rows > 0 ? `wrote ${count(rows, 'row')} to fix to ${resolve(out)}` : `nothing to fix in import ${importId}`);
      }
      return 0;
    }
    if (toStdout) {
      for (const chunk of reportCsvChunks(await report(), await lineNameOf(store, importId))) process.stdout.write(chunk);
      return 0;
    }
    const n = await writeReport(store, importId, resolve(out), { running });
    ctx.out(`wrote ${count(n, 'report line')} to ${resolve(out)}`);
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
    if (p && typeof p === 'object' && typeof p.projects === 'number') return `${count(p.projects, 'project')} so far`;
    return '';
  }
  if ('path' in r) return `${count(Number(r.projects), 'project')} -> ${String(r.path)}`;
  if ('counts' in r) {
    const c = r.counts as Record<string, number>;
    const ignored = ignoredLine((r.ignored ?? {}) as IgnoredCounts);
    return `created ${c.created}, exists ${c.exists}, skipped ${c.skipped}, failed ${c.failed}, unknown ${c.unknown}, invalid rows ${c.invalidRows}${ignored ? `; ${ignored}` : ''}`;
  }
  return JSON.stringify(r).slice(0, 120);
}
