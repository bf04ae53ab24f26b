import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors/index.ts';
import { RedisNotDurableError, confirmNote, durabilityDecision, readDurabilityFacts, supportsWaitaof, type RedisDurabilityFacts } from '../src/ledger/index.ts';
import { REDIS_URL } from './helpers/redis.ts';

// README, Commands "Durability". This machine runs Redis 7.0, so the WAITAOF rows are tested with
// facts objects; every other row also meets a real server started here on a free loopback port.

const base: RedisDurabilityFacts = {
  redisVersion: '7.0.15',
  aofEnabled: false,
  appendfsync: 'everysec',
  connectedReplicas: 0,
  maxmemoryPolicy: 'noeviction',
};
const strict = { allowVolatile: false };
const lax = { allowVolatile: true };
const facts = (over: Partial<RedisDurabilityFacts>): RedisDurabilityFacts => ({ ...base, ...over });

describe('durabilityDecision', () => {
  it('AOF with appendfsync always needs nothing more per note, on any version', () => {
    expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: 'always' }), strict)).toEqual({ mode: 'aof-always' });
    expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: 'always', redisVersion: '7.4.1' }), strict)).toEqual({ mode: 'aof-always' });
  });

  it('AOF always with a connected replica also waits for the replica (a failover would lose the note otherwise)', () => {
    expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: 'always', connectedReplicas: 2 }), strict)).toEqual({ mode: 'aof-always', replicas: 2 });
  });

  it('AOF everysec on 7.2 and later confirms each note with WAITAOF', () => {
    expect(durabilityDecision(facts({ aofEnabled: true, redisVersion: '7.2.0' }), strict)).toEqual({ mode: 'waitaof' });
    expect(durabilityDecision(facts({ aofEnabled: true, redisVersion: '8.0.2' }), strict)).toEqual({ mode: 'waitaof' });
    expect(durabilityDecision(facts({ aofEnabled: true, redisVersion: '7.2.4', connectedReplicas: 1 }), strict)).toEqual({ mode: 'waitaof', replicas: 1 });
  });

  it('unknown appendfsync (CONFIG not permitted) on 7.2 uses WAITAOF, which is exact whatever the setting', () => {
    expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: undefined, redisVersion: '7.2.5' }), strict)).toEqual({ mode: 'waitaof' });
  });

  it('AOF everysec without WAITAOF sends with a warning about up to a second of notes', () => {
    const d = durabilityDecision(facts({ aofEnabled: true, redisVersion: '7.0.15' }), strict);
    expect(d.mode).toBe('aof-everysec');
    expect(d.mode === 'aof-everysec' && d.warning).toMatch(/up to a second/);
    expect(d.mode === 'aof-everysec' && d.warning).toMatch(/appendfsync always/);
  });

  it('unknown appendfsync without WAITAOF is taken as everysec, and the warning says why', () => {
    const d = durabilityDecision(facts({ aofEnabled: true, appendfsync: undefined, redisVersion: '6.2.14' }), strict);
    expect(d.mode).toBe('aof-everysec');
    expect(d.mode === 'aof-everysec' && d.warning).toMatch(/CONFIG GET is not permitted.*everysec/);
  });

  it('AOF everysec without WAITAOF but with a replica is confirmed by WAIT, without a warning', () => {
    expect(durabilityDecision(facts({ aofEnabled: true, connectedReplicas: 1 }), strict)).toEqual({ mode: 'replica', replicas: 1 });
  });

  it('no AOF but a connected replica confirms each note with WAIT', () => {
    expect(durabilityDecision(facts({ connectedReplicas: 1 }), strict)).toEqual({ mode: 'replica', replicas: 1 });
    expect(durabilityDecision(facts({ connectedReplicas: 1, redisVersion: '7.2.0' }), strict)).toEqual({ mode: 'replica', replicas: 1 });
  });

  it('no AOF and no replica is refused with the commands that turn AOF on', () => {
    const d = durabilityDecision(facts({}), strict);
    expect(d.mode).toBe('refuse');
    const message = d.mode === 'refuse' ? d.message : '';
    expect(message).toContain('no AOF (appendonly no) and no connected replica');
    expect(message).toContain('redis-cli CONFIG SET appendonly yes');
    expect(message).toContain('appendfsync always` in redis.conf');
    expect(message).toContain('--appendonly yes --appendfsync always');
    expect(message).toContain('BUILDSYNC_ALLOW_VOLATILE_REDIS=1');
  });

  it('no AOF and no replica with BUILDSYNC_ALLOW_VOLATILE_REDIS is volatile, with a warning', () => {
    const d = durabilityDecision(facts({}), lax);
    expect(d.mode).toBe('volatile');
    expect(d.mode === 'volatile' && d.warning).toMatch(/throwaway set-ups only/);
  });

  it('appendfsync no counts as no AOF, on any version: refused (with the fsync fix), replica, or volatile', () => {
    for (const redisVersion of ['7.0.15', '7.2.4']) {
      const d = durabilityDecision(facts({ aofEnabled: true, appendfsync: 'no', redisVersion }), strict);
      expect(d.mode).toBe('refuse');
      expect(d.mode === 'refuse' && d.message).toContain('redis-cli CONFIG SET appendfsync always');
      expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: 'no', redisVersion, connectedReplicas: 1 }), strict)).toEqual({ mode: 'replica', replicas: 1 });
      expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: 'no', redisVersion }), lax).mode).toBe('volatile');
    }
  });

  it('a maxmemory-policy other than noeviction is refused with its own fix, even with AOF always', () => {
    const d = durabilityDecision(facts({ aofEnabled: true, appendfsync: 'always', maxmemoryPolicy: 'allkeys-lru' }), strict);
    expect(d.mode).toBe('refuse');
    const message = d.mode === 'refuse' ? d.message : '';
    expect(message).toContain('maxmemory-policy is allkeys-lru');
    expect(message).toContain('redis-cli CONFIG SET maxmemory-policy noeviction');
    expect(message).toContain('BUILDSYNC_ALLOW_VOLATILE_REDIS=1');
    expect(message).not.toContain('appendonly yes');
  });

  it('eviction and no AOF together: one refusal naming both fixes', () => {
    const d = durabilityDecision(facts({ maxmemoryPolicy: 'volatile-lru' }), strict);
    const message = d.mode === 'refuse' ? d.message : '';
    expect(message).toContain('redis-cli CONFIG SET appendonly yes');
    expect(message).toContain('redis-cli CONFIG SET maxmemory-policy noeviction');
  });

  it('eviction with BUILDSYNC_ALLOW_VOLATILE_REDIS keeps the durable mode and adds a warning', () => {
    const d = durabilityDecision(facts({ aofEnabled: true, appendfsync: 'always', maxmemoryPolicy: 'allkeys-lru' }), lax);
    expect(d).toEqual({ mode: 'aof-always', warning: expect.stringMatching(/maxmemory-policy is allkeys-lru.*BUILDSYNC_ALLOW_VOLATILE_REDIS=1 is set/) });
    const v = durabilityDecision(facts({ maxmemoryPolicy: 'allkeys-lru' }), lax);
    expect(v.mode).toBe('volatile');
    expect(v.mode === 'volatile' && v.warning).toMatch(/no AOF[\s\S]*maxmemory-policy is allkeys-lru/);
  });

  it('an unreported maxmemory-policy is not refused', () => {
    expect(durabilityDecision(facts({ aofEnabled: true, appendfsync: 'always', maxmemoryPolicy: undefined }), strict)).toEqual({ mode: 'aof-always' });
  });

  it('WAITAOF is Redis 7.2 and later', () => {
    expect(['6.2.14', '7.0.15', '7.1.0', '7.2.0', '7.4.2', '8.0.0', 'garbage'].map(supportsWaitaof)).toEqual([false, false, false, true, true, true, false]);
  });
});

