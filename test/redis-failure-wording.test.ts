import { afterAll, describe, expect, it } from 'vitest';
import { runChecks } from '../src/check/index.ts';
import { describeFailure } from '../src/cli/exit.ts';
import { connectRedis, createRedis } from '../src/redis/connection.ts';
import { describeRedisError } from '../src/redis/failures.ts';
import { runCli } from './helpers/cli.ts';

// Issue 23, "one home per decision": a Redis failure is worded once (src/redis/failures.ts),
// so `check` and a running process say the same of the same cause. A host name that does not
// resolve (ENOTFOUND, or EAI_AGAIN where no DNS answers) is exactly that in both, never "no Redis
// answers (refused)".

const URL_NO_HOST = 'redis://no-such-host.invalid:6379';
const opened: Array<{ disconnect(): void }> = [];
afterAll(() => {
  for (const r of opened) r.disconnect();
});

/** The first error a worker's connection (which keeps retrying) reports for `url`. */
function firstWorkerError(url: string): Promise<Error> {
  const redis = createRedis(url, 'worker', { cluster: false });
  opened.push(redis);
  return new Promise((resolve) => {
    redis.once('error', (err: Error) => {
      redis.disconnect();
      resolve(err);
    });
    void redis.connect().catch(() => undefined);
  });
}

describe('a REDIS_URL whose host does not resolve', () => {
  it('check, a command that connects, and a running worker word it the same: a name that does not resolve', async () => {
    const report = await runChecks({ env: { REDIS_URL: URL_NO_HOST, BUILDSYNC_LIMITS: 'none' }, allowVolatile: true });
    const redisFinding = report.checks.find((c) => c.name === 'redis')!;
    expect(redisFinding).toMatchObject({ level: 'error', code: 'BUILDSYNC_REDIS_UNAVAILABLE' });
    expect(redisFinding.message).toMatch(/^the host name of REDIS_URL \(redis:\/\/no-such-host\.invalid:6379\/?\) does not resolve \((ENOTFOUND|EAI_AGAIN)\)\. Check the host name in REDIS_URL\.$/);
    expect(report.exitCode).toBe(2);

    // A running worker's connection error, as its log and a command's failure describe it.
    const workerError = await firstWorkerError(URL_NO_HOST);
    const running = describeRedisError(workerError, URL_NO_HOST);
    expect(running.cause).toBe('dns');
    expect(running.message).toBe(redisFinding.message);

    // A command (a producer) that cannot connect: RedisUnavailableError with the same words.
    const failure = await connectRedis(URL_NO_HOST, 'producer', { cluster: false }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(describeFailure(failure)).toEqual({ code: 2, message: `buildsync: ${redisFinding.message}` });
  });

  it('the spawned CLI says it the same way, from `check` and from a command', async () => {
    const env = { REDIS_URL: URL_NO_HOST, BUILDSYNC_LIMITS: 'none', BUILDSYNC_ALLOW_VOLATILE_REDIS: '1' };
    const [check, jobs] = await Promise.all([runCli(['check', '--json'], env), runCli(['jobs', 'list'], env)]);
    expect(check.code, check.stderr).toBe(2);
    const found = (JSON.parse(check.stdout) as { checks: Array<{ name: string; message: string }> }).checks.find((c) => c.name === 'redis')!;
    expect(found.message).toMatch(/does not resolve \((ENOTFOUND|EAI_AGAIN)\)/);
    expect(jobs.code, jobs.stderr).toBe(2);
    expect(jobs.stderr).toContain(`buildsync: ${found.message}`);
    expect(jobs.stderr).not.toMatch(/no Redis answers|\n\s+at /);
  });
});
