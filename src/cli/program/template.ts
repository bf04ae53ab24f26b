import { Argument, type Command } from 'commander';
import { action } from '../command.ts';
import type { TemplateFlags } from '../template-command.ts';
import { examples } from './examples.ts';

/** `buildsync template estimates|bills`; the work is in ../template-command.ts, loaded when it runs. */
export function registerTemplate(program: Command): void {
  program
    .command('template')
    .description('write an empty spreadsheet with every column of an import and one example row, to fill in')
    .addArgument(new Argument('<kind>', 'what the spreadsheet imports').choices(['estimates', 'bills']))
    .option('--out <path>', 'file to write: .xlsx by the name, otherwise CSV; - for standard output (default); an existing file is not overwritten')
    .addHelpText('after', examples(['buildsync template estimates --out estimates.xlsx', 'buildsync template bills > bills.csv']))
    .action(action(async (ctx, kind: 'estimates' | 'bills', flags: TemplateFlags) => (await import('../template-command.ts')).templateCommand(ctx, kind, flags)));
}
