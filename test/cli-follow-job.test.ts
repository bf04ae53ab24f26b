import type { Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandContext } from '../src/cli/command.ts';
import { followJob } from '../src/cli/follow.ts';
import { parseFailureReason } from '../src/errors/index.ts';
import { exitCodeOf } from '../src/errors/exit-codes.ts';
import { JOB, Queues } from '../src/queue/index.ts';
import { EXPORTS, takeAndFinish } from './helpers/dashboard-fixtures.ts';
import { testRedis } from './helpers/redis.ts';

// A command following a queued job exits as the job ended (README, Commands): with the failure's
// own code, or with the job's result. A job that ends while the command is between two reads of
// one poll must not be seen as ended without its failure or its result (a loaded machine stretches
// the time between them: an export refused with 401 once exited 1 instead of 3).
let t: Awaited<ReturnType<typeof testRedis>>;
let queues: Queues;

beforeEach(async () => {
  t = await testRedis();
  queues = new Queues(t.redis, t.prefix);
});
afterEach(async () => {
  await queues.close();
  await t.cleanup();
});

const ctx: CommandContext = { global: {}, signal: new AbortController().signal, out: () => {}, err: () => {} };

/** The exports queue, the job ending (by `finish`) right after the first time the follower reads it. */
async function endingWhileRead(finish: (job: Job, token: string) => Promise<unknown>) {
  const job = await queues.exports.add(JOB.exportProjects, { account: 'default' });
  const queue = queues.exports;
  const read = queue.getJob.bind(queue);
  let reads = 0;
  queue.getJob = async (id: string) => {
    const copy = await read(id);
    if (++reads === 1) await takeAndFinish(t.redis, t.prefix, EXPORTS, finish);
    return copy;
  };
  return { queue, id: job.id!, reads: () => reads };
}

describe('following a queued job to its end', () => {
  it('keeps the failure of a job that failed between two reads, and exits with its code', async () => {
    const { queue, id, reads } = await endingWhileRead((job, token) => job.moveToFailed(new Error('[BUILDSYNC_HTTP_401] the service refused the credentials'), token, false));
    const done = await followJob(ctx, queue, id, () => {}, 20);
    expect(done.state).toBe('failed');
    const f = parseFailureReason(done.job.failedReason);
    expect(f).toEqual({ code: 'BUILDSYNC_HTTP_401', message: 'the service refused the credentials' });
    expect(exitCodeOf(f.code)).toBe(3);
    expect(reads()).toBeGreaterThan(1); // it did see the job before it ended
  });

  it('keeps the result of a job that completed between two reads', async () => {
    const { queue, id } = await endingWhileRead((job, token) => job.moveToCompleted({ projects: 3, bytes: 120 }, token, false));
    const done = await followJob(ctx, queue, id, () => {}, 20);
    expect(done.state).toBe('completed');
    expect(done.job.returnvalue).toEqual({ projects: 3, bytes: 120 });
  });
});
