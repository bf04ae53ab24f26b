/**
 * A `redis-server` of the test's own: a free loopback port, its files in a temp folder, ready
 * when it says so; stopped by its PID and its folder removed by `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  port: number;
  pid: number;
  /** The server's working directory (AOF and RDB files), removed by stop(). */
  dir: string;
  /** Everything the server logged so far. */
  log(): string;
  /** SIGTERM by PID (SIGKILL after 5 s), then removes `dir`. Safe to call twice. */
  stop(): Promise<void>;
}

/** A loopback TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Starts `redis-server` with `args` (e.g. `--appendonly yes`) and resolves once it accepts connections. */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'buildsync-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--logfile', '', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      const killer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      }, 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server on ${port} not ready in 5 s:\n${log}`)), 5000);
      const onData = () => {
        if (log.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server on ${port} exited (${code}):\n${log}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, pid: child.pid!, dir, log: () => log, stop };
}
