import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importLedger, Ledger } from '../src/ledger/index.ts';
import { LEDGER_KEYS_VERSION } from '../src/ledger/record-key.ts';
import { testRedis } from './helpers/redis.ts';

// The ledger keys a bill by its bill_ref as a person reads it; entries written before that rule
// (their field as first written) are migrated before any claim, and a `ledger import` of such
// entries makes the next claim migrate them too.
let t: Awaited<ReturnType<typeof testRedis>>;
let ledger: Ledger;
beforeEach(async () => {
  t = await testRedis();
  ledger = new Ledger(t.redis, t.prefix);
});
afterEach(() => t.cleanup());

const opts = (owner: string, importId = 'imp-new') => ({ owner, contentHash: 'h1', importId, allowResend: false });
const created = (id: number, importId = 'imp-old') => JSON.stringify({ state: 'created', id, contentHash: 'h0', importId, at: 1 });

describe('the ledger compares record keys as a person reads them', () => {
  it('finds INV-7 from inv-7 and Inv-7 ', async () => {
    expect((await ledger.claim('acct', 'bill:ref:INV-7|1042|55', opts('w1'))).action).toBe('send');
    await ledger.created('acct', 'bill:ref:INV-7|1042|55', 7, 'h1', 'imp-new');
    const again = await ledger.claim('acct', 'bill:ref:Inv-7\u00a0|1042|55', opts('w2', 'imp-2'));
    expect(again).toMatchObject({ action: 'skip', previous: { id: 7 } });
    expect(await ledger.get('acct', 'bill:ref:inv-7|1042|55')).toMatchObject({ state: 'created', id: 7 });
  });

  it('migrates entries written the old way before the first claim: a created one wins, others are kept', async () => {
    const key = ledger.key('acct');
    await t.redis.hset(key, 'bill:ref:INV-7|1042|55', created(7), 'bill:ref:inv-7|1042|55', JSON.stringify({ state: 'unknown', contentHash: 'h', importId: 'x', reason: 'r', at: 1 }), 'bill:ref:QB-9|1|2', created(9), 'estimate:project:5', created(5));
    expect((await ledger.claim('acct', 'bill:ref:inv-7|1042|55', opts('w1'))).action).toBe('skip');
    expect((await ledger.claim('acct', 'bill:ref:qb-9|1|2', opts('w1'))).action).toBe('skip');
    expect(await t.redis.get(ledger.keysMarker('acct'))).toBe(LEDGER_KEYS_VERSION);
    expect(Object.keys(await t.redis.hgetall(key)).sort()).toEqual(['bill:ref:INV-7|1042|55', 'bill:ref:QB-9|1|2', 'bill:ref:inv-7|1042|55', 'bill:ref:qb-9|1|2', 'estimate:project:5']);
  });

  it('migrates again after a ledger import brings old-way entries into a migrated ledger', async () => {
    expect((await ledger.claim('acct', 'estimate:project:1', opts('w1'))).action).toBe('send');
    expect(await t.redis.get(ledger.keysMarker('acct'))).toBe(LEDGER_KEYS_VERSION);
    const line = JSON.stringify({ account: 'acct', key: 'bill:ref:OLD-1|3|4', entry: JSON.parse(created(11)) as unknown });
    await importLedger(t.redis, t.prefix, 'acct', [line]);
    expect(await t.redis.get(ledger.keysMarker('acct'))).not.toBe(LEDGER_KEYS_VERSION);
    expect(await ledger.claim('acct', 'bill:ref:old-1|3|4', opts('w2'))).toMatchObject({ action: 'skip', previous: { id: 11 } });
  });
});
