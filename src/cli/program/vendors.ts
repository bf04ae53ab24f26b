import type { Command } from 'commander';
import { action } from '../command.ts';
import { examples } from './examples.ts';

/**
 * `buildsync vendors import|list|remove`; the work is in ../vendors-command.ts, loaded when it
 * runs. The account is the global --account (`default` without it), whose bill imports read the
 * list when they name vendors and --vendors is not given.
 */
export function registerVendors(program: Command): void {
  const vendors = program
    .command('vendors')
    .description('the account\'s vendor list (vendor name -> VENDOR_ID, kept in Redis): what bill imports read when they name vendors and --vendors is not given')
    .addHelpText('after', examples(['buildsync vendors import vendors.csv', 'buildsync vendors list', 'buildsync vendors remove "Acme Supply"']));
  vendors
    .command('import <file>')
    .description('merge a vendor,vendor_id CSV (or .xlsx) into the account\'s vendor list; says which names were added, changed and unchanged')
    .addHelpText('after', examples(['buildsync vendors import vendors.csv', 'buildsync --account acme vendors import acme-vendors.xlsx']))
    .action(action(async (ctx, file: string) => (await import('../vendors-command.ts')).vendorsImportCommand(ctx, file)));
  vendors
    .command('list')
    .description('the account\'s vendor list as vendor,vendor_id CSV (ready for vendors import), ordered by name')
    .option('--json', 'print a JSON array of {"vendor": NAME, "vendor_id": ID} on standard output')
    .addHelpText('after', examples(['buildsync vendors list > vendors.csv', 'buildsync --account acme vendors list --json']))
    .action(action(async (ctx, opts: { json?: boolean }) => (await import('../vendors-command.ts')).vendorsListCommand(ctx, Boolean(opts.json))));
  vendors
    .command('remove <name>')
    .description('remove one vendor from the account\'s vendor list (the name compared ignoring case and spaces)')
    .addHelpText('after', examples(['buildsync vendors remove "Acme Supply"', 'buildsync --account acme vendors remove "acme supply"']))
    .action(action(async (ctx, name: string) => (await import('../vendors-command.ts')).vendorsRemoveCommand(ctx, name)));
}
