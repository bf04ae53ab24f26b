import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ServiceClient } from '../src/api/index.ts';
import type { ImportStore, Ledger } from '../src/ledger/index.ts';

/** What a processor gets besides its job: opened once per worker process by the queue layer. */
export interface JobContext {
  prefix: string;
  redis: Redis;
  ledger: Ledger;
  store: ImportStore;
  log: Logger;
  /** The client of an account, throttled by its shared budget; the account is named in job data, its secrets come from this process's environment. */
  client(account: string): ServiceClient;
  /**
   * Puts an import's progress (percent of its records settled) on its parent job, so the
   * dashboard and `jobs list` show it; rate-limited per import inside the worker process.
   */
  importProgress(importId: string): Promise<void>;
  /** Counters for metrics; no-ops where no metrics are served. */
  count(event: 'rows' | 'created' | 'failed' | 'unknown' | 'skipped' | 'exists', n?: number): void;
}
