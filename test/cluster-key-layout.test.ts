/**
 * The key layout on a real Redis Cluster (README, Configuration, BUILDSYNC_PREFIX): each account's
 * budget and ledger in one slot of its own, the accounts spread over the masters, the queues of
 * an import (parent and record children) in the one slot of `{PREFIX}`, and scans that see the
 * keys of every master. Runs in the `cluster` vitest project only.
 */
import { FlowProducer } from 'bullmq';
import type { Cluster } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listAccounts } from '../src/dashboard/accounts.ts';
import { Ledger } from '../src/ledger/index.ts';
import { Queues } from '../src/queue/index.ts';
import { keySlot, masterNodes, nodeForKey, prefixPatterns, queuePrefix, scanAll, unlinkAll } from '../src/redis/layout.ts';
import { AccountThrottle } from '../src/throttle/index.ts';
import { runCli } from './helpers/cli.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
let cluster: Cluster;
beforeEach(async () => {
  t = await testRedis();
  cluster = t.redis as unknown as Cluster;
  await cluster.ping();
});
afterEach(() => t.cleanup());

const ACCOUNTS = Array.from({ length: 12 }, (_, i) => `acct${i}`);

/** Every key under `pattern` on every master. */
async function keysOf(pattern: string): Promise<string[]> {
  const out: string[] = [];
  for await (const keys of scanAll(cluster, pattern)) out.push(...keys);
  return out;
}

const serverSlot = async (key: string): Promise<number> => Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
const masterOfSlot = (slot: number): string => cluster.slots[slot]![0]!;

