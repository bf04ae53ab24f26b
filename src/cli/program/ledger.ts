import type { Command } from 'commander';
import { action } from '../command.ts';
import { examples } from './examples.ts';

/**
 * `buildsync ledger export|import|prune`; the work is in ../ledger-command.ts, loaded when it runs.
 * The account is the global --account (the ledger of `default` without it), the same name imports
 * write their ledger under.
 */
export function registerLedger(program: Command): void {
  const ledger = program
    .command('ledger')
    .description('the ledger of created records as JSON Lines: back it up, move it to another Redis, forget old entries')
    .addHelpText('after', examples(['buildsync ledger export --out ledger.jsonl', 'buildsync ledger import ledger.jsonl', 'buildsync ledger prune --older-than 400']));
  ledger
    .command('export')
    .description('write the ledger of the account (--account, default: default) as JSON Lines')
    .option('--out <path>', 'where to write it (written whole or not at all); - or none: standard output')
    .addHelpText('after', examples(['buildsync ledger export --out ledger.jsonl', 'buildsync --account acme ledger export | gzip > acme-ledger.jsonl.gz']))
    .action(action(async (ctx, opts: { out?: string }) => (await import('../ledger-command.ts')).ledgerExportCommand(ctx, opts.out)));
  ledger
    .command('import <file>')
    .description('merge a ledger export into the account\'s ledger; a created record is never forgotten')
    .addHelpText('after', examples(['buildsync ledger import ledger.jsonl', 'REDIS_URL=redis://new-redis:6379 buildsync --account acme ledger import acme-ledger.jsonl']))
    .action(action(async (ctx, file: string) => (await import('../ledger-command.ts')).ledgerImportCommand(ctx, file)));
  ledger
    .command('prune')
    .description('forget created records older than --older-than days (claimed, sending and unknown entries are kept)')
    .option('--older-than <days>', 'age in days of the created entries to forget (default: BUILDSYNC_LEDGER_RETENTION_DAYS, 400)')
    .addHelpText('after', examples(['buildsync ledger prune', 'buildsync --account acme ledger prune --older-than 90']))
    .action(action(async (ctx, opts: { olderThan?: string }) => (await import('../ledger-command.ts')).ledgerPruneCommand(ctx, opts.olderThan)));
}
