import { resolve } from 'node:path';
import { templateCsv, writeTemplate, type TemplateKind } from '../import/template.ts';
import type { CommandContext } from './command.ts';

export interface TemplateFlags {
  out?: string;
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
