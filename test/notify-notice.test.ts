import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { noticeOf } from '../src/queue/notify.ts';

/** What a failed job looks like to the notifier (the fields noticeOf reads). */
function failedJob(failedReason: string): Job {
  return {
    id: 'j1',
    name: 'export-projects',
    data: { account: 'default' },
    repeatJobKey: undefined,
    failedReason,
    attemptsMade: 3,
    attemptsStarted: 5,
    finishedOn: Date.UTC(2026, 10, 23, 2, 0, 41),
  } as unknown as Job;
}

describe('a failure notice always carries a stable code', () => {
  it('the code the failure carries, and the message without it', () => {
    const n = noticeOf(failedJob('[BUILDSYNC_NETWORK] the connection to the service was lost'));
    expect(n).toMatchObject({ code: 'BUILDSYNC_NETWORK', message: 'the connection to the service was lost', attempts: 3, started: 5, failed_at: '2026-11-23T02:00:41.000Z' });
  });

  it('BUILDSYNC_INTERRUPTED for BullMQ failing a job whose workers kept dying', () => {
    expect(noticeOf(failedJob('job stalled more than allowable limit')).code).toBe('BUILDSYNC_INTERRUPTED');
    expect(noticeOf(failedJob('job started more than allowable limit')).code).toBe('BUILDSYNC_INTERRUPTED');
  });

  it('BUILDSYNC_UNEXPECTED for a failure that carries no code (a bug), the message kept whole', () => {
    const n = noticeOf(failedJob("Cannot read properties of undefined (reading 'ID')"));
    expect(n.code).toBe('BUILDSYNC_UNEXPECTED');
    expect(n.message).toBe("Cannot read properties of undefined (reading 'ID')");
  });
});
