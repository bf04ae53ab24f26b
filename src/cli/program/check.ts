import type { Command } from 'commander';
import { action } from '../command.ts';
import { examples } from './examples.ts';

/** `buildsync check`; the checks are in src/check/, printed by ../check-command.ts. */
export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('check the configuration, Redis (reachable, credentials, ACL permissions, persistence, eviction policy), the service (one read, counted in the budget) and the budget left; sends nothing that writes')
    .option('--json', 'print one JSON object { ok, exitCode, checks: [{ name, ok, level, message }] } instead of the lines')
    .addHelpText('after', examples(['buildsync check', 'buildsync --account acme check --json']))
    .action(action(async (ctx, opts: { json?: boolean }) => (await import('../check-command.ts')).checkCommand(ctx, opts)));
}
