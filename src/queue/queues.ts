import { Queue } from 'bullmq';
import type { RedisConnection } from '../redis/layout.ts';
import { QUEUE, queuePrefix } from './names.ts';
import { RETENTION } from './retention.ts';

/** The three queues of a producer (CLI), on one fail-fast connection. */
export class Queues {
  readonly exports: Queue;
  readonly imports: Queue;
  readonly records: Queue;

  /** BullMQ's prefix: BUILDSYNC_PREFIX, as the hash tag `{PREFIX}` on a cluster (names.ts). */
  readonly queuePrefix: string;

  constructor(
    readonly connection: RedisConnection,
    readonly prefix: string,
  ) {
    this.queuePrefix = queuePrefix(connection, prefix);
    const opts = { connection, prefix: this.queuePrefix };
    this.exports = new Queue(QUEUE.exports, { ...opts, defaultJobOptions: RETENTION.exports });
    this.imports = new Queue(QUEUE.imports, { ...opts, defaultJobOptions: RETENTION.imports });
    this.records = new Queue(QUEUE.records, { ...opts, defaultJobOptions: RETENTION.records });
    // A Queue without an error listener prints every Redis error with its stack (console.error);
    // the connection's own listener (connection.ts) already reports the cause once per 10 s.
    for (const q of this.all()) q.on('error', () => {});
  }

  all(): Queue[] {
    return [this.exports, this.imports, this.records];
  }

  /** The fully qualified name BullMQ wants in a child's `parent.queue`. */
  qualified(queue: Queue): string {
    return `${this.queuePrefix}:${queue.name}`;
  }

  /** Closes in reverse order of opening; the first error wins. */
  async close(): Promise<void> {
    let first: unknown;
    for (const q of this.all().reverse()) {
      try {
        await q.close();
      } catch (err) {
        first ??= err;
      }
    }
    if (first) throw first;
  }
}
