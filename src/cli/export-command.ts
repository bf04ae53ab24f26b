import { resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultExportPath, openSession, runExport } from '../engine/index.ts';
import { connectRedis, exportJobData, submitExport, type ExportJobResult } from '../queue/index.ts';
import { parseFailureReason, redactUrl } from '../errors/index.ts';
import { exitCodeOf } from './exit.ts';
import { action, type CommandContext } from './command.ts';
import { followJob } from './follow.ts';
import { addExportOptions, parseExportOptions, type ExportOptionFlags } from './export-options.ts';
import { createProgress } from './progress.ts';
import { AccountThrottle } from '../throttle/index.ts';
import { configFor, ensureWorker, openQueues, serviceAccount, timeScale } from './runtime.ts';

export interface ExportFlags extends ExportOptionFlags {
  out?: string;
  queue: boolean;
  detach?: boolean;
}

export function registerExport(program: Command): void {
  const exp = program.command('export').description('export data from the service');
  addExportOptions(
    exp
      .command('projects')
      .description('write every visible project to one file, which appears only when complete')
      .option('--out <path>', 'output file (default exports/projects-YYYY-MM-DD.csv or .jsonl)'),
  )
    .option('--no-queue', 'run the export in this process without Redis')
    .option('--detach', 'submit the job, print its id and return')
    .action(action((ctx, flags: ExportFlags) => exportProjectsCommand(ctx, flags)));
}

export async function exportProjectsCommand(ctx: CommandContext, flags: ExportFlags): Promise<number> {
  const options = parseExportOptions(flags);
  const spec = {
    ...options,
    // Absolute, so a worker in another directory writes where the user asked.
    out: resolve(flags.out ?? defaultExportPath(options.format)),
  };
  const cfg = configFor(ctx);
  const account = serviceAccount(ctx, cfg);

  if (!flags.queue) {
    // No queue, but the account's budget is still shared with every worker: every request takes
    // its token when Redis answers (CONTRACT.md §2, Budget); without Redis only 429s pace it.
    const redis = await connectRedis(cfg.redisUrl, 'producer').catch(() => undefined);
    if (redis === undefined) ctx.err(`export: no Redis answers at ${redactUrl(cfg.redisUrl)}; its requests take no token from the account's shared budget (only the service's 429s pace them)`);
    const session = openSession(account, { redis, prefix: cfg.prefix, connections: cfg.concurrency, timeScale: timeScale() });
    const progress = createProgress('export');
    try {
      const r = await runExport(session.client, spec, {
        signal: ctx.signal,
        onProgress: (p) => progress.update(p.projects, undefined, `projects, ${mb(p.bytes)}`),
      });
      progress.stop();
      ctx.out(`wrote ${r.projects} projects to ${r.path} (${mb(r.bytes)}) in ${(r.ms / 1000).toFixed(1)} s`);
      return 0;
    } finally {
      progress.stop();
      await session.close();
      await redis?.quit().catch(() => {});
    }
  }

  const { redis, queues, close } = await openQueues(cfg, ctx);
  try {
    const job = await submitExport(queues, exportJobData.parse({ account: account.name, ...spec }));
    if (flags.detach) {
      ctx.out(job.id!);
      return 0;
    }
    const worker = await ensureWorker(ctx, cfg, queues);
    const progress = createProgress('export');
    // A paged export makes one request per page: show the budget and any wait, as imports do.
    const throttle = new AccountThrottle({ redis, account: account.name, limits: account.limits, prefix: cfg.prefix, timeScale: timeScale() });
    let budgetText = '';
    let budgetAt = 0;
    try {
      const done = await followJob(ctx, queues.exports, job.id!, async (j) => {
        if (Date.now() - budgetAt > 1000) {
          budgetAt = Date.now();
          const b = await throttle.status();
          budgetText = b.reason ?? (b.tightest ? `${b.tightest.remaining} requests left this ${b.tightest.window}` : '');
        }
        const p = j.progress as { projects?: number; bytes?: number } | number;
        const n = typeof p === 'object' && p ? p : { projects: 0, bytes: 0 };
        progress.update(n.projects ?? 0, undefined, `projects, ${mb(n.bytes ?? 0)}${budgetText ? ` | ${budgetText}` : ''}`);
      });
      progress.stop();
      if (done.state === 'failed') {
        // The same exit code as the same failure in this process (CONTRACT.md §2).
        const f = parseFailureReason(done.job.failedReason);
        ctx.err(`buildsync: export job ${job.id} failed: ${f.message}${f.code ? ` [${f.code}]` : ''}`);
        return exitCodeOf(f.code);
      }
      const r = done.job.returnvalue as ExportJobResult;
      ctx.out(`wrote ${r.projects} projects to ${r.path} (${mb(r.bytes)}) in ${(r.ms / 1000).toFixed(1)} s [job ${job.id}]`);
      return 0;
    } finally {
      progress.stop();
      await worker?.close();
    }
  } finally {
    await close();
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
