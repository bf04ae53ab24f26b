import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { Command, CommanderError } from 'commander';
import { EXIT } from './exit.ts';
import { installSignalHandlers } from './command.ts';
import { registerCheck } from './check-command.ts';
import { registerDemo } from './demo-command.ts';
import { registerDashboard } from './dashboard-command.ts';
import { registerExport } from './export-command.ts';
import { registerImport } from './import-command.ts';
import { registerJobs } from './jobs-command.ts';
import { registerLedger } from './ledger-command.ts';
import { registerSandbox } from './sandbox-command.ts';
import { registerSchedule } from './schedule-command.ts';
import { registerTemplate } from './template-command.ts';
import { registerWorker } from './worker-command.ts';

const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('buildsync')
    .description('Bulk import/export for the construction project-management service: project exports, estimate and bill imports, as BullMQ jobs throttled to the service\'s rate limits.')
    .version(pkg.version)
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
  registerSandbox(program);
  registerDashboard(program);
  registerDemo(program);
  registerTemplate(program);
  registerCheck(program);
  return program;
}

async function main(): Promise<void> {
  installSignalHandlers();
  // `buildsync … | head`: a reader that closed the pipe wants no more; that is no error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  // Interactive commands show progress and a summary; their log lines would only clutter the
  // terminal, so they log warnings and errors unless LOG_LEVEL says otherwise. A worker logs info.
  if (!process.env.LOG_LEVEL && !process.argv.slice(2).includes('worker')) process.env.LOG_LEVEL = 'warn';
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with exit 0; every other commander error is a usage error.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    throw err;
  }
}

await main();
