import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { packageRoot } from '../package-root.ts';
import { installSignalHandlers, stdoutClaimed } from './command.ts';
import { EXIT } from '../errors/exit-codes.ts';
import { buildProgram } from './program/index.ts';

const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };

async function main(): Promise<void> {
  installSignalHandlers();
  // `buildsync … | head`: a reader that closed the pipe wants no more; that is no error. An output
  // file written to standard output (`--out -`) is another matter: its command says how much of
  // it went out and fails (stdout-copy.ts).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (stdoutClaimed()) return;
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  // Interactive commands show progress and a summary; their log lines would only clutter the
  // terminal, so they log warnings and errors unless LOG_LEVEL says otherwise. A worker logs info.
  if (!process.env.LOG_LEVEL && !process.argv.slice(2).includes('worker')) process.env.LOG_LEVEL = 'warn';
  const program = buildProgram(pkg.version);
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
