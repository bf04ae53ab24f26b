/**
 * The pure rules behind running on a Redis Cluster (no cluster needed; the `cluster` project
 * checks them against a real one): the slot of a key, the key layout of each family on one Redis
 * and on a cluster, and the durability of several masters read as the weakest of them.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { durabilityDecision, weakestFacts, type RedisDurabilityFacts } from '../src/ledger/durability.ts';
import { importKeyOf, keySlot, ledgerKeyOf, prefixPatterns, queuePrefix, throttleKeyBase, vendorsKeyOf } from '../src/redis/layout.ts';

const single = { isCluster: false };
const cluster = { isCluster: true };

describe('the slot of a key', () => {
  it('is CRC16/XMODEM mod 16384 of the hash tag, or of the whole key without one (Redis Cluster specification)', () => {
    // The specification's test vector: CRC16 of "123456789" is 0x31C3.
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('{123456789}:anything')).toBe(0x31c3);
    expect(keySlot('a:{123456789}:b:{other}')).toBe(0x31c3);
    // An empty tag, or a brace that never closes, hashes the whole key (values from a real
    // server's CLUSTER KEYSLOT).
    expect(keySlot('a')).toBe(15495);
    expect(keySlot('foo{}bar')).toBe(14292);
    expect(keySlot('x{y')).toBe(2740);
    expect(keySlot('buildsync:{acme}:ledger')).toBe(keySlot('buildsync:{acme}:throttle:log'));
  });
});

describe('the key layout', () => {
  it('keeps the names of a single Redis, and tags the queues by prefix and the rest by account or import on a cluster', () => {
    expect(queuePrefix(single, 'bs')).toBe('bs');
    expect(queuePrefix(cluster, 'bs')).toBe('{bs}');
    expect(throttleKeyBase(single, 'bs', 'acme')).toBe('bs:throttle:acme');
    expect(throttleKeyBase(cluster, 'bs', 'acme')).toBe('bs:{acme}:throttle');
    expect(ledgerKeyOf(single, 'bs', 'acme')).toBe('bs:ledger:acme');
    expect(ledgerKeyOf(cluster, 'bs', 'acme')).toBe('bs:{acme}:ledger');
    expect(vendorsKeyOf(single, 'bs', 'acme')).toBe('bs:vendors:acme');
    expect(vendorsKeyOf(cluster, 'bs', 'acme')).toBe('bs:{acme}:vendors');
    expect(importKeyOf(single, 'bs', 'imp-1', 'counts')).toBe('bs:import:imp-1:counts');
    expect(importKeyOf(cluster, 'bs', 'imp-1', 'counts')).toBe('bs:import:{imp-1}:counts');
    expect(prefixPatterns(single, 'bs')).toEqual(['bs:*']);
    expect(prefixPatterns(cluster, 'bs')).toEqual(['bs:*', '{bs}:*']);
  });

  it('refuses braces in BUILDSYNC_PREFIX and any REDIS_CLUSTER but 1 or 0, naming the variable', () => {
    expect(() => loadConfig({ env: { BUILDSYNC_PREFIX: '{bs}' } })).toThrow(/BUILDSYNC_PREFIX="\{bs\}": no braces: on a Redis Cluster \(REDIS_CLUSTER=1\) buildsync adds the hash tags itself/);
    expect(() => loadConfig({ env: { REDIS_CLUSTER: 'true' } })).toThrow(/REDIS_CLUSTER="true": write REDIS_CLUSTER=1/);
    expect(loadConfig({ env: { REDIS_CLUSTER: '1' } }).redisCluster).toBe(true);
    expect(loadConfig({ env: {} }).redisCluster).toBe(false);
  });
});

describe('durability of several masters', () => {
  const strong: RedisDurabilityFacts = { redisVersion: '7.2.4', aofEnabled: true, appendfsync: 'always', connectedReplicas: 1, maxmemoryPolicy: 'noeviction' };

  it('is that of the weakest master on every count', () => {
    expect(weakestFacts([strong, strong])).toEqual(strong);
    const weak = weakestFacts([strong, { ...strong, redisVersion: '7.0.15', appendfsync: 'everysec', connectedReplicas: 0 }, { ...strong, maxmemoryPolicy: 'allkeys-lru' }]);
    expect(weak).toEqual({ redisVersion: '7.0.15', aofEnabled: true, appendfsync: 'everysec', connectedReplicas: 0, maxmemoryPolicy: 'allkeys-lru' });
    // One master without AOF and without a replica: the cluster would lose notes there.
    const decision = durabilityDecision(weakestFacts([strong, { ...strong, aofEnabled: false, connectedReplicas: 0 }]), { allowVolatile: false });
    expect(decision.mode).toBe('refuse');
    // appendfsync unreadable on one master counts as everysec.
    expect(weakestFacts([strong, { ...strong, appendfsync: undefined }]).appendfsync).toBeUndefined();
  });
});
