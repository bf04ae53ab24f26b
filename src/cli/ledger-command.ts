import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { writeFileAtomically } from '../atomic-file.ts';
import { FileError } from '../errors/index.ts';
import { checkLedgerLines, exportLedger, importLedger, pruneLedger } from '../ledger/index.ts';
import type { CommandContext } from './command.ts';
import { EXIT } from './exit.ts';
import { intOption } from './options.ts';
import { configFor, withRedis } from './runtime.ts';
import { count } from './wording.ts';

/**
 * `buildsync ledger export | import | prune` (flags in program/ledger.ts): the ledger as JSON
 * Lines. Keeping the ledger bounded is a scheduled `ledger prune` (cron) or the workers' own
 * pruning (BUILDSYNC_LEDGER_RETENTION_DAYS).
 */
export async function ledgerExportCommand(ctx: CommandContext, out: string | undefined): Promise<number> {
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
      ctx.err(`${count(entries, 'ledger entry', 'ledger entries')} of account ${account}`);
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
    ctx.out(`wrote ${count(entries, 'ledger entry', 'ledger entries')} of account ${account} to ${path}`);
  });
  return unreadable.length ? EXIT.partial : EXIT.ok;
}

export async function ledgerImportCommand(ctx: CommandContext, file: string): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const path = resolve(file);
  await readable(path);
  // Every line is checked before anything is merged: a bad file changes nothing.
  await checkLedgerLines(readLines(path), account, { source: path });
  const counts = await withRedis(cfg.redisUrl, (redis) => importLedger(redis, cfg.prefix, account, readLines(path), { source: path, signal: ctx.signal }));
  ctx.out(`merged ${path} into the ledger of account ${account}: ${counts.added} added, ${counts.kept} already known and kept, ${count(counts.conflicts, 'conflict')}`);
  if (!counts.conflicts) return EXIT.ok;
  for (const key of counts.conflictKeys) {
    ctx.err(`conflict: ${key} was created with another id than the ledger's; the ledger's id is kept. The service may hold this record twice: check it there.`);
  }
  if (counts.conflicts > counts.conflictKeys.length) ctx.err(`and ${count(counts.conflicts - counts.conflictKeys.length, 'more conflict', 'more conflicts')}`);
  return EXIT.partial;
}

export async function ledgerPruneCommand(ctx: CommandContext, olderThan: string | undefined): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const days = olderThan === undefined ? cfg.ledgerRetentionDays : intOption('--older-than', olderThan, 1, 36_500);
  const removed = await withRedis(cfg.redisUrl, async (redis) => {
    // The ledger writes `at` in the Redis server's time; the age is measured on the same clock.
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return pruneLedger(redis, cfg.prefix, account, days, now, { signal: ctx.signal });
  });
  ctx.out(`pruned ${removed} created ${removed === 1 ? 'entry' : 'entries'} older than ${count(days, 'day')} from the ledger of account ${account}`);
  return EXIT.ok;
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
