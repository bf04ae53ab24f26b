import { Command } from 'commander';
import { examples } from './examples.ts';
import { registerCheck } from './check.ts';
import { registerDashboard } from './dashboard.ts';
import { registerDemo } from './demo.ts';
import { registerExport } from './export.ts';
import { registerImport } from './import.ts';
import { registerJobs } from './jobs.ts';
import { registerLedger } from './ledger.ts';
import { registerSandbox } from './sandbox.ts';
import { registerSchedule } from './schedule.ts';
import { registerTemplate } from './template.ts';
import { registerVendors } from './vendors.ts';
import { registerWorker } from './worker.ts';

/**
 * Every command's flags, help and examples. These modules import commander and a few light
 * helpers only: each command's work (BullMQ, ioredis, undici, exceljs, express, zod…) is loaded
 * by a dynamic import() when the command runs, so that `--version` and `--help` start at once.
 * test/cli-startup-imports.test.ts checks that nothing heavy is reachable from here statically.
 */
export function buildProgram(version: string): Command {
  const program = new Command('buildsync')
    .description('Bulk import/export for the construction project-management service: project exports, estimate and bill imports, as BullMQ jobs throttled to the service\'s rate limits.')
    .version(version)
    .option('--account <name>', 'use BUILDSYNC_<NAME>_* variables (own credentials and rate budget)')
    .option('--allow-insecure-http', 'allow plain http:// to a host other than loopback')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerExport(program);
  registerImport(program);
  registerWorker(program);
  registerSchedule(program);
  registerJobs(program);
  registerLedger(program);
  registerVendors(program);
  registerSandbox(program);
  registerDashboard(program);
  registerDemo(program);
  registerTemplate(program);
  registerCheck(program);
  program.addHelpText(
    'after',
    examples([
      'buildsync demo                                  # try everything against the built-in sandbox',
      'buildsync check                                 # configuration, Redis, the service and the budget',
      'buildsync export projects --out -               # every project as CSV on standard output',
      'buildsync import bills bills.csv --vendors vendors.csv --json',
      'buildsync worker                                # run the queued jobs until Ctrl-C',
      'buildsync <command> --help                      # a command\'s flags and examples',
    ]),
  );
  return program;
}
