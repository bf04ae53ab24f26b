/**
 * The account's vendor list (README, "Vendor lists"): vendor name → VENDOR_ID, kept in Redis per
 * account, shared by `buildsync vendors import|list|remove`, bill imports that name vendors
 * without `--vendors`, and the import page. One hash per account (`vendorsKeyOf`): the field is
 * the name's key (`vendorKey`), the value `{"vendor": NAME as last written, "vendor_id": ID}`.
 * Names and IDs only: nothing secret ever goes in.
 */
import { vendorsKeyOf, type RedisConnection } from '../redis/layout.ts';
import { keyText } from '../values/key-text.ts';

/** One vendor of the list, as `vendors list --json` prints it. */
export interface VendorEntry {
  vendor: string;
  vendor_id: number;
}

/** What `import` did to the list: the names (as the file writes them) added, given another ID, or left as they were. */
export interface VendorImportCounts {
  added: string[];
  changed: string[];
  unchanged: string[];
}

/**
 * A vendor name as people read it, for comparing: case, leading and trailing spaces and runs of
 * spaces inside (no-break spaces and other Unicode spaces included) make no difference, so
 * "ACME  Supply\u00a0" is "Acme Supply". Used for the `--vendors` file's names too, so that a
 * name of the file and one of the list compare the same way.
 */
export function vendorKey(name: string): string {
  // The one rule every record key follows (values/key-text.ts): vendor names, bill refs and
  // category names compare alike.
  return keyText(name);
}

export class VendorStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
  ) {}

  key(account: string): string {
    return vendorsKeyOf(this.redis, this.prefix, account);
  }

  /** Every vendor of the account's list, ordered by name. */
  async list(account: string): Promise<VendorEntry[]> {
    const raw = await this.redis.hgetall(this.key(account));
    return Object.values(raw)
      .map(decode)
      .sort((a, b) => vendorKey(a.vendor).localeCompare(vendorKey(b.vendor)));
  }

  /**
   * Merges `entries` into the account's list in one HSET: a name already there (by `vendorKey`)
   * takes the file's ID and spelling; a name the file lacks stays. `entries` holds each key once.
   */
  async import(account: string, entries: readonly VendorEntry[]): Promise<VendorImportCounts> {
    const key = this.key(account);
    const counts: VendorImportCounts = { added: [], changed: [], unchanged: [] };
    if (entries.length === 0) return counts;
    // Kept as written, runs of spaces made one: the spelling `list` shows.
    entries = entries.map((e) => ({ vendor: e.vendor.replace(/\s+/gu, ' ').trim(), vendor_id: e.vendor_id }));
    const keys = entries.map((e) => vendorKey(e.vendor));
    const current = await this.redis.hmget(key, ...keys);
    const args: string[] = [];
    entries.forEach((e, i) => {
      const before = current[i] ? decode(current[i]!) : undefined;
      if (before === undefined) counts.added.push(e.vendor);
      else if (before.vendor_id !== e.vendor_id) counts.changed.push(e.vendor);
      else counts.unchanged.push(e.vendor);
      if (before === undefined || before.vendor_id !== e.vendor_id || before.vendor !== e.vendor) args.push(keys[i]!, encode(e));
    });
    if (args.length > 0) await this.redis.hset(key, ...args);
    return counts;
  }

  /** Removes `name` (compared by `vendorKey`); the entry removed, or undefined when the list has no such name. */
  async remove(account: string, name: string): Promise<VendorEntry | undefined> {
    const key = this.key(account);
    const field = vendorKey(name);
    const [[, value], [, removed]] = (await this.redis.multi().hget(key, field).hdel(key, field).exec()) as [[null, string | null], [null, number]];
    return removed === 1 && value ? decode(value) : undefined;
  }
}

function encode(e: VendorEntry): string {
  return JSON.stringify({ vendor: e.vendor, vendor_id: e.vendor_id });
}

function decode(text: string): VendorEntry {
  const v = JSON.parse(text) as VendorEntry;
  return { vendor: v.vendor, vendor_id: v.vendor_id };
}
