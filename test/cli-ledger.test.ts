/**
 * `buildsync ledger export | import | prune` through the CLI as a child process (README, Commands):
 * JSON Lines on standard output or written whole to --out, merged by import, pruned by age with
 * BUILDSYNC_LEDGER_RETENTION_DAYS as the default; bad input exits 2 naming the line.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Ledger } from '../src/ledger/index.ts';
import { runCli } from './helpers/cli.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

const DAY = 86_400_000;

let t: Awaited<ReturnType<typeof testRedis>>;
let target: Awaited<ReturnType<typeof testRedis>>;
let dir: string;
beforeEach(async () => {
  t = await testRedis();
  target = await testRedis();
  dir = mkdtempSync(join(tmpdir(), 'buildsync-ledger-'));
});
afterEach(async () => {
  await t.cleanup();
  await target.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const env = (prefix: string, extra: Record<string, string> = {}) => ({
  REDIS_URL,
  BUILDSYNC_PREFIX: prefix,
  BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
  // Never needed by the ledger commands, and never printed.
  BUILDSYNC_PASSWORD: 'hunter2-secret',
  BUILDSYNC_API_KEY: 'api-key-secret',
  ...extra,
});

const ledgerKey = (prefix: string, account = 'default') => new Ledger(t.redis, prefix).key(account);
const created = (id: number, at: number) => JSON.stringify({ state: 'created', id, contentHash: `h${id}`, importId: 'imp', at });

function noSecrets(out: { stdout: string; stderr: string }): void {
  expect(out.stdout + out.stderr).not.toMatch(/hunter2-secret|api-key-secret/);
}

describe('buildsync ledger', () => {
  it('export to standard output and to a file, import into another prefix, with --account', async () => {
    const now = Date.now();
    await t.redis.hset(ledgerKey(t.prefix), 'estimate:project:1042', created(1, now), 'bill:ref:INV-7|1042|55', JSON.stringify({ state: 'unknown', contentHash: 'h', importId: 'imp', reason: 'r', at: now }));
    await t.redis.hset(ledgerKey(t.prefix, 'north'), 'estimate:project:9', created(9, now));

    const out = join(dir, 'backup', 'north.jsonl');
    // Independent runs go side by side: each CLI start costs seconds.
    const [stdout, toFile] = await Promise.all([
      runCli(['ledger', 'export'], env(t.prefix)),
      runCli(['ledger', 'export', '--account', 'north', '--out', out], env(t.prefix)),
    ]);
    expect(stdout.code, stdout.stderr).toBe(0);
    const lines = stdout.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { account: string; key: string });
    expect(lines.map((l) => l.key).sort()).toEqual(['bill:ref:INV-7|1042|55', 'estimate:project:1042']);
    expect(lines.every((l) => l.account === 'default')).toBe(true);
    expect(stdout.stderr).toContain('2 ledger entries of account default');
    noSecrets(stdout);

    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toContain(`wrote 1 ledger entry of account north to ${out}`);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ account: 'north', key: 'estimate:project:9', entry: { state: 'created', id: 9 } });
    expect(readdirSync(join(dir, 'backup'))).toEqual(['north.jsonl']); // no temporary file left behind

    const file = join(dir, 'default.jsonl');
    writeFileSync(file, stdout.stdout);
    const [imported, north] = await Promise.all([
      runCli(['ledger', 'import', file], env(target.prefix)),
      runCli(['--account', 'north', 'ledger', 'import', out], env(target.prefix)),
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('into the ledger of account default: 2 added, 0 already known and kept, 0 conflicts');
    expect(await target.redis.hgetall(ledgerKey(target.prefix))).toEqual(await t.redis.hgetall(ledgerKey(t.prefix)));
    noSecrets(imported);

    expect(north.code, north.stderr).toBe(0);
    expect(await target.redis.hget(ledgerKey(target.prefix, 'north'), 'estimate:project:9')).toBe(created(9, now));
  }, 60_000);

  it('import: a line of another account or a bad line exits 2 naming it and merges nothing; a conflict exits 1', async () => {
    const now = Date.now();
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ account: 'default', key: 'a', entry: JSON.parse(created(1, now)) }),
        JSON.stringify({ account: 'north', key: 'b', entry: JSON.parse(created(2, now)) }),
        '{"account":',
      ].join('\n') + '\n',
    );
    const [bad, missing] = await Promise.all([
      runCli(['ledger', 'import', file], env(target.prefix)),
      runCli(['ledger', 'import', join(dir, 'nope.jsonl')], env(target.prefix)),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('2 bad lines');
    expect(bad.stderr).toContain('line 2: the entry belongs to account "north", not default');
    expect(bad.stderr).toContain('line 3: not JSON');
    expect(bad.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await target.redis.exists(ledgerKey(target.prefix))).toBe(0);

    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.jsonl');

    await target.redis.hset(ledgerKey(target.prefix), 'a', created(1, now));
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, JSON.stringify({ account: 'default', key: 'a', entry: JSON.parse(created(99, now)) }) + '\n');
    const conflict = await runCli(['ledger', 'import', other], env(target.prefix));
    expect(conflict.code).toBe(1);
    expect(conflict.stdout).toContain('0 added, 0 already known and kept, 1 conflict');
    expect(conflict.stderr).toContain('conflict: a was created with another id');
    expect(await target.redis.hget(ledgerKey(target.prefix), 'a')).toBe(created(1, now));
  }, 60_000);

  it('prune: --older-than, and BUILDSYNC_LEDGER_RETENTION_DAYS as its default; other states stay', async () => {
    const now = Date.now();
    const key = ledgerKey(t.prefix);
    await t.redis.hset(
      key,
      'ancient',
      created(1, now - 500 * DAY),
      'month',
      created(2, now - 40 * DAY),
      'fresh',
      created(3, now - DAY),
      'ancient_unknown',
      JSON.stringify({ state: 'unknown', contentHash: 'h', importId: 'imp', reason: 'r', at: now - 900 * DAY }),
      'ancient_sending',
      JSON.stringify({ state: 'sending', contentHash: 'h', importId: 'imp', at: now - 900 * DAY }),
    );

    // The refused runs change nothing, so they run beside the first prune.
    const [byDefault, byFlag, badEnv] = await Promise.all([
      runCli(['ledger', 'prune'], env(t.prefix)),
      runCli(['ledger', 'prune', '--older-than', '0'], env(t.prefix)),
      runCli(['ledger', 'prune'], env(t.prefix, { BUILDSYNC_LEDGER_RETENTION_DAYS: 'forever' })),
    ]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toContain('pruned 1 created entry older than 400 days from the ledger of account default');

    const byEnv = await runCli(['ledger', 'prune'], env(t.prefix, { BUILDSYNC_LEDGER_RETENTION_DAYS: '30' }));
    expect(byEnv.stdout).toContain('pruned 1 created entry older than 30 days');

    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toContain('--older-than "0": expected a whole number from 1 to 36500');

    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('BUILDSYNC_LEDGER_RETENTION_DAYS="forever": not a number');

    expect(Object.keys(await t.redis.hgetall(key)).sort()).toEqual(['ancient_sending', 'ancient_unknown', 'fresh']);
  }, 60_000);
});
