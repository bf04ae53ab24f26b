/**
 * A real Redis Cluster on loopback ports: three masters (and, with `replicas: 1`, one replica
 * each), each a `redis-server --cluster-enabled yes` process of its own in a temp folder, joined
 * with `redis-cli --cluster create`, ready once every node says `cluster_state:ok`. Processes are
 * stopped by their own PIDs; a master can be SIGKILLed (and started again) to test a failover.
 *
 * Started once per test run for the `cluster` vitest project (test/cluster-global-setup.ts);
 * the failover test starts one of its own with replicas, so that killing a master never
 * disturbs the other files of the run.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ClusterNode {
  readonly port: number;
  pid(): number | undefined;
  running(): boolean;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** Start again on the same port and folder (the node keeps its identity from its nodes-P.conf). */
  start(): Promise<void>;
}

export interface RedisClusterProcess {
  /** `redis://127.0.0.1:P` of the first node: what REDIS_URL names with REDIS_CLUSTER=1. */
  readonly url: string;
  readonly nodes: readonly ClusterNode[];
  /** `redis-cli -p P …` on a node, its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The node (port) that is master of `slot` now. */
  masterOf(slot: number): Promise<number>;
  /** Every node still running says cluster_state:ok. */
  waitOk(timeoutMs?: number): Promise<void>;
  /** Every process stopped (SIGKILL, by PID) and the folder removed. Safe to call twice. */
  close(): Promise<void>;
}

/** A loopback port free for the node and for its cluster bus (port + 10000). */
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function startRedisCluster(opts: { replicas?: 0 | 1; nodeTimeoutMs?: number } = {}): Promise<RedisClusterProcess> {
  const replicas = opts.replicas ?? 0;
  const count = replicas ? 6 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'buildsync-redis-cluster-'));
  const ports: number[] = [];
  while (ports.length < count) {
    const p = await freeClusterPort();
    if (!ports.includes(p)) ports.push(p);
  }
  const cli = async (port: number, ...args: string[]): Promise<string> => (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout;

  const nodes = ports.map((port): ClusterNode & { stop(): Promise<void> } => {
    let child: ChildProcess | undefined;
    let exited: Promise<void> = Promise.resolve();
    const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;
    const start = async () => {
      const c = spawn(
        'redis-server',
        [
          '--port', String(port),
          '--bind', '127.0.0.1',
          '--dir', dir,
          '--cluster-enabled', 'yes',
          '--cluster-config-file', join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout', String(opts.nodeTimeoutMs ?? 1000),
          '--save', '',
          '--appendonly', 'no',
          '--daemonize', 'no',
          '--logfile', join(dir, `redis-${port}.log`),
        ],
        { stdio: 'ignore' },
      );
      child = c;
      exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      for (let i = 0; i < 100; i++) {
        if (!alive()) throw new Error(`redis-server on port ${port} exited at start; see ${join(dir, `redis-${port}.log`)}`);
        try {
          if ((await cli(port, 'PING')).trim() === 'PONG') return;
        } catch {
          // not listening yet
        }
        await sleep(50);
      }
      throw new Error(`redis-server on port ${port} did not answer within 5 s`);
    };
    const kill = async () => {
      if (!alive()) return;
      child!.kill('SIGKILL');
      await exited;
    };
    return { port, pid: () => (alive() ? child!.pid : undefined), running: alive, kill, start, stop: kill };
  });

  const close = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    rmSync(dir, { recursive: true, force: true });
  };

  const waitOk = async (timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(nodes.filter((n) => n.running()).map((n) => cli(n.port, 'CLUSTER', 'INFO').catch(() => '')));
      if (states.every((s) => /cluster_state:ok/.test(s))) return;
      if (Date.now() > until) throw new Error(`the Redis Cluster is not ok after ${timeoutMs} ms:\n${states.join('\n')}`);
      await sleep(100);
    }
  };

  try {
    await Promise.all(nodes.map((n) => n.start()));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
    await waitOk();
    // A replica counts for durability only once it has synced: wait for every master to see its replica.
    if (replicas) {
      const until = Date.now() + 20_000;
      for (;;) {
        const roles = await Promise.all(ports.map((p) => cli(p, 'INFO', 'replication')));
        const masters = roles.filter((r) => /role:master/.test(r));
        if (masters.length === 3 && masters.every((r) => /connected_slaves:1/.test(r) && /state=online/.test(r))) break;
        if (Date.now() > until) throw new Error(`replicas did not come online:\n${roles.join('\n')}`);
        await sleep(100);
      }
    }
  } catch (err) {
    await close();
    throw err;
  }

  return {
    url: `redis://127.0.0.1:${ports[0]}`,
    nodes,
    cli,
    async masterOf(slot: number) {
      for (const n of nodes) {
        if (!n.running()) continue;
        const out = await cli(n.port, 'CLUSTER', 'NODES').catch(() => '');
        if (!out) continue;
        const lines = out.split('\n');
        for (const line of lines) {
          const f = line.split(' ');
          if (!f[2]?.includes('master') || f[2].includes('fail')) continue;
          for (const range of f.slice(8)) {
            const [a, b = a] = range.split('-').map(Number);
            if (slot >= a! && slot <= b!) return Number(f[1]!.split(':')[1]!.split('@')[0]);
          }
        }
        break;
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    waitOk,
    close,
  };
}
