/**
 * A `redis-server` of the test's own that the test can take away and bring back: a free loopback
 * port and a temp folder, AOF on by default (`--appendonly yes --appendfsync always`), stopped
 * (SIGTERM: Redis shuts down and flushes its AOF), SIGKILLed, and started again on the same port
 * from the same folder (so from its AOF). Every signal goes to the server's own PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const AOF_ALWAYS = ['--appendonly', 'yes', '--appendfsync', 'always'];

export interface RedisProcess {
  readonly port: number;
  /** The server's working directory (its AOF), removed by close(). */
  readonly dir: string;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** PID of the running server; undefined while it is down. */
  pid(): number | undefined;
  running(): boolean;
  /** Everything every run of the server logged so far. */
  log(): string;
  /** SIGTERM (Redis's graceful SHUTDOWN: it writes and fsyncs the AOF) and waits for the exit; SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** SIGKILL and waits for the exit. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and folder; resolves once it has loaded its AOF and accepts connections. */
  start(): Promise<void>;
  /** stop() and the folder removed. Safe to call twice. */
  close(): Promise<void>;
}

/** A loopback TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `redis-server` with `args` (AOF_ALWAYS unless `args` says otherwise) and resolves once it accepts connections. */
export async function startRedisProcess(args: string[] = AOF_ALWAYS): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'buildsync-redis-outage-'));
  let log = '';
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const launch = async (): Promise<void> => {
    // A port just released can take a moment to bind again; redis-server sets SO_REUSEADDR, so
    // a retry or two covers whatever else still holds it.
    for (let attempt = 1; ; attempt++) {
      try {
        await launchOnce();
        return;
      } catch (err) {
        if (attempt >= 5 || !/Address already in use|bind/i.test((err as Error).message)) throw err;
        await sleep(200);
      }
    }
  };

  const launchOnce = (): Promise<void> => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--logfile', '', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    const startAt = log.length;
    c.stdout!.on('data', (b: Buffer) => (log += b.toString()));
    c.stderr!.on('data', (b: Buffer) => (log += b.toString()));
    exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        c.kill('SIGKILL');
        reject(new Error(`redis-server on ${port} not ready in 10 s:\n${log.slice(startAt)}`));
      }, 10_000);
      const onData = () => {
        if (log.slice(startAt).includes('Ready to accept connections')) {
          clearTimeout(timer);
          c.stdout!.off('data', onData);
          resolve();
        }
      };
      c.stdout!.on('data', onData);
      c.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      c.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`redis-server on ${port} exited (${code ?? signal}):\n${log.slice(startAt)}`));
      });
    });
  };

  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    if (!alive()) return;
    const c = child!;
    process.kill(c.pid!, sig);
    let killer: NodeJS.Timeout | undefined;
    if (sig !== 'SIGKILL') killer = setTimeout(() => alive() && child === c && process.kill(c.pid!, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };

  const server: RedisProcess = {
    port,
    dir,
    url: `redis://127.0.0.1:${port}`,
    pid: () => (alive() ? child!.pid : undefined),
    running: alive,
    log: () => log,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    async start() {
      if (alive()) throw new Error(`redis-server on ${port} is already running`);
      await launch();
    },
    async close() {
      await signal('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await launch();
  } catch (err) {
    await server.close();
    throw err;
  }
  return server;
}
