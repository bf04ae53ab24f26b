/**
 * The queues and job kinds, in one place. Three queues so that each kind of work gets its own
 * concurrency: a few long jobs (exports, import parents) must never crowd out the many short
 * record jobs, nor the reverse.
 */
export const QUEUE = {
  /** project exports, one job per file */
  exports: 'buildsync-exports',
  /** import parents: one per imported file; they wait for their records and build the report */
  imports: 'buildsync-imports',
  /** one job per estimate or bill to create: one request each */
  records: 'buildsync-records',
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

export const JOB = {
  exportProjects: 'export-projects',
  importEstimates: 'import-estimates',
  importBills: 'import-bills',
  sendEstimate: 'send-estimate',
  sendBill: 'send-bill',
} as const;

export type JobKind = (typeof JOB)[keyof typeof JOB];

/** Key prefix of every BullMQ, ledger and throttle key; tests use their own. */
export const DEFAULT_PREFIX = 'buildsync';

/** The key layout of queues, budgets, ledgers and imports lives with the other Redis helpers that every layer uses. */
export { queuePrefix, throttleKeyBase, ledgerKeyOf, importKeyOf, exportStateKeyOf, prefixPatterns, keySlot, type KeyConnection } from '../redis/layout.ts';
