import type { Job, Queue } from 'bullmq';
import { InterruptedError } from '../errors/index.ts';
import type { CommandContext } from './command.ts';

export interface Followed {
  state: 'completed' | 'failed';
  job: Job;
}

/**
 * Polls a job until it completes or fails, calling `onTick` with the job between polls.
 * On Ctrl-C it stops following (the job itself goes on in the queue) and says how to look it up.
 */
export async function followJob(
  ctx: CommandContext,
  queue: Queue,
  jobId: string,
  onTick: (job: Job) => Promise<void> | void,
  intervalMs = 300,
  /** Runs first at every poll, and may end the following by throwing (an import whose ledger Redis lost). */
  check?: () => Promise<void>,
): Promise<Followed> {
  for (;;) {
    if (ctx.signal.aborted) {
      throw new InterruptedError(`stopped following job ${jobId}; it goes on in the queue: buildsync jobs show ${jobId}`);
    }
    await check?.();
    // The state first, the job after it: a job read first, then found `failed` or `completed`,
    // may have ended in between, and its copy then holds neither its failure nor its result (an
    // export refused with 401 exited 1 instead of 3, its failedReason unread, on a loaded machine).
    // Read after its state, the job holds at least what that state says.
    const state = await queue.getJobState(jobId);
    const job = await queue.getJob(jobId);
    if (!job) {
      // Gone while Redis was away: the check tells when that is what happened (Redis came back empty).
      await check?.();
      throw new Error(`job ${jobId} disappeared from ${queue.name}`);
    }
    await onTick(job);
    if (state === 'completed' || state === 'failed') return { state, job };
    // The abort listener goes with its timer: one left per poll would pile up on a long follow
    // (Node warns at 11: MaxListenersExceededWarning, seen on a slow import's --resend-unknown).
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        ctx.signal.removeEventListener('abort', onAbort);
        resolve();
      }, intervalMs);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
