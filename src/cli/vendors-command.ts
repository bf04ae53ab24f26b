import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { FileError, UsageError } from '../errors/index.ts';
import { ambiguityOf, readVendorsFile } from '../mapping/index.ts';
import { VendorStore, type VendorEntry } from '../vendors/vendor-store.ts';
import type { CommandContext } from './command.ts';
import { EXIT } from './exit.ts';
import { configFor, withRedis } from './runtime.ts';
import { count } from './wording.ts';

/**
 * `buildsync vendors import | list | remove` (flags in program/vendors.ts): the account's vendor
 * list in Redis (src/vendors/vendor-store.ts), which bill imports read when `--vendors` is not given.
 */
export async function vendorsImportCommand(ctx: CommandContext, file: string): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const path = resolve(file);
  const byName = await readVendorsFile(path, ctx.signal);
  // A name given two IDs cannot go into the list: which one is meant is the user's call.
  const ambiguous = [...byName.values()].filter((e) => e.ids.length > 1);
  if (ambiguous.length > 0) {
    const shown = ambiguous.slice(0, 5).map((e) => ambiguityOf(e, path)).join('; ') + (ambiguous.length > 5 ? `; and ${ambiguous.length - 5} more` : '');
    throw new FileError(path, `${shown}. Keep one line per vendor in ${path}; nothing was imported.`);
  }
  const entries: VendorEntry[] = [...byName.values()].map((e) => ({ vendor: e.name, vendor_id: e.ids[0]! }));
  const counts = await withRedis(cfg.redisUrl, (redis) => new VendorStore(redis, cfg.prefix).import(account, entries));
  ctx.out(`vendor list of account ${account}: ${counts.added.length} added, ${counts.changed.length} changed, ${counts.unchanged.length} unchanged (from ${path})`);
  if (counts.added.length > 0) ctx.out(`added: ${names(counts.added)}`);
  if (counts.changed.length > 0) ctx.out(`changed: ${names(counts.changed)}`);
  return EXIT.ok;
}

export async function vendorsListCommand(ctx: CommandContext, json: boolean): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const entries = await withRedis(cfg.redisUrl, (redis) => new VendorStore(redis, cfg.prefix).list(account));
  if (json) ctx.out(JSON.stringify(entries));
  else {
    // The form `vendors import` and --vendors read: a listing is a backup too.
    process.stdout.write(stringify([['vendor', 'vendor_id'], ...entries.map((e) => [e.vendor, String(e.vendor_id)])]));
    ctx.err(`${count(entries.length, 'vendor')} in the vendor list of account ${account}`);
  }
  return EXIT.ok;
}

export async function vendorsRemoveCommand(ctx: CommandContext, name: string): Promise<number> {
  const cfg = configFor(ctx);
  const account = cfg.account.name;
  const removed = await withRedis(cfg.redisUrl, (redis) => new VendorStore(redis, cfg.prefix).remove(account, name));
  if (removed === undefined) throw new UsageError(`no vendor ${JSON.stringify(name)} in the vendor list of account ${account}; see buildsync vendors list`);
  ctx.out(`removed ${JSON.stringify(removed.vendor)} (vendor_id ${removed.vendor_id}) from the vendor list of account ${account}`);
  return EXIT.ok;
}

/** Names for one line: `"Acme Supply", "Keystone Electric"`, the first 20 and how many more. */
function names(list: string[]): string {
  const shown = list.slice(0, 20).map((n) => JSON.stringify(n)).join(', ');
  return list.length > 20 ? `${shown} and ${list.length - 20} more` : shown;
}
