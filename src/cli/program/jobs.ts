import type { Command } from 'commander';
import { action } from '../command.ts';
import { intOption } from '../options.ts';
import { examples } from './examples.ts';

/** `buildsync jobs list|show|report`; the work is in ../jobs-command.ts, loaded when it runs. */
export function registerJobs(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('what ran, what it did, and the per-row report of an import')
    .addHelpText('after', examples(['buildsync jobs list', 'buildsync jobs show IMPORT_ID', 'buildsync jobs report IMPORT_ID > report.csv']));
  jobs
    .command('list')
    .description('recent exports and imports, newest first')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'print one JSON object { jobs: [...] } on standard output')
    .addHelpText('after', examples(['buildsync jobs list', 'buildsync jobs list --limit 100 --json']))
    .action(action(async (ctx, opts: { limit: string; json?: boolean }) => (await import('../jobs-command.ts')).listJobs(ctx, intOption('--limit', opts.limit, 1, 1000), Boolean(opts.json))));
  jobs
    .command('show <id>')
    .description('one job: state, timing, result or error; for an import its counts, where its report is, and the account\'s rate budget')
    .option('--json', 'print one JSON object on standard output')
    .addHelpText('after', examples(['buildsync jobs show import-2026-11-22-97d9a41b', 'buildsync jobs show export-mwr35f6w-c900a2 --json']))
    .action(action(async (ctx, id: string, opts: { json?: boolean }) => (await import('../jobs-command.ts')).showJob(ctx, id, Boolean(opts.json))));
  jobs
    .command('report <id>')
    .description('write the report CSV of an import (or, with --errors, its rows to fix)')
    .option('--out <path>', 'where to write it; - or none: standard output')
    .option('--errors', 'write the rows to fix (invalid, failed, unknown) with their original columns, source_line and error, ready to import again')
    .addHelpText(
      'after',
      examples([
        'buildsync jobs report IMPORT_ID > report.csv',
        'buildsync jobs report IMPORT_ID --out report.csv',
        'buildsync jobs report IMPORT_ID --errors --out fix.csv   # fix in a spreadsheet, then import fix.csv',
      ]),
    )
    .action(action(async (ctx, id: string, opts: { out?: string; errors?: boolean }) => (await import('../jobs-command.ts')).reportJob(ctx, id, opts.out, Boolean(opts.errors))));
}