describe('key layout on a Redis Cluster', () => {
  it("keeps each account's budget and ledger in one slot, and spreads the accounts over every master", async () => {
    for (const account of ACCOUNTS) {
      // acquire runs a six-key script and claim a one-key one: a key outside the account's slot
      // would fail them with CROSSSLOT.
      const throttle = new AccountThrottle({ redis: t.redis, account, limits: { second: 5 }, prefix: t.prefix });
      const ticket = await throttle.acquire();
      expect(typeof ticket).toBe('string');
      throttle.settle(ticket as string);
      expect((await throttle.status()).account).toBe(account);
      const claim = await new Ledger(t.redis, t.prefix).claim(account, 'bill:ref:1', { owner: 'o', contentHash: 'h', importId: 'i', allowResend: false });
      expect(claim.action).toBe('send');
    }
    const keys = await keysOf(`${t.prefix}:*`);
    const byAccount = new Map<string, string[]>();
    for (const key of keys) {
      const account = /^[^:]+:\{([^}]+)\}:/.exec(key)?.[1];
      expect(account, `${key} carries its account as the hash tag`).toBeDefined();
      byAccount.set(account!, [...(byAccount.get(account!) ?? []), key]);
    }
    expect([...byAccount.keys()].sort()).toEqual([...ACCOUNTS].sort());

    const slots = new Map<string, number>();
    for (const [account, list] of byAccount) {
      expect(list.some((k) => k.endsWith(':ledger'))).toBe(true);
      expect(list.some((k) => k.endsWith(':throttle:log'))).toBe(true);
      // The server's own answer, and ours (the one WAIT and INFO are routed by) agree.
      const accountSlots = new Set(await Promise.all(list.map(serverSlot)));
      expect(accountSlots.size, `${account}: ${list.join(', ')}`).toBe(1);
      const [slot] = [...accountSlots];
      for (const key of list) expect(keySlot(key)).toBe(slot);
      slots.set(account, slot!);
    }
    // Two accounts, two slots; and twelve accounts reach every one of the three masters.
    expect(slots.get('acct0')).not.toBe(slots.get('acct1'));
    expect(new Set(slots.values()).size).toBe(ACCOUNTS.length);
    expect(new Set([...slots.values()].map(masterOfSlot)).size).toBe(masterNodes(cluster).length);
    expect(masterNodes(cluster)).toHaveLength(3);
  });

  it("sends key-less commands about an account (WAIT, INFO) to the master that owns the account's slot", async () => {
    // The masters by slot range, as the server tells them (CLUSTER NODES), not as the client caches them.
    const nodes = String(await cluster.call('CLUSTER', 'NODES'))
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => f[2]?.includes('master'));
    const ownerPort = (slot: number): number => {
      for (const f of nodes) {
        for (const range of f.slice(8)) {
          const [a, b = a] = range.split('-').map(Number);
          if (slot >= a! && slot <= b!) return Number(f[1]!.split(':')[1]!.split('@')[0]);
        }
      }
      throw new Error(`no master for slot ${slot}`);
    };
    const ports = new Set<number>();
    for (const account of ACCOUNTS) {
      const key = new Ledger(t.redis, t.prefix).key(account);
      const node = nodeForKey(cluster, key);
      const info = await node.info('server');
      const port = Number(/tcp_port:(\d+)/.exec(info)?.[1]);
      expect(port, account).toBe(ownerPort(await serverSlot(key)));
      ports.add(port);
      // WAIT on that connection answers (0 replicas here) instead of being refused or redirected.
      expect(await node.call('WAIT', '0', '100')).toBe(0);
    }
    expect(ports.size).toBe(3);
  });

  it('puts every queue key of an import, parent and record children in two queues, in the one slot of {PREFIX}', async () => {
    const queues = new Queues(t.redis, t.prefix);
    expect(queues.queuePrefix).toBe(`{${t.prefix}}`);
    const flow = new FlowProducer({ connection: t.redis, prefix: queuePrefix(t.redis, t.prefix) });
    try {
      await flow.add({
        name: 'import-bills',
        queueName: queues.imports.name,
        data: {},
        children: [1, 2, 3].map((n) => ({ name: 'send-bill', queueName: queues.records.name, data: { n } })),
      });
      await queues.exports.add('export-projects', {});
    } finally {
      await flow.close();
      await queues.close();
    }
    const keys = await keysOf(`{${t.prefix}}:*`);
    expect(keys.some((k) => k.startsWith(`{${t.prefix}}:${queues.imports.name}:`))).toBe(true);
    expect(keys.some((k) => k.startsWith(`{${t.prefix}}:${queues.records.name}:`))).toBe(true);
    expect(keys.some((k) => k.startsWith(`{${t.prefix}}:${queues.exports.name}:`))).toBe(true);
    const slots = new Set(await Promise.all(keys.map(serverSlot)));
    expect(slots).toEqual(new Set([keySlot(`{${t.prefix}}`)]));
    // Nothing of the queues outside the tag.
    expect(await keysOf(`${t.prefix}:buildsync-*`)).toEqual([]);
  });

  it("sees the keys of every master when it scans: the dashboard's accounts, and removing a prefix", async () => {
    for (const account of ACCOUNTS) {
      const throttle = new AccountThrottle({ redis: t.redis, account, limits: { second: 5 }, prefix: t.prefix });
      throttle.settle((await throttle.acquire()) as string);
    }
    // Each master holds some of them, so a scan of one node would miss the others'.
    const perMaster = await Promise.all(
      masterNodes(cluster).map(async (node) => {
        let n = 0;
        for await (const keys of node.scanStream({ match: `${t.prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) n += keys.length;
        return n;
      }),
    );
    expect(perMaster.every((n) => n > 0), `keys per master: ${perMaster.join(', ')}`).toBe(true);

    const accounts = await listAccounts({}, t.redis, t.prefix);
    expect(accounts).toEqual(['default', ...[...ACCOUNTS].sort()]);

    let removed = 0;
    for (const pattern of prefixPatterns(t.redis, t.prefix)) removed += await unlinkAll(t.redis, pattern);
    expect(removed).toBe(perMaster.reduce((a, b) => a + b, 0));
    expect(await keysOf(`${t.prefix}:*`)).toEqual([]);
  });
});

describe('configuration of a cluster', () => {
  const base = { BUILDSYNC_ALLOW_VOLATILE_REDIS: '1' };

  it('refuses braces in BUILDSYNC_PREFIX, saying that the tool adds the hash tags itself', async () => {
    const res = await runCli(['ledger', 'export'], { ...base, REDIS_URL, REDIS_CLUSTER: '1', BUILDSYNC_PREFIX: '{buildsync}' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('BUILDSYNC_PREFIX="{buildsync}": no braces');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  it('says to set REDIS_CLUSTER=1 when REDIS_URL names a cluster node without it, and to unset it for a single Redis', async () => {
    const plain = await runCli(['ledger', 'export'], { ...base, REDIS_URL, REDIS_CLUSTER: '0', BUILDSYNC_PREFIX: t.prefix });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('is a node of a Redis Cluster: set REDIS_CLUSTER=1');

    const single = await runCli(['ledger', 'export'], { ...base, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER: '1', BUILDSYNC_PREFIX: t.prefix });
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('is not a Redis Cluster');
    expect(single.stderr).not.toMatch(/\n\s+at /);

    const bad = await runCli(['ledger', 'export'], { ...base, REDIS_URL, REDIS_CLUSTER: 'yes', BUILDSYNC_PREFIX: t.prefix });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('REDIS_CLUSTER="yes"');
  });

  it('checks Redis on every master: `check` names the cluster and the permissions on each', async () => {
    const res = await runCli(['check', '--json'], { ...base, REDIS_URL, REDIS_CLUSTER: '1', BUILDSYNC_PREFIX: t.prefix });
    const report = JSON.parse(res.stdout) as { checks: Array<{ name: string; level: string; message: string }> };
    const redis = report.checks.find((c) => c.name === 'redis');
    expect(redis?.level, res.stdout).toBe('ok');
    expect(redis?.message).toContain('a Redis Cluster of 3 masters');
    const acl = report.checks.filter((c) => c.name === 'redis-acl');
    expect(acl, res.stdout).toHaveLength(1);
    expect(acl[0]).toMatchObject({ level: 'ok' });
    expect(acl[0]!.message).toContain('on every master (3)');
  });
});
