import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Redis } from 'ioredis';
import { writeFileAtomically } from '../csv/atomic-file.ts';
import { FileError } from '../errors/index.ts';
import { checkLedgerLines, exportLedger, importLedger, pruneLedger } from '../ledger/index.ts';
import { connectRedis } from '../queue/index.ts';
import { action, type CommandContext } from './command.ts';
import { EXIT } from './exit.ts';
import { intOption } from './options.ts';
import { configFor } from './runtime.ts';

/**
 * `buildsync ledger export | import | prune` (CONTRACT.md §2): the ledger as JSON Lines. The
 * account is the global --account (the ledger of `default` without it), the same name imports
 * write their ledger under. Keeping the ledger bounded is a scheduled `ledger prune` (cron):
 * nothing prunes on its own.
 */
export function registerLedger(program: Command): void {
  const ledger = program
    .command('ledger')
    .description('the ledger of created records as JSON Lines: back it up, move it to another Redis, forget old entries');
  ledger
    .command('export')
    .description('write the ledger of the account (--account, default: default) as JSON Lines')
    .option('--out <path>', 'where to write it (written whole or not at all); - or none: standard output')
    .action(action((ctx, opts: { out?: string }) => exportCommand(ctx, opts.out)));
  ledger
    .command('import <file>')
    .description('merge a ledger export into the account\'s ledger; a created record is never forgotten')
    .action(action((ctx, file: string) => importCommand(ctx, file)));
  ledger
    .command('prune')
    .description('forget created records older than --older-than days (claimed, sending and unknown entries are kept)')
    .option('--older-than <days>', 'age in days of the created entries to forget (default: BUILDSYNC_LEDGER_RETENTION_DAYS, 400)')
    .action(action((ctx, opts: { olderThan?: string }) => pruneCommand(ctx, opts.olderThan)));
}

async function exportCommand(ctx: CommandContext, out: string | undefined): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const unreadable: string[] = [];
  const onUnreadable = (key: string) => {
    unreadable.push(key);
    ctx.err(`ledger entry ${JSON.stringify(key)} of account ${account} is not JSON; left out of the export`);
  };
  let entries = 0;
  await withRedis(cfg.redisUrl, async (redis) => {
    const lines = exportLedger(redis, cfg.prefix, account, { onUnreadable });
    if (out === undefined || out === '-') {
      for await (const line of lines) {
        ctx.signal.throwIfAborted();
        entries++;
        if (!process.stdout.write(line)) await once(process.stdout, 'drain', { signal: ctx.signal });
      }
      ctx.err(`${entries} ledger entries of account ${account}`);
      return;
    }
    const path = resolve(out);
    const file = await writeFileAtomically(path);
    try {
      for await (const line of lines) {
        ctx.signal.throwIfAborted();
        entries++;
        await file.write(line);
      }
      await file.commit();
    } catch (err) {
      await file.abort().catch(() => {});
      throw err;
    }
    ctx.out(`wrote ${entries} ledger entries of account ${account} to ${path}`);
  });
  return unreadable.length ? EXIT.partial : EXIT.ok;
}

async function importCommand(ctx: CommandContext, file: string): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const path = resolve(file);
  await readable(path);
  // Every line is checked before anything is merged: a bad file changes nothing.
  await checkLedgerLines(readLines(path), account, { source: path });
  const counts = await withRedis(cfg.redisUrl, (redis) => importLedger(redis, cfg.prefix, account, readLines(path), { source: path, signal: ctx.signal }));
  ctx.out(`merged ${path} into the ledger of account ${account}: ${counts.added} added, ${counts.kept} already known and kept, ${counts.conflicts} conflicts`);
  if (!counts.conflicts) return EXIT.ok;
  for (const key of counts.conflictKeys) {
    ctx.err(`conflict: ${key} was created with another id than the ledger's; the ledger's id is kept. The service may hold this record twice: check it there.`);
  }
  if (counts.conflicts > counts.conflictKeys.length) ctx.err(`and ${counts.conflicts - counts.conflictKeys.length} more conflicts`);
  return EXIT.partial;
}

async function pruneCommand(ctx: CommandContext, olderThan: string | undefined): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const days = olderThan === undefined ? cfg.ledgerRetentionDays : intOption('--older-than', olderThan, 1, 36_500);
  const removed = await withRedis(cfg.redisUrl, async (redis) => {
    // The ledger writes `at` in the Redis server's time; the age is measured on the same clock.
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return pruneLedger(redis, cfg.prefix, account, days, now, { signal: ctx.signal });
  });
  ctx.out(`pruned ${removed} created ${removed === 1 ? 'entry' : 'entries'} older than ${days} days from the ledger of account ${account}`);
  return EXIT.ok;
}

async function withRedis<T>(url: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectRedis(url, 'producer');
  try {
    return await fn(redis);
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

async function readable(path: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(path)).isFile();
  } catch (err) {
    throw new FileError(path, `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (!isFile) throw new FileError(path, `${path} is not a file; give the path of a ledger export (JSON Lines)`);
}

/** The file's lines without their line ends (\n or \r\n). */
async function* readLines(path: string): AsyncIterable<string> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const rl = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } catch (err) {
    throw new FileError(path, `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  } finally {
    rl.close();
    input.destroy();
  }
}
