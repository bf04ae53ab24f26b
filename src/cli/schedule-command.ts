import { resolve } from 'node:path';
import { UsageError } from '../errors/index.ts';
import { EXPORT_ATTEMPTS, exportJobData, JOB } from '../queue/index.ts';
import type { CommandContext } from './command.ts';
import { parseExportOptions, type ExportOptionFlags } from './export-options.ts';
import { configFor, openQueues, serviceAccount } from './runtime.ts';
import { count } from './wording.ts';

export interface ScheduleFlags extends ExportOptionFlags {
  cron: string;
  tz?: string;
  outDir: string;
  name?: string;
}

export async function upsertSchedule(ctx: CommandContext, flags: ScheduleFlags): Promise<number> {
  checkCron(flags.cron);
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
      // The parser's own wording ("Validation error, got …") is not ours: name the expression
      // and what to write; the parser's message stays in `cause` for a bug report.
      throw new UsageError(cronMessage(flags.cron), { cause: err });
    }
    // The firing time itself (BullMQ 6 keeps it in prevMillis); timestamp + delay can be a few ms
    // short of it, which prints a 02:00 run as 01:59:59.98.
    const at = next ? new Date(next.opts.prevMillis ?? next.timestamp + (next.opts.delay ?? 0)) : undefined;
    // --to postgres writes no file; --changes adds the changes file (docs/data-teams.md).
    const dest = data.to === 'postgres' ? `buildsync_projects of the worker's ${account.exportDatabaseVariable}` : `${data.outDir}/projects-YYYY-MM-DD.${data.format}`;
    const changes = data.changes ? ` + ${data.outDir}/projects-YYYY-MM-DD-changes.csv` : '';
    ctx.out(`schedule ${name}: ${flags.cron}${flags.tz ? ` (${flags.tz})` : ''} -> ${dest}${changes}${at ? `; next run ${inZone(at.getTime(), flags.tz)}` : ''}`);
    ctx.err('a worker must be running for it to fire: buildsync worker');
    return 0;
  } finally {
    await close();
  }
}

/** One schedule in `schedule list --json` (README, "Scripting"). */
export interface ScheduleJson {
  name: string;
  cron: string;
  /** The schedule's IANA zone; null: the zone of the worker that fires it. */
  tz: string | null;
  /** The next run, as an ISO 8601 instant (UTC), and as a wall-clock time in the schedule's zone. */
  next: string | null;
  nextInZone: string | null;
  outDir: string | null;
  format: string | null;
  /** Runs started so far (BullMQ counts the pending next run among its iterations). */
  runs: number;
}

export async function listSchedules(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const { queues, close } = await openQueues(configFor(ctx));
  try {
    const schedulers = await queues.exports.getJobSchedulers(0, -1, true);
    const schedules: ScheduleJson[] = schedulers.map((s) => {
      const d = (s.template?.data ?? {}) as { outDir?: string; format?: string };
      return {
        name: s.key,
        cron: s.pattern ?? `every ${s.every} ms`,
        tz: s.tz ?? null,
        next: s.next ? new Date(s.next).toISOString() : null,
        nextInZone: s.next ? inZone(s.next, s.tz) : null,
        outDir: d.outDir ?? null,
        format: d.format ?? null,
        runs: Math.max(0, (s.iterationCount ?? 1) - 1),
      };
    });
    if (opts.json) {
      ctx.out(JSON.stringify({ schedules }));
      return 0;
    }
    if (!schedules.length) {
      ctx.err('no schedules; add one with buildsync schedule export-projects --cron "0 2 * * *"');
      return 0;
    }
    ctx.out(['name', 'cron', 'next run', 'out-dir', 'runs'].join('\t'));
    for (const s of schedules) {
      ctx.out([s.name, s.cron, s.nextInZone ?? '', s.outDir ?? '', s.runs === 0 ? 'never run' : count(s.runs, 'run')].join('\t'));
    }
    return 0;
  } finally {
    await close();
  }
}

export async function removeSchedule(ctx: CommandContext, name: string): Promise<number> {
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

/**
 * A moment as wall-clock time in a schedule's zone, the zone named: "2026-11-24 02:00 Europe/Berlin".
 * Without a zone the schedule fires in its worker's zone; this machine's is the best guess, and
 * says so.
 */
export function inZone(ms: number, tz: string | undefined | null): string {
  const zone = tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const text = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).format(ms);
  return `${text} ${zone}${tz ? '' : ' (this machine\'s zone)'}`;
}

/** A cron field: *, ?, a number or name, a range, a step, or a list of those (with L, W and # of day fields). */
const CRON_FIELD = /^(\*|\?|[0-9A-Za-z]+[LW#0-9]*(-[0-9A-Za-z]+)?)(\/\d+)?(,(\*|[0-9A-Za-z]+[LW#0-9]*(-[0-9A-Za-z]+)?)(\/\d+)?)*$/;

/** Refuses, before Redis is asked, an expression that cannot be cron: the wrong number of fields or a field that is not one. */
export function checkCron(expr: string): void {
  const fields = expr.trim().split(/\s+/);
  if (expr.trim() === '' || fields.length < 5 || fields.length > 6 || !fields.every((f) => CRON_FIELD.test(f))) {
    throw new UsageError(cronMessage(expr));
  }
}

function cronMessage(expr: string): string {
  return `--cron ${JSON.stringify(expr)} is not a cron expression; write five fields, minute hour day-of-month month day-of-week, e.g. --cron "0 2 * * *" for 02:00 every night or "30 6 * * 1-5" for 06:30 on weekdays`;
}
