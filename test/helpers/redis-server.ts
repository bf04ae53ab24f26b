/**
 * A `redis-server` of the test's own that stays up for the test: `startRedisProcess`
 * (redis-server-process.ts) without AOF unless asked, stopped by its PID and its folder removed
 * by `stop()`.
 */
import { startRedisProcess } from './redis-server-process.ts';

export { freePort } from './redis-server-process.ts';

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

/** Starts `redis-server` with `args` (e.g. `--appendonly yes`) and resolves once it accepts connections. */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const server = await startRedisProcess(args);
  return { port: server.port, pid: server.pid()!, dir: server.dir, log: server.log, stop: server.close };
}
