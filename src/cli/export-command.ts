import { resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultExportPath, openSession, runExport } from '../engine/index.ts';
import { exportJobData, submitExport, type ExportJobResult } from '../queue/index.ts';
import { action, type CommandContext } from './command.ts';
import { followJob } from './follow.ts';
import { boolOption, choiceOption, intOption } from './options.ts';
import { createProgress } from './progress.ts';
import { configFor, ensureWorker, openQueues, serviceAccount } from './runtime.ts';

export interface ExportFlags {
  out?: string;
  format: string;
  includeClientSub: string;
  source: string;
  pageSize: string;
  myDocuments: string;
  queue: boolean;
  detach?: boolean;
}

export function registerExport(program: Command): void {
  const exp = program.command('export').description('export data from the service');
  exp
    .command('projects')
    .description('write every visible project to one file, which appears only when complete')
    .option('--out <path>', 'output file (default exports/projects-YYYY-MM-DD.csv or .jsonl)')
    .option('--format <format>', 'csv or jsonl', 'csv')
    .option('--include-client-sub <bool>', 'include projects where the user is client or subcontractor (v2 source)', 'true')
    .option('--source <source>', 'v2 (one streamed listing) or paged (skip/take pages)', 'v2')
    .option('--page-size <n>', 'records per page with --source paged', '500')
    .option('--my-documents <mode>', 'exclude, official or all "My Documents" pseudo-projects', 'exclude')
    .option('--no-queue', 'run the export in this process without Redis')
    .option('--detach', 'submit the job, print its id and return')
    .action(action((ctx, flags: ExportFlags) => exportProjectsCommand(ctx, flags)));
}

export async function exportProjectsCommand(ctx: CommandContext, flags: ExportFlags): Promise<number> {
  const format = choiceOption('--format', flags.format, ['csv', 'jsonl'] as const);
  const spec = {
    source: choiceOption('--source', flags.source, ['v2', 'paged'] as const),
    includeClientSub: boolOption('--include-client-sub', flags.includeClientSub),
    pageSize: intOption('--page-size', flags.pageSize, 2, 10_000),
    format,
    myDocuments: choiceOption('--my-documents', flags.myDocuments, ['exclude', 'official', 'all'] as const),
    // Absolute, so a worker in another directory writes where the user asked.
    out: resolve(flags.out ?? defaultExportPath(format)),
  };
  const cfg = configFor(ctx);
  const account = serviceAccount(ctx, cfg);

  if (!flags.queue) {
    const session = openSession(account, { prefix: cfg.prefix, connections: cfg.concurrency });
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
    }
  }

  const { queues, close } = await openQueues(cfg);
  try {
    const job = await submitExport(queues, exportJobData.parse({ account: account.name, ...spec }));
    if (flags.detach) {
      ctx.out(job.id!);
      return 0;
    }
    const worker = await ensureWorker(ctx, cfg, queues);
    const progress = createProgress('export');
    try {
      const done = await followJob(ctx, queues.exports, job.id!, (j) => {
        const p = j.progress as { projects?: number; bytes?: number } | number;
        if (typeof p === 'object' && p) progress.update(p.projects ?? 0, undefined, `projects, ${mb(p.bytes ?? 0)}`);
      });
      progress.stop();
      if (done.state === 'failed') {
        ctx.err(`export job ${job.id} failed: ${done.job.failedReason}`);
        return 1;
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
