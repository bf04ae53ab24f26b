import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimLostError, Ledger } from '../src/ledger/index.ts';
import { failure } from './helpers/failure.ts';
import { testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
let ledger: Ledger;
/** A short lease: a claim whose owner stops renewing it expires within the test. */
const LEASE_MS = 300;
beforeEach(async () => {
  t = await testRedis();
  ledger = new Ledger(t.redis, t.prefix, { leaseMs: LEASE_MS });
});
afterEach(() => t.cleanup());

const opts = (owner: string, allowResend = false, importId = 'imp1') => ({ owner, contentHash: 'h1', importId, allowResend });

describe('the ledger: claims with owners and leases', () => {
  it('lets exactly one of twenty concurrent senders claim a record', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.claim('acct', 'bill:ref:A', opts(`w${i}`))));
    expect(results.filter((r) => r.action === 'send')).toHaveLength(1);
    expect(results.filter((r) => r.action === 'busy')).toHaveLength(19);
  });

  it('skips a record created before, with its id', async () => {
    expect((await ledger.claim('acct', 'k', opts('w1'))).action).toBe('send');
    await ledger.handOver('acct', 'k', 'w1');
    await ledger.created('acct', 'k', 4242, 'h1', 'imp1');
    const again = await ledger.claim('acct', 'k', opts('w2', true, 'imp2'));
    expect(again).toMatchObject({ action: 'skip', previous: { state: 'created', id: 4242, importId: 'imp1' } });
  });

  it("never turns another live sender's claim into unknown: it is busy while the owner renews it", async () => {
    await ledger.claim('acct', 'k', opts('alive'));
    await ledger.handOver('acct', 'k', 'alive');
    for (let i = 0; i < 4; i++) {
      await sleep(LEASE_MS / 2);
      expect(await ledger.renew('acct', 'k', 'alive')).toBe(true);
      expect((await ledger.claim('acct', 'k', opts('other', false, 'imp2'))).action).toBe('busy');
    }
    expect((await ledger.get('acct', 'k'))?.state).toBe('sending');
  });

  it('takes over an expired claim that was never handed over: the record was not sent, so it is sent, not unknown', async () => {
    await ledger.claim('acct', 'k', opts('dead'));
    await sleep(LEASE_MS + 100);
    expect((await ledger.claim('acct', 'k', opts('next'))).action).toBe('send');
    // The dead owner can no longer hand it over.
    expect(await failure(ledger.handOver('acct', 'k', 'dead'))).toBeInstanceOf(ClaimLostError);
    await ledger.handOver('acct', 'k', 'next');
  });

  it('turns an expired sending entry (its worker died mid-request) into unknown, resent only when allowed', async () => {
    await ledger.claim('acct', 'k', opts('dead'));
    await ledger.handOver('acct', 'k', 'dead');
    await sleep(LEASE_MS + 100);
    const r = await ledger.claim('acct', 'k', opts('next'));
    expect(r.action).toBe('unknown');
    expect((await ledger.get('acct', 'k'))?.state).toBe('unknown');
    expect((await ledger.claim('acct', 'k', opts('next'))).action).toBe('unknown');
    const resend = await ledger.claim('acct', 'k', opts('user-said-so', true));
    expect(resend.action).toBe('resend');
    expect((await ledger.get('acct', 'k'))).toMatchObject({ state: 'claimed', owner: 'user-said-so' });
  });

  it('releases only the owner’s own claim, so that a refused record is sent again', async () => {
    await ledger.claim('acct', 'k', opts('w1'));
    await ledger.release('acct', 'k', 'somebody-else');
    expect((await ledger.get('acct', 'k'))?.owner).toBe('w1');
    await ledger.release('acct', 'k', 'w1');
    expect((await ledger.claim('acct', 'k', opts('w2'))).action).toBe('send');
  });

  it('keeps a created entry over a late unknown', async () => {
    await ledger.claim('acct', 'k', opts('w1'));
    await ledger.created('acct', 'k', 7, 'h1', 'imp1');
    await ledger.unknown('acct', 'k', 'late', 'h1', 'imp1');
    expect(await ledger.get('acct', 'k')).toMatchObject({ state: 'created', id: 7 });
  });

  it('keeps each account apart', async () => {
    await ledger.claim('a', 'k', opts('w1'));
    await ledger.created('a', 'k', 1, 'h1', 'imp1');
    expect((await ledger.claim('b', 'k', opts('w2'))).action).toBe('send');
  });
});
