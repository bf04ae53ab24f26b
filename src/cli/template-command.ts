import { resolve } from 'node:path';
import { Argument, type Command } from 'commander';
import { templateCsv, writeTemplate, type TemplateKind } from '../engine/template.ts';
import { action, type CommandContext } from './command.ts';

export interface TemplateFlags {
  out?: string;
}

export function registerTemplate(program: Command): void {
  program
    .command('template')
    .description('write an empty spreadsheet with every column of an import and one example row, to fill in')
    .addArgument(new Argument('<kind>', 'what the spreadsheet imports').choices(['estimates', 'bills']))
    .option('--out <path>', 'file to write: .xlsx by the name, otherwise CSV; - for standard output (default); an existing file is not overwritten')
    .action(action((ctx, kind: TemplateKind, flags: TemplateFlags) => templateCommand(ctx, kind, flags)));
}

export async function templateCommand(ctx: CommandContext, kind: TemplateKind, flags: TemplateFlags): Promise<number> {
  if (flags.out === undefined || flags.out === '-') {
    // ctx.out adds the line's newline.
    ctx.out(templateCsv(kind).replace(/\n$/, ''));
    return 0;
  }
  const path = resolve(flags.out);
  const format = await writeTemplate(kind, path);
  ctx.err(`wrote the ${kind} template (${format === 'xlsx' ? '.xlsx' : 'CSV'}) to ${path}; fill it in and run: buildsync import ${kind} ${flags.out}`);
  return 0;
}
