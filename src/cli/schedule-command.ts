import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors/index.ts';
import { EXPORT_ATTEMPTS, exportJobData, JOB } from '../queue/index.ts';
import { action, type CommandContext } from './command.ts';
import { addExportOptions, parseExportOptions, type ExportOptionFlags } from './export-options.ts';
import { configFor, openQueues, serviceAccount } from './runtime.ts';

interface ScheduleFlags extends ExportOptionFlags {
  cron: string;
  tz?: string;
  outDir: string;
  name?: string;
}

export function registerSchedule(program: Command): void {
  const schedule = program.command('schedule').description('nightly exports through BullMQ job schedulers');
  addExportOptions(
    schedule
      .command('export-projects')
      .description('create or update a schedule that exports projects to DIR/projects-YYYY-MM-DD.csv')
      .requiredOption('--cron <expr>', 'cron expression, e.g. "0 2 * * *" for 02:00 every night')
      .option('--tz <zone>', 'IANA time zone of the cron expression, e.g. America/Chicago (default: the worker\'s)')
      .option('--out-dir <dir>', 'folder for the dated files', 'exports')
      .option('--name <name>', 'schedule name (default export-projects-<account>)'),
  ).action(action((ctx, flags: ScheduleFlags) => upsert(ctx, flags)));
  schedule
    .command('list')
    .description('the schedules, with their next run')
    .action(action((ctx) => list(ctx)));
  schedule
    .command('remove <name>')
    .description('remove a schedule (files already written stay)')
    .action(action((ctx, name: string) => remove(ctx, name)));
}

async function upsert(ctx: CommandContext, flags: ScheduleFlags): Promise<number> {
  const cfg = configFor(ctx);
  const account = serviceAccount(ctx, cfg);
  if (flags.tz !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: flags.tz });
    } catch {
      throw new UsageError(`--tz ${JSON.stringify(flags.tz)} is not a time zone; write an IANA name like Europe/Berlin`);
    }
  }
  const data = exportJobData.parse({
    account: account.name,
    ...parseExportOptions(flags),
    outDir: resolve(flags.outDir),
  });
  const name = flags.name ?? `export-projects-${account.name}`;
  const { queues, close } = await openQueues(cfg);
  try {
    let next;
    try {
      // One scheduler per name: BullMQ creates exactly one job per firing, so two workers never
      // run the same night's export twice.
      next = await queues.exports.upsertJobScheduler(
        name,
        { pattern: flags.cron, ...(flags.tz ? { tz: flags.tz } : {}) },
        { name: JOB.exportProjects, data, opts: { attempts: EXPORT_ATTEMPTS, backoff: { type: 'custom' } } },
      );
    } catch (err) {
      throw new UsageError(`--cron ${JSON.stringify(flags.cron)}: ${(err as Error).message}; write five fields like "0 2 * * *"`);
    }
    // The firing time itself (BullMQ 6 keeps it in prevMillis); timestamp + delay can be a few ms
    // short of it, which prints a 02:00 run as 01:59:59.98.
    const at = next ? new Date(next.opts.prevMillis ?? next.timestamp + (next.opts.delay ?? 0)) : undefined;
    ctx.out(`schedule ${name}: ${flags.cron}${flags.tz ? ` (${flags.tz})` : ''} -> ${data.outDir}/projects-YYYY-MM-DD.${data.format}${at ? `; next run ${at.toISOString()}` : ''}`);
    ctx.err('a worker must be running for it to fire: buildsync worker');
    return 0;
  } finally {
    await close();
  }
}

async function list(ctx: CommandContext): Promise<number> {
  const { queues, close } = await openQueues(configFor(ctx));
  try {
    const schedulers = await queues.exports.getJobSchedulers(0, -1, true);
    if (!schedulers.length) {
      ctx.err('no schedules; add one with buildsync schedule export-projects --cron "0 2 * * *"');
      return 0;
    }
    ctx.out(['name', 'cron', 'tz', 'next', 'out-dir', 'runs'].join('\t'));
    for (const s of schedulers) {
      const d = (s.template?.data ?? {}) as { outDir?: string };
      ctx.out([s.key, s.pattern ?? `every ${s.every} ms`, s.tz ?? '', s.next ? new Date(s.next).toISOString() : '', d.outDir ?? '', String(s.iterationCount ?? 0)].join('\t'));
    }
    return 0;
  } finally {
    await close();
  }
}

async function remove(ctx: CommandContext, name: string): Promise<number> {
  const { queues, close } = await openQueues(configFor(ctx));
  try {
    if (!(await queues.exports.removeJobScheduler(name))) {
      throw new UsageError(`no schedule named ${name}; see buildsync schedule list`);
    }
    ctx.out(`removed schedule ${name}`);
    return 0;
  } finally {
    await close();
  }
}