// --- real servers ---------------------------------------------------------------------------

interface Server {
  port: number;
  child: ChildProcess;
  dir: string;
  url: string;
}
const started: Server[] = [];
const clients: Redis[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A redis-server of this test's own on a free loopback port, in a temp dir; ready when it says so. */
async function startRedis(args: string[]): Promise<Server> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'buildsync-durability-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--logfile', '', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { port, child, dir, url: `redis://127.0.0.1:${port}` };
  started.push(server);
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`redis-server on ${port} not ready in 5 s:\n${log}`)), 5000);
    child.stdout!.on('data', (b: Buffer) => {
      log += b.toString();
      if (log.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited (${code}):\n${log}`));
    });
  });
  return server;
}

async function stopRedis(server: Server): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    process.kill(server.child.pid!, 'SIGKILL');
    await exited;
  }
}

function connect(url: string, opts: { username?: string; password?: string } = {}): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null, ...opts });
  r.on('error', () => {});
  clients.push(r);
  return r;
}

async function until(what: string, check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const s of started) {
    await stopRedis(s);
    rmSync(s.dir, { recursive: true, force: true });
  }
});

describe('the CI Redis (no persistence)', () => {
  it('reads its facts: no AOF, no replica → refused, or volatile with BUILDSYNC_ALLOW_VOLATILE_REDIS', async () => {
    const f = await readDurabilityFacts(connect(REDIS_URL));
    expect(f.redisVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(f).toMatchObject({ aofEnabled: false, connectedReplicas: 0, maxmemoryPolicy: 'noeviction' });
    expect(['always', 'everysec', 'no', undefined]).toContain(f.appendfsync);
    const refused = durabilityDecision(f, strict);
    expect(refused.mode).toBe('refuse');
    expect(refused.mode === 'refuse' && refused.message).toContain('redis-cli CONFIG SET appendonly yes');
    expect(durabilityDecision(f, lax).mode).toBe('volatile');
  });

  it('confirmNote on a refusal throws the refusal as an exit-2 error', async () => {
    const d = durabilityDecision(await readDurabilityFacts(connect(REDIS_URL)), strict);
    const err = await confirmNote(connect(REDIS_URL), d, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisNotDurableError);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_CONFIG_INVALID', reason: 'refused' });
  });
});

describe('a redis-server with --appendonly yes --appendfsync always', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  });

  it('is aof-always, and confirmNote has nothing to wait for', async () => {
    const redis = connect(server.url);
    const f = await readDurabilityFacts(redis);
    expect(f).toMatchObject({ aofEnabled: true, appendfsync: 'always', connectedReplicas: 0, maxmemoryPolicy: 'noeviction' });
    const d = durabilityDecision(f, strict);
    expect(d).toEqual({ mode: 'aof-always' });
    await redis.hset('durability:ledger', 'note', 'sending');
    await expect(confirmNote(redis, d, 100)).resolves.toBeUndefined();
  });

  it('confirmNote in waitaof mode turns a refused WAITAOF into an exit-2 error (this server predates it)', async () => {
    const redis = connect(server.url);
    const f = await readDurabilityFacts(redis);
    if (supportsWaitaof(f.redisVersion)) {
      await expect(confirmNote(redis, { mode: 'waitaof' }, 500)).resolves.toBeUndefined();
      return;
    }
    const err = await confirmNote(redis, { mode: 'waitaof' }, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisNotDurableError);
    expect(err).toMatchObject({ reason: 'unconfirmed' });
    expect((err as Error).message).toMatch(/^Redis refused WAITAOF, which confirms that the ledger's note is durable \(.*unknown command.*\); the record was not sent/i);
  });

  it('an ACL user without CONFIG leaves appendfsync unknown, taken as everysec with a warning on 7.0', async () => {
    const admin = connect(server.url);
    await admin.call('ACL', 'SETUSER', 'noconfig', 'on', '>pw', '~*', '+@all', '-config');
    const f = await readDurabilityFacts(connect(server.url, { username: 'noconfig', password: 'pw' }));
    expect(f.appendfsync).toBeUndefined();
    expect(f.aofEnabled).toBe(true);
    const d = durabilityDecision(f, strict);
    if (supportsWaitaof(f.redisVersion)) expect(d).toEqual({ mode: 'waitaof' });
    else expect(d.mode === 'aof-everysec' && d.warning).toMatch(/CONFIG GET is not permitted/);
  });

  it('maxmemory-policy allkeys-lru on it is refused', async () => {
    const admin = connect(server.url);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const d = durabilityDecision(await readDurabilityFacts(admin), strict);
      expect(d.mode === 'refuse' && d.message).toContain('redis-cli CONFIG SET maxmemory-policy noeviction');
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });
});

describe('a master without AOF and a connected replica', () => {
  let master: Server;
  let replica: Server;
  beforeAll(async () => {
    // Diskless sync without its default 5 s delay, so the replica is in sync at once.
    [master, replica] = await Promise.all([startRedis(['--repl-diskless-sync-delay', '0']), startRedis([])]);
    const r = connect(replica.url);
    await r.call('REPLICAOF', '127.0.0.1', String(master.port));
    const m = connect(master.url);
    await until('connected_slaves:1', async () => (await m.info('replication')).includes('connected_slaves:1'));
    await until('the replica in sync', async () => (await r.info('replication')).includes('master_link_status:up'));
  });

  it('is mode replica; WAIT confirms a note, and after the replica stops confirmNote refuses to let it be sent', async () => {
    const redis = connect(master.url);
    const f = await readDurabilityFacts(redis);
    expect(f).toMatchObject({ aofEnabled: false, connectedReplicas: 1 });
    const d = durabilityDecision(f, strict);
    expect(d).toEqual({ mode: 'replica', replicas: 1 });

    await redis.hset('durability:ledger', 'a', 'sending');
    await expect(confirmNote(redis, d, 2000)).resolves.toBeUndefined();
    // AOF always with a replica waits for the replica too (checked here on this pair's WAIT).
    await expect(confirmNote(redis, { mode: 'aof-always', replicas: 1 }, 2000)).resolves.toBeUndefined();

    await stopRedis(replica);
    await redis.hset('durability:ledger', 'b', 'sending');
    const started = Date.now();
    const err = await confirmNote(redis, d, 200).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toBeInstanceOf(RedisNotDurableError);
    expect(err).toMatchObject({ code: 'BUILDSYNC_CONFIG_INVALID', reason: 'unconfirmed' });
    expect((err as Error).message).toMatch(/no Redis replica confirmed the ledger's note within 200 ms \(WAIT 1 answered 0; 1 replica was connected at start\); the record was not sent/);
  });
});
