import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ImportPlan } from '../../src/import/plan-types.ts';
import { QUEUE } from '../../src/queue/index.ts';
import { queuePrefix } from '../../src/redis/layout.ts';

/** A small estimate import made by hand: two records, one invalid row. */
export function smallPlan(): ImportPlan {
  const record = (id: number, name: string) => ({
    key: `estimate:project:${id}`,
    label: `project ${id} / ${name}`,
    lines: [id],
    contentHash: `hash-${id}`,
    payload: { PROJECT_ID: id, NAME: name },
  });
  return {
    kind: 'estimates',
    file: 'estimates.csv',
    rows: 3,
    records: [record(2, 'Kitchen remodel'), record(3, 'Roof')],
    statics: [{ line: 4, record: 'project ? / ?', status: 'invalid', message: 'project_id is empty' }],
  };
}

/**
 * Takes the next waiting job of `queue` as a worker would (no processor runs) and finishes it
 * with `finish`: how a test puts a job into completed or failed without running the real processor.
 */
export async function takeAndFinish(
  redis: Redis,
  prefix: string,
  queue: string,
  finish: (job: Job, token: string) => Promise<unknown>,
): Promise<Job> {
  const worker = new Worker(queue, null, { connection: redis.duplicate(), prefix: queuePrefix(redis, prefix), autorun: false });
  try {
    const token = `test-${Date.now()}`;
    const job = (await worker.getNextJob(token)) as Job | undefined;
    if (!job) throw new Error(`no waiting job in ${queue}`);
    await finish(job, token);
    return job;
  } finally {
    await worker.close();
    await (worker.opts.connection as Redis).quit().catch(() => {});
  }
}

export const EXPORTS = QUEUE.exports;
