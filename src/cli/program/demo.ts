import type { Command } from 'commander';
import { action } from '../command.ts';
import { examples } from './examples.ts';

/** `buildsync demo`; the work is in ../demo-command.ts, loaded when it runs. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('start the sandbox, export its projects, import samples/estimates.csv and samples/bills.csv through the queue, and say where the outputs are')
    .option('--out-dir <dir>', 'where the demo writes its files', 'buildsync-demo')
    .addHelpText('after', examples(['buildsync demo', 'buildsync demo --out-dir /tmp/buildsync-demo']))
    .action(action(async (ctx, opts: { outDir: string }) => (await import('../demo-command.ts')).demoCommand(ctx, opts.outDir)));
}
