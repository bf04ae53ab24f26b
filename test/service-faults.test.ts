/**
 * Seed §7 (500) and the failures a network adds: what the client retries on its own (reads,
 * and creates that certainly never left), and what it hands back (a create that may have been
 * stored is never resent by the client: README, Reports, re-runs and `unknown`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../src/api/index.ts';
import { NetworkError, ServerError } from '../src/errors/index.ts';
import { startSandbox, type Sandbox } from '../src/sandbox/index.ts';
import { clientFor, collect, freeProjectIds, requestsTo } from './helpers/sandbox-client.ts';

let sandbox: Sandbox;
let client: ServiceClient;
beforeEach(async () => {
  sandbox = await startSandbox({ projects: 60, limits: 'none' });
  client = clientFor(sandbox, { retries: 5 });
});
afterEach(async () => {
  await client.close();
  await sandbox.close();
});

const bill = (prj: number) => ({ PRJ_ID: prj, VENDOR_ID: 9, ITEMS: [{ NAME: 'x', RATE: '10' }] });

describe('500 before anything is stored, on the listings (failBeforeStore with onGets)', () => {
  it('the client retries each failed request and both listings complete', async () => {
    sandbox.setFaults({ failBeforeStore: 0.4, onGets: true, seed: 7 });
    const expected = sandbox.visibleProjectIds(sandbox.credentials.email, true);
    const v2 = await collect(client.listProjectsV2({ includeClientSub: true }));
    expect(v2.map((p) => p.ID)).toEqual(expected);
    const paged = await collect(client.listProjectsPaged({ pageSize: 5 }));
    expect(paged.map((p) => p.ID)).toEqual(expected);
    const statuses = sandbox.requests().map((r) => r.status);
    expect(statuses.filter((s) => s === 500).length).toBeGreaterThan(1);
    expect(statuses.every((s) => s === 200 || s === 500)).toBe(true);
  });

  it('gives up after the configured retries with a ServerError', async () => {
    sandbox.setFaults({ failBeforeStore: 1, onGets: true });
    const few = clientFor(sandbox, { retries: 2 });
    try {
      const err = await collect(few.listProjectsV2({ includeClientSub: false })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect((err as ServerError).code).toBe('BUILDSYNC_HTTP_5XX');
      expect((err as ServerError).serviceMessage).toBe('An error has occurred.');
      expect(sandbox.requests().map((r) => r.status)).toEqual([500, 500, 500]);
    } finally {
      await few.close();
    }
  });

  it('dropped connections on a GET are retried too', async () => {
    sandbox.setFaults({ dropBeforeStore: 0.5, onGets: true, seed: 3 });
    const paged = await collect(client.listProjectsPaged({ pageSize: 10 }));
    expect(paged.map((p) => p.ID)).toEqual(sandbox.visibleProjectIds(sandbox.credentials.email, true));
    expect(sandbox.requests().some((r) => r.status === 0)).toBe(true);
  });
});

describe('faults on creates', () => {
  it('a bill whose connection drops after it was stored is a maybe-delivered NetworkError, sent once', async () => {
    sandbox.setFaults({ dropAfterStore: 1 });
    const err = await client.createBill(bill(freeProjectIds(sandbox)[0]!)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe('BUILDSYNC_NETWORK');
    expect((err as NetworkError).maybeDelivered).toBe(true);
    expect((err as NetworkError).message).toMatch(/may or may not have acted on it/);
    // The sandbox did store it, and the client did not send it again.
    expect(sandbox.bills()).toHaveLength(1);
    expect(requestsTo(sandbox, 'POST', '/api/Bills').map((r) => r.status)).toEqual([0]);
  });

  it('a bill dropped before it was stored is still a maybe-delivered NetworkError: the client cannot tell', async () => {
    sandbox.setFaults({ dropBeforeStore: 1 });
    const err = await client.createBill(bill(freeProjectIds(sandbox)[0]!)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).maybeDelivered).toBe(true);
    expect(sandbox.bills()).toHaveLength(0);
    expect(requestsTo(sandbox, 'POST', '/api/Bills')).toHaveLength(1);
  });

  it('an estimate answered 500 after it was stored is a ServerError, not resent, and the sandbox holds it', async () => {
    sandbox.setFaults({ failAfterStore: 1 });
    const projectId = freeProjectIds(sandbox)[0]!;
    const err = await client.createEstimate({ NAME: 'Stored then 500', PROJECT_ID: projectId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).status).toBe(500);
    expect(sandbox.estimates().map((e) => [e.projectId, (e.payload as { NAME: string }).NAME])).toEqual([[projectId, 'Stored then 500']]);
    expect(requestsTo(sandbox, 'POST', '/api/v2/estimates').map((r) => r.status)).toEqual([500]);
  });

  it('a create answered 500 before storing is not resent by the client either (the caller decides)', async () => {
    sandbox.setFaults({ failBeforeStore: 1 });
    const err = await client.createBill(bill(freeProjectIds(sandbox)[0]!)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(sandbox.bills()).toHaveLength(0);
    expect(requestsTo(sandbox, 'POST', '/api/Bills').map((r) => r.status)).toEqual([500]);
  });

  it('a create to a closed port never left: a NetworkError with maybeDelivered false', async () => {
    const { url } = sandbox;
    await client.close();
    await sandbox.close();
    const dead = clientFor({ ...sandbox, url } as Sandbox, { retries: 1 });
    try {
      const err = await dead.createBill(bill(10_001)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).maybeDelivered).toBe(false);
      expect((err as NetworkError).message).toMatch(/nothing was sent/);
    } finally {
      await dead.close();
    }
    // afterEach closes again: give it fresh ones.
    sandbox = await startSandbox({ projects: 1, limits: 'none' });
    client = clientFor(sandbox);
  });
});
