import type { Command } from 'commander';
import { action } from '../command.ts';
import { addExportOptions } from '../export-options.ts';
import type { ScheduleFlags } from '../schedule-command.ts';
import { examples } from './examples.ts';

/** `buildsync schedule export-projects|list|remove`; the work is in ../schedule-command.ts, loaded when it runs. */
export function registerSchedule(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('nightly exports through BullMQ job schedulers')
    .addHelpText('after', examples(['buildsync schedule export-projects --cron "0 2 * * *" --tz Europe/Berlin', 'buildsync schedule list', 'buildsync schedule remove export-projects-default']));
  addExportOptions(
    schedule
      .command('export-projects')
      .description('create or update a schedule that exports projects to DIR/projects-YYYY-MM-DD.csv (.jsonl, .xlsx)')
      .requiredOption('--cron <expr>', 'cron expression (minute hour day-of-month month day-of-week), e.g. "0 2 * * *" for 02:00 every night')
      .option('--tz <zone>', 'IANA time zone of the cron expression, e.g. America/Chicago (default: the worker\'s)')
      .option('--out-dir <dir>', 'folder for the dated files', 'exports')
      .option('--name <name>', 'schedule name (default export-projects-<account>)'),
  )
    .addHelpText(
      'after',
      examples([
        'buildsync schedule export-projects --cron "0 2 * * *"                       # 02:00 every night',
        'buildsync schedule export-projects --cron "30 6 * * 1-5" --tz America/Chicago --out-dir /srv/exports',
        'buildsync schedule export-projects --cron "0 3 * * *" --format jsonl --name nightly-jsonl',
        'buildsync schedule export-projects --cron "0 6 * * 1-5" --format xlsx --name office-xlsx   # a workbook for Excel',
      ]),
    )
    .action(action(async (ctx, flags: ScheduleFlags) => (await import('../schedule-command.ts')).upsertSchedule(ctx, flags)));
  schedule
    .command('list')
    .description('the schedules, with their next run in their own time zone')
    .option('--json', 'print one JSON object { schedules: [...] } on standard output')
    .addHelpText('after', examples(['buildsync schedule list', 'buildsync schedule list --json | jq -r \'.schedules[].name\'']))
    .action(action(async (ctx, opts: { json?: boolean }) => (await import('../schedule-command.ts')).listSchedules(ctx, opts)));
  schedule
    .command('remove <name>')
    .description('remove a schedule (files already written stay)')
    .addHelpText('after', examples(['buildsync schedule remove export-projects-default']))
    .action(action(async (ctx, name: string) => (await import('../schedule-command.ts')).removeSchedule(ctx, name)));
}
