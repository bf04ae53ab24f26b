import type { DefaultJobOptions } from 'bullmq';

const DAY = 24 * 3600;

/**
 * How long finished jobs stay visible to `jobs list` and the dashboard (BullMQ removeOnComplete /
 * removeOnFail by age and count). Record jobs are many and short-lived: their outcomes live in
 * the import store, so the jobs themselves go sooner.
 */
export const RETENTION = {
  exports: {
    removeOnComplete: { age: 30 * DAY, count: 1000 },
    removeOnFail: { age: 30 * DAY, count: 1000 },
  },
  imports: {
    removeOnComplete: { age: 30 * DAY, count: 1000 },
    removeOnFail: { age: 30 * DAY, count: 1000 },
  },
  // Record jobs carry no retention of their own: BullMQ would store these options in every job's
  // hash (about 90 bytes each, times 100,000 pending records). The records worker applies
  // RECORD_JOB_RETENTION instead (BullMQ WorkerOptions.removeOnComplete/removeOnFail: used for a
  // job whose own options do not say).
  records: {},
} satisfies Record<string, DefaultJobOptions>;

/** How long finished record jobs stay (the worker's removeOnComplete / removeOnFail); their outcomes live in the import store. */
export const RECORD_JOB_RETENTION = {
  removeOnComplete: { age: DAY, count: 20_000 },
  removeOnFail: { age: 7 * DAY, count: 20_000 },
} satisfies DefaultJobOptions;

/** Attempts of a record job: 5xx and refused connections on estimates are retried this often, with jitter. */
export const RECORD_ATTEMPTS = 4;
/** Attempts of an export: a failed listing is tried again from the start. */
export const EXPORT_ATTEMPTS = 3;
/**
 * How often an export job may be started at all (BullMQ's maxStartedAttempts on the exports
 * worker): its attempts, plus the two stalls BullMQ forgives (a worker killed mid-export), plus
 * three hand-backs by workers told to stop (a deploy). Past that the job fails with "job started
 * more than allowable limit", which is notified (BUILDSYNC_NOTIFY_URL). Without it a scheduled
 * export whose workers keep dying never fails: BullMQ does not fail scheduled jobs for stalling,
 * it puts them back however often they stall, and nobody hears of it.
 */
export const EXPORT_MAX_STARTS = EXPORT_ATTEMPTS + 2 + 3;
