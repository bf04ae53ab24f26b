import * as z from 'zod';
import { parseEnv, readEnv, type Env } from './env.ts';

/**
 * The test knobs (README "Test knobs"): variables that speed the tool up or slow it down for test
 * rigs and benches, never needed in production. Each one's check, default and meaning live here
 * and nowhere else; `loadConfig` checks them all with the other variables at start-up, so a bad
 * value stops a command at once (exit 2, the variable and its value named) instead of being
 * ignored. A knob left unset has its default below; "unset" ones leave the default to the code
 * that owns it (named in each comment).
 */

/** The most records one record job sends (queue/submit.ts), and so BUILDSYNC_RECORDS_PER_JOB's bound. */
export const MAX_RECORDS_PER_JOB = 16;

const number = (name: string, example: string, what: string) =>
  z.coerce.number({ error: `not a number; write ${what}, e.g. ${name}=${example}, or leave it unset` });
const whole = (name: string, example: string, what: string) =>
  number(name, example, `a whole number of ${what}`).int(`must be a whole number of ${what}, e.g. ${name}=${example}`);
/** Milliseconds, at least `min`; `whole` where a fraction of a millisecond would mean nothing (BullMQ's lock, the lease). */
const ms = (name: string, min: number, example: string, opts: { whole?: boolean; note?: string } = {}) =>
  (opts.whole ? whole(name, example, 'milliseconds') : number(name, example, 'a number of milliseconds'))
    .min(min, `must be at least ${min} (ms${opts.note ? `; ${opts.note}` : ''}), e.g. ${name}=${example}`);

export const KNOB_SHAPE = {
  /**
   * Divides the tool's rate-window lengths, to match a sandbox sped up the same way
   * (`buildsync sandbox --time-scale`). Unset: real time (AccountThrottle's timeScale 1).
   */
  BUILDSYNC_TIME_SCALE: number('BUILDSYNC_TIME_SCALE', '3600', 'how many times faster than real time the windows run')
    .positive('must be above 0, e.g. BUILDSYNC_TIME_SCALE=3600 (an hour a second)')
    .optional(),
  /**
   * BullMQ's lock duration and stalled-check interval of a worker: how soon a dead worker's jobs
   * are taken over. Unset: 30 s (queue/worker-host.ts).
   */
  BUILDSYNC_LOCK_MS: ms('BUILDSYNC_LOCK_MS', 1000, '30000', { whole: true, note: 'BullMQ renews its lock every half of it' }).optional(),
  /** How long a record's claim outlives its dead sender. Unset: DEFAULT_LEASE_MS, 30 s (ledger/ledger.ts). */
  BUILDSYNC_LEDGER_LEASE_MS: ms('BUILDSYNC_LEDGER_LEASE_MS', 200, '30000', { whole: true }).optional(),
  /** How often an export job may start. Unset: EXPORT_MAX_STARTS, 8 (queue/retention.ts). */
  BUILDSYNC_EXPORT_MAX_STARTS: whole('BUILDSYNC_EXPORT_MAX_STARTS', '8', 'starts')
    .min(1, 'must be at least 1, e.g. BUILDSYNC_EXPORT_MAX_STARTS=8')
    .optional(),
  /** How long a command waits for a Redis that went away (README, Commands: a 30 s grace). */
  BUILDSYNC_REDIS_GRACE_MS: ms('BUILDSYNC_REDIS_GRACE_MS', 0, '30000').default(30_000),
  /**
   * How long the import page keeps an upload never sent, and an import's rows to fix once sent
   * (README, The import page: "for an hour").
   */
  BUILDSYNC_UPLOAD_KEEP_MS: z.coerce
    .number({ error: 'not a number; write a whole number of milliseconds, e.g. BUILDSYNC_UPLOAD_KEEP_MS=3600000 (an hour)' })
    .int('must be a whole number of milliseconds, e.g. BUILDSYNC_UPLOAD_KEEP_MS=3600000 (an hour)')
    .min(100, 'must be at least 100 (ms)')
    .max(7 * 24 * 3_600_000, 'must be at most a week (604800000 ms)')
    .default(3_600_000),
  /**
   * The heap of the import page's reader thread, in MB (README, The import page: every upload is
   * read in a thread with a memory limit; src/dashboard/upload-reader.ts).
   */
  BUILDSYNC_UPLOAD_READER_MB: whole('BUILDSYNC_UPLOAD_READER_MB', '1024', 'megabytes')
    .min(16, 'must be at least 16 (MB), e.g. BUILDSYNC_UPLOAD_READER_MB=1024')
    .default(1024),
  /** How long one reading of an upload may take in the import page's reader thread. */
  BUILDSYNC_UPLOAD_READER_TIMEOUT_MS: ms('BUILDSYNC_UPLOAD_READER_TIMEOUT_MS', 250, '300000', { whole: true }).default(300_000),
  /** The least time between two plain progress lines off a terminal (cli/progress.ts); 0 prints every change. */
  BUILDSYNC_PROGRESS_INTERVAL_MS: ms('BUILDSYNC_PROGRESS_INTERVAL_MS', 0, '10000').default(10_000),
  /**
   * How often a worker reads Redis's persistence and eviction policy again while it sends
   * (docs/operators.md, "Durability"; also after every reconnection). Unset: DURABILITY_RECHECK_MS,
   * 5 s (ledger/durability-watch.ts).
   */
  BUILDSYNC_DURABILITY_RECHECK_MS: ms('BUILDSYNC_DURABILITY_RECHECK_MS', 50, '5000', { whole: true }).max(5_000, 'must be at most 5000 (ms): persistence is read again at least every 5 s').optional(),
  /** How many records one record job sends. Unset: chosen by the import's size (queue/submit.ts). */
  BUILDSYNC_RECORDS_PER_JOB: whole('BUILDSYNC_RECORDS_PER_JOB', '4', 'records')
    .min(1, `must be 1 to ${MAX_RECORDS_PER_JOB}, e.g. BUILDSYNC_RECORDS_PER_JOB=4, or leave it unset`)
    .max(MAX_RECORDS_PER_JOB, `must be 1 to ${MAX_RECORDS_PER_JOB} (a record job sends at most ${MAX_RECORDS_PER_JOB} records), e.g. BUILDSYNC_RECORDS_PER_JOB=${MAX_RECORDS_PER_JOB}, or leave it unset`)
    .optional(),
};

/** The knobs' schema; config.ts's schema of the environment includes it. */
export const knobSchema = z.object(KNOB_SHAPE);
export type Knobs = z.output<typeof knobSchema>;
export type KnobName = keyof Knobs;

/**
 * One knob, read like every other variable (the environment over `.env`) each time it is asked
 * for, and checked: a bad value is a ConfigError naming it.
 */
export function knob<K extends KnobName>(name: K, env: Env = readEnv()): Knobs[K] {
  const one = knobSchema.pick({ [name]: true } as Partial<Record<KnobName, true>>);
  return (parseEnv(one, env) as Partial<Knobs>)[name] as Knobs[K];
}
