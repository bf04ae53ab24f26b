/**
 * The ledger as JSON Lines (README, Commands `ledger export | import | prune`, §1
 * BUILDSYNC_LEDGER_RETENTION_DAYS): export and import round-trip, importing never forgets a
 * created record, pruning forgets only old created entries, bad lines are named by number.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { DEFAULTS, loadConfig } from '../src/config.ts';
import { ConfigError, FileError } from '../src/errors/index.ts';
import { checkLedgerLines, exportLedger, importLedger, Ledger, pruneLedger } from '../src/ledger/index.ts';
import { testRedis } from './helpers/redis.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 15);

let t: Awaited<ReturnType<typeof testRedis>>;
let other: Awaited<ReturnType<typeof testRedis>>;
beforeEach(async () => {
  t = await testRedis();
  other = await testRedis();
});
afterEach(async () => {
  await t.cleanup();
  await other.cleanup();
});

const key = (prefix: string, account = 'default') => new Ledger(t.redis, prefix).key(account);

function created(id: number, at = NOW, extra: Record<string, unknown> = {}) {
  return { state: 'created', id, contentHash: `h${id}`, importId: 'imp-1', at, ...extra };
}
function inState(state: 'sending' | 'claimed' | 'unknown', at = NOW, extra: Record<string, unknown> = {}) {
  return { state, contentHash: 'h', importId: 'imp-1', at, ...extra };
}

async function put(redis: Redis, prefix: string, entries: Record<string, unknown>, account = 'default'): Promise<void> {
  const flat = Object.entries(entries).flatMap(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  await redis.hset(key(prefix, account), ...flat);
}

async function all(redis: Redis, prefix: string, account = 'default'): Promise<Record<string, unknown>> {
  const raw = await redis.hgetall(key(prefix, account));
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, JSON.parse(v)]));
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of lines) out.push(l);
  return out;
}

const line = (account: string, k: string, entry: unknown) => JSON.stringify({ account, key: k, entry });

describe('export and import', () => {
  it('round-trips every entry into another prefix, unknown fields included', async () => {
    await put(t.redis, t.prefix, {
      'estimate:project:1042': created(501),
      'bill:ref:INV-7|1042|55': inState('sending', NOW, { owner: 'w1:job-3:1', leaseUntil: NOW + 30_000 }),
      'bill:row:abc#0': inState('unknown', NOW, { reason: 'connection reset after sending' }),
      'bill:row:def#0': inState('claimed', NOW, { owner: 'w2', leaseUntil: NOW + 30_000 }),
      'estimate:project:7': created(77, NOW, { addedByALaterVersion: { nested: [1, 2] } }),
    });
    const lines = await collect(exportLedger(t.redis, t.prefix, 'default'));
    expect(lines).toHaveLength(5);
    for (const l of lines) {
      expect(l.endsWith('\n')).toBe(true);
      expect(Object.keys(JSON.parse(l))).toEqual(['account', 'key', 'entry']);
    }

    const counts = await importLedger(other.redis, other.prefix, 'default', lines.map((l) => l.trimEnd()));
    expect(counts).toEqual({ added: 5, kept: 0, conflicts: 0, conflictKeys: [] });
    expect(await all(other.redis, other.prefix)).toEqual(await all(t.redis, t.prefix));

    // Importing the same export again changes nothing.
    const again = await importLedger(other.redis, other.prefix, 'default', lines);
    expect(again).toEqual({ added: 0, kept: 5, conflicts: 0, conflictKeys: [] });
    expect(await all(other.redis, other.prefix)).toEqual(await all(t.redis, t.prefix));
  });

  it('exports a ledger too big for one HSCAN reply, each entry once, and only the account asked for', async () => {
    const entries: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) entries[`bill:row:${i}#0`] = created(i + 1);
    await put(t.redis, t.prefix, entries);
    await put(t.redis, t.prefix, { 'estimate:project:1': created(1) }, 'other');

    const lines = await collect(exportLedger(t.redis, t.prefix, 'default'));
    const keys = new Set(lines.map((l) => (JSON.parse(l) as { key: string }).key));
    expect(keys.size).toBe(3000);
    expect(lines.every((l) => (JSON.parse(l) as { account: string }).account === 'default')).toBe(true);

    const counts = await importLedger(other.redis, other.prefix, 'default', lines);
    expect(counts.added).toBe(3000);
    expect(await other.redis.hlen(key(other.prefix))).toBe(3000);
  });

  it('an entry that is not JSON is left out and named, not exported broken', async () => {
    await put(t.redis, t.prefix, { good: created(1), broken: '{not json' });
    await expect(collect(exportLedger(t.redis, t.prefix, 'default'))).rejects.toThrow(/"broken".*not JSON/);
    const skipped: string[] = [];
    const lines = await collect(exportLedger(t.redis, t.prefix, 'default', { onUnreadable: (k) => skipped.push(k) }));
    expect(skipped).toEqual(['broken']);
    expect(lines.map((l) => (JSON.parse(l) as { key: string }).key)).toEqual(['good']);
  });
});

describe('import never forgets a created record', () => {
  it('merges by state: created wins over anything else, an existing created is kept, other states only fill gaps', async () => {
    await put(other.redis, other.prefix, {
      kept_created: created(1),
      same_created: created(2),
      conflict: created(3),
      was_sending: inState('sending'),
      was_unknown: inState('unknown', NOW, { reason: 'here' }),
      unknown_stays: inState('unknown', NOW, { reason: 'the target knew it first' }),
    });
    const incoming = [
      line('default', 'kept_created', inState('sending')),
      line('default', 'same_created', created(2, NOW + 5)),
      line('default', 'conflict', created(33)),
      line('default', 'was_sending', created(4)),
      line('default', 'was_unknown', created(5)),
      line('default', 'unknown_stays', inState('claimed', NOW, { owner: 'x' })),
      line('default', 'absent_created', created(6)),
      line('default', 'absent_unknown', inState('unknown', NOW, { reason: 'from the backup' })),
    ];
    const counts = await importLedger(other.redis, other.prefix, 'default', incoming);
    expect(counts).toEqual({ added: 4, kept: 3, conflicts: 1, conflictKeys: ['conflict'] });

    const after = await all(other.redis, other.prefix);
    expect(after).toEqual({
      kept_created: created(1),
      same_created: created(2),
      conflict: created(3),
      was_sending: created(4),
      was_unknown: created(5),
      unknown_stays: inState('unknown', NOW, { reason: 'the target knew it first' }),
      absent_created: created(6),
      absent_unknown: inState('unknown', NOW, { reason: 'from the backup' }),
    });
  });
});

describe('prune', () => {
  it('removes only created entries older than the retention; claimed, sending and unknown stay however old', async () => {
    const old = NOW - 401 * DAY;
    await put(t.redis, t.prefix, {
      old_created: created(1, old),
      edge_created: created(2, NOW - 400 * DAY),
      young_created: created(3, NOW - 10 * DAY),
      old_sending: inState('sending', old),
      old_claimed: inState('claimed', old),
      old_unknown: inState('unknown', old, { reason: 'r' }),
      unreadable: '{not json',
    });
    expect(await pruneLedger(t.redis, t.prefix, 'default', DEFAULTS.ledgerRetentionDays, NOW)).toBe(1);
    expect(Object.keys(await t.redis.hgetall(key(t.prefix))).sort()).toEqual(
      ['edge_created', 'old_claimed', 'old_sending', 'old_unknown', 'unreadable', 'young_created'],
    );
    expect(await pruneLedger(t.redis, t.prefix, 'default', 5, NOW)).toBe(2);
    expect(Object.keys(await t.redis.hgetall(key(t.prefix))).sort()).toEqual(['old_claimed', 'old_sending', 'old_unknown', 'unreadable']);
  });

  it('works through a large ledger in batches and leaves other accounts alone', async () => {
    const entries: Record<string, unknown> = {};
    for (let i = 0; i < 2500; i++) entries[`k${i}`] = created(i + 1, i % 2 ? NOW - 500 * DAY : NOW);
    await put(t.redis, t.prefix, entries);
    await put(t.redis, t.prefix, { old: created(1, NOW - 500 * DAY) }, 'other');
    expect(await pruneLedger(t.redis, t.prefix, 'default', 400, NOW)).toBe(1250);
    expect(await t.redis.hlen(key(t.prefix))).toBe(1250);
    expect(await t.redis.hlen(key(t.prefix, 'other'))).toBe(1);
  });
});

describe('bad lines', () => {
  const good = line('default', 'a', created(1));
  const lines = [
    good,
    '{"account": "default", "key": "b", "entry": {',
    '',
    line('default', 'c', { state: 'created', contentHash: 'h', importId: 'i', at: NOW }),
    line('someone', 'd', created(4)),
    line('default', 'e', { ...created(5), state: 'done' }),
    JSON.stringify({ account: 'default', key: 'f', entry: created(6), extra: 1 }),
  ];

  it('are all named by line number before anything is written', async () => {
    const err = await checkLedgerLines(lines, 'default', { source: 'backup.jsonl' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as FileError).code).toBe('BUILDSYNC_FILE_UNREADABLE');
    const msg = (err as FileError).message;
    expect(msg).toMatch(/^backup\.jsonl: 5 bad lines/);
    expect(msg).toContain('line 2: not JSON');
    expect(msg).toContain('line 4: entry.id: a created entry needs the service\'s id');
    expect(msg).toContain('line 5: the entry belongs to account "someone", not default; import it with --account "someone"');
    expect(msg).toContain('line 6: entry.state: entry.state must be one of claimed, sending, created, unknown');
    expect(msg).toMatch(/line 7: .*extra/);
    expect(msg).not.toContain('line 1:');
    expect(msg).not.toContain('line 3:');
    expect(await t.redis.exists(key(t.prefix))).toBe(0);
  });

  it('a good file passes the check; a BOM and blank lines are fine', async () => {
    expect(await checkLedgerLines([`\uFEFF${good}`, '', line('default', 'b', created(2))], 'default')).toBe(2);
  });

  it('importLedger stops at the first bad line and names it', async () => {
    const err = await importLedger(t.redis, t.prefix, 'default', lines, { source: 'backup.jsonl' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as FileError).message).toMatch(/^backup\.jsonl: a bad line, nothing imported from it: line 2: not JSON/);
  });
});

describe('BUILDSYNC_LEDGER_RETENTION_DAYS', () => {
  it('defaults to 400 days and reads a whole number', () => {
    expect(loadConfig({ env: {} }).ledgerRetentionDays).toBe(400);
    expect(loadConfig({ env: { BUILDSYNC_LEDGER_RETENTION_DAYS: '' } }).ledgerRetentionDays).toBe(400);
    expect(loadConfig({ env: { BUILDSYNC_LEDGER_RETENTION_DAYS: '30' } }).ledgerRetentionDays).toBe(30);
  });

  it.each([
    ['forever', /BUILDSYNC_LEDGER_RETENTION_DAYS="forever": not a number; write a whole number of days, e\.g\. BUILDSYNC_LEDGER_RETENTION_DAYS=400/],
    ['1.5', /BUILDSYNC_LEDGER_RETENTION_DAYS="1\.5": must be a whole number of days/],
    ['0', /BUILDSYNC_LEDGER_RETENTION_DAYS="0": must be at least 1 day/],
    ['100000', /BUILDSYNC_LEDGER_RETENTION_DAYS="100000": must be at most 36500 days/],
  ])('refuses %s, naming the value', (value, message) => {
    let err: unknown;
    try {
      loadConfig({ env: { BUILDSYNC_LEDGER_RETENTION_DAYS: value } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(message);
  });
});
