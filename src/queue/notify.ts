import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { backoffMs, parseFailureReason } from '../errors/index.ts';
import type { Secret } from '../secret.ts';
import { JOB } from './names.ts';

/**
 * BUILDSYNC_NOTIFY_URL (README, Configuration, §5b): one JSON POST when an export or import job (never a
 * per-record job) fails after its last attempt. The body (docs/data-teams.md):
 *
 *   {"event":"job.failed","job_id":"…","kind":"export-projects","account":"default",
 *    "schedule":"export-projects-default","code":"BUILDSYNC_HTTP_5XX","message":"…",
 *    "attempts":3,"started":3,"failed_at":"2026-11-23T02:00:41.120Z"}
 *
 * Never a secret: the job data carries the account's name only, and the message is the job's
 * failed reason, which the error hierarchy keeps free of passwords, keys and URLs' credentials.
 * Delivery: a 5 s timeout per try, at most 3 tries with jittered backoff; a notification that
 * cannot be delivered is logged once (naming the URL's origin only: a webhook's path is often its
 * token) and fails nothing.
 */
export interface FailureNotice {
  event: 'job.failed';
  job_id: string;
  kind: string;
  account: string | null;
  /** The job scheduler that made the job (`schedule export-projects --name`), or null. */
  schedule: string | null;
  /** The stable error code; `BUILDSYNC_UNEXPECTED` for a failure that carries none (a bug: the message says what). */
  code: string;
  message: string;
  /** Attempts used (BullMQ's attemptsMade): a stall or a worker handing the job back uses none. */
  attempts: number;
  /** Times a worker started the job, stalls and hand-backs included (BullMQ's attemptsStarted). */
  started: number;
  failed_at: string;
}

export interface NotifierOptions {
  url: Secret;
  log: Logger;
  /** Per try. @defaultValue 5_000 */
  timeoutMs?: number;
  /** @defaultValue 3 */
  tries?: number;
  /** Base of the jittered backoff between tries. @defaultValue 500 */
  backoffBaseMs?: number;
}

/** The job kinds a notification is sent for: exports and imports, never the per-record jobs. */
const NOTIFIED_KINDS: ReadonlySet<string> = new Set([JOB.exportProjects, JOB.importEstimates, JOB.importBills]);

/** Whether this `failed` event is the job's last: BullMQ sets `finishedOn` only when it moves the job to failed for good. */
export function failedForGood(job: Job): boolean {
  return typeof job.finishedOn === 'number' && job.finishedOn > 0;
}

export class Notifier {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly origin: string;

  constructor(private readonly opts: NotifierOptions) {
    this.origin = safeOrigin(opts.url.reveal());
  }

  /** The worker's `failed` listener: sends for a final failure of an export or import job; returns at once. */
  jobFailed(job: Job | undefined): void {
    if (!job || !NOTIFIED_KINDS.has(job.name) || !failedForGood(job)) return;
    const p = this.send(noticeOf(job)).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Waits (at most `ms`) for notifications on their way, so a closing worker does not drop them. */
  async drain(ms = 5_000): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /** Never rejects. */
  async send(notice: FailureNotice): Promise<void> {
    const tries = this.opts.tries ?? 3;
    let last = '';
    for (let attempt = 1; attempt <= tries; attempt++) {
      try {
        const res = await fetch(this.opts.url.reveal(), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'buildsync' },
          body: JSON.stringify(notice),
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5_000),
          redirect: 'error',
        });
        await res.body?.cancel().catch(() => {});
        if (res.ok) return;
        last = `answered ${res.status}`;
        // A 4xx other than 408/429 will be refused again: no point trying.
        if (res.status < 500 && res.status !== 408 && res.status !== 429) break;
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        last = e.name === 'TimeoutError' ? `no answer in ${this.opts.timeoutMs ?? 5_000} ms` : (e.cause?.code ?? e.name);
      }
      if (attempt < tries) await new Promise((r) => setTimeout(r, backoffMs(attempt, this.opts.backoffBaseMs ?? 500, 5_000)));
    }
    this.opts.log.warn({ job: notice.job_id, kind: notice.kind, to: this.origin }, `could not deliver the failure notification of job ${notice.job_id} to ${this.origin} (${last}); nothing else is affected`);
  }
}

/** BullMQ's reasons (worker.js, moveStalledJobsToWait.lua) for a job whose workers kept dying. */
const WORKERS_KEPT_DYING = /^job (stalled|started) more than allowable limit$/;

export function noticeOf(job: Job): FailureNotice {
  const parsed = parseFailureReason(job.failedReason);
  const { message } = parsed;
  // BullMQ's own reasons for failing a job whose workers kept dying carry no code of ours: they
  // are interruptions (the worker process was killed or lost its lock), not the job's own error.
  // Anything else without a code is an error buildsync did not expect (a bug): a code all the
  // same, so that an alert rule can match on every notice.
  const code = parsed.code ?? (WORKERS_KEPT_DYING.test(message) ? 'BUILDSYNC_INTERRUPTED' : 'BUILDSYNC_UNEXPECTED');
  const account = (job.data as { account?: unknown } | undefined)?.account;
  return {
    event: 'job.failed',
    job_id: String(job.id),
    kind: job.name,
    account: typeof account === 'string' ? account : null,
    schedule: job.repeatJobKey ?? null,
    code,
    message,
    attempts: job.attemptsMade,
    started: Math.max(job.attemptsStarted ?? 0, job.attemptsMade),
    failed_at: new Date(job.finishedOn ?? Date.now()).toISOString(),
  };
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the notify URL';
  }
}
