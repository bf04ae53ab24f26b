import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Ledger } from '../src/ledger/index.ts';
import { testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
let ledger: Ledger;
beforeEach(async () => {
  t = await testRedis();
  ledger = new Ledger(t.redis, t.prefix);
});
afterEach(() => t.cleanup());

const opts = (allowResend = false) => ({ contentHash: 'h1', importId: 'imp1', allowResend });

describe('ledger', () => {
  it('lets only one of many concurrent attempts send a record', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => ledger.begin('acct', 'bill:ref:A', opts())));
    expect(results.filter((r) => r.action === 'send')).toHaveLength(1);
    expect(results.filter((r) => r.action === 'unknown')).toHaveLength(19);
  });

  it('reports a created record as skip with its id on a later run', async () => {
    expect((await ledger.begin('acct', 'k', opts())).action).toBe('send');
    await ledger.created('acct', 'k', 4242, 'h1', 'imp1');
    const again = await ledger.begin('acct', 'k', { ...opts(true), importId: 'imp2' });
    expect(again).toMatchObject({ action: 'skip', previous: { state: 'created', id: 4242, contentHash: 'h1', importId: 'imp1' } });
  });

  it('turns an orphaned sending entry into unknown when resends are not allowed (bills)', async () => {
    await ledger.begin('acct', 'k', opts());
    // The first worker died mid-request: the next attempt finds `sending`.
    const r = await ledger.begin('acct', 'k', opts(false));
    expect(r.action).toBe('unknown');
    expect((await ledger.get('acct', 'k'))?.state).toBe('unknown');
    // And it stays unknown on every later run until --resend-unknown.
    expect((await ledger.begin('acct', 'k', opts(false))).action).toBe('unknown');
  });

  it('sends an unknown record again when the caller allows it (estimates, --resend-unknown)', async () => {
    await ledger.begin('acct', 'k', opts());
    await ledger.unknown('acct', 'k', 'socket closed after the request was sent', 'h1', 'imp1');
    const r = await ledger.begin('acct', 'k', opts(true));
    expect(r).toMatchObject({ action: 'resend', previous: { state: 'unknown', reason: 'socket closed after the request was sent' } });
    expect((await ledger.get('acct', 'k'))?.state).toBe('sending');
  });

  it('forgets a record the service certainly did not store, so the next attempt sends it', async () => {
    await ledger.begin('acct', 'k', opts());
    await ledger.release('acct', 'k');
    expect((await ledger.begin('acct', 'k', opts())).action).toBe('send');
  });

  it('keeps accounts apart', async () => {
    await ledger.begin('a', 'k', opts());
    await ledger.created('a', 'k', 1, 'h1', 'imp1');
    expect((await ledger.begin('b', 'k', opts())).action).toBe('send');
  });
});
