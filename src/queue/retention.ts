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
  records: {
    removeOnComplete: { age: DAY, count: 20_000 },
    removeOnFail: { age: 7 * DAY, count: 20_000 },
  },
} satisfies Record<string, DefaultJobOptions>;

/** Attempts of a record job: 5xx and refused connections on estimates are retried this often, with jitter. */
export const RECORD_ATTEMPTS = 4;
/** Attempts of an export: a failed listing is tried again from the start. */
export const EXPORT_ATTEMPTS = 3;
