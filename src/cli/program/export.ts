import type { Command } from 'commander';
import { action } from '../command.ts';
import type { ExportFlags, ExportJson } from '../export-command.ts';
import { addExportOptions } from '../export-options.ts';
import { examples } from './examples.ts';

/** `buildsync export projects`; the work is in ../export-command.ts, loaded when it runs. */
export function registerExport(program: Command): void {
  const exp = program
    .command('export')
    .description('export data from the service')
    .addHelpText('after', examples(['buildsync export projects', 'buildsync export projects --out - --no-queue | gzip > projects.csv.gz']));
  addExportOptions(
    exp
      .command('projects')
      .description('write every visible project to one file, which appears only when complete')
      .option('--out <path>', 'output file, or - for standard output (default exports/projects-YYYY-MM-DD.csv, .jsonl or .xlsx); a name ending in .xlsx writes a workbook'),
  )
    .option('--no-queue', 'run the export in this process without Redis')
    .option('--detach', 'submit the job, print its id and return')
    .option('--json', 'print the summary as one JSON object on standard output (progress stays on standard error)')
    .addHelpText(
      'after',
      examples([
        'buildsync export projects                                   # exports/projects-YYYY-MM-DD.csv',
        'buildsync export projects --format jsonl --out all.jsonl',
        'buildsync export projects --out projects.xlsx                # a workbook for Excel: typed cells, one sheet Projects',
        'buildsync export projects --source paged --page-size 500 --my-documents official',
        'buildsync export projects --include-client-sub no --no-queue   # no Redis needed',
        'buildsync export projects --out - > projects.csv            # the file on standard output',
        'buildsync export projects --detach                          # print the job id and return',
      ]),
    )
    .action(
      action(async (ctx, flags: ExportFlags) => (await import('../export-command.ts')).exportProjectsCommand(ctx, flags), {
        // `--json` of an export that failed in this process (a bad flag value, no credentials, the service down…): the same keys.
        jsonFailure: ([flags], f): ExportJson => ({
          status: 'failed',
          jobId: null,
          path: null,
          format: flags.format === 'jsonl' || flags.format === 'xlsx' ? flags.format : flags.format === undefined && /\.xlsx$/i.test(flags.out ?? '') ? 'xlsx' : 'csv',
          projects: null,
          bytes: null,
          seconds: null,
          exitCode: f.exitCode,
          error: { code: f.code, message: f.message },
          to: flags.to === 'postgres' ? 'postgres' : 'file',
          changes: null,
          postgres: null,
        }),
      }),
    );
}
