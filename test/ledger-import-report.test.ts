import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportStore } from '../src/import/index.ts';
import { staticLine } from '../src/mapping/index.ts';
import { importKeyOf } from '../src/redis/layout.ts';
import { Ledger } from '../src/ledger/index.ts';
import { testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
let store: ImportStore;
beforeEach(async () => {
  t = await testRedis();
  store = new ImportStore(t.redis, t.prefix);
});
afterEach(() => t.cleanup());

describe('import store', () => {
  it('assembles one report line per input row, in line order, from plan and outcomes', async () => {
    await store.savePlan(
      'i1',
      [
        { key: 'estimate:project:1', label: 'project 1 / Kitchen', lines: [2, 5] },
        { key: 'estimate:project:2', label: 'project 2 / Bath', lines: [3] },
      ],
      [{ line: 4, record: 'project 9 / Deck', status: 'invalid', message: 'qty: expected a number' }],
    );
    expect(await store.settle('i1', 'estimate:project:1', { status: 'created', id: 77, message: '' })).toBe(true);
    await store.settle('i1', 'estimate:project:2', { status: 'exists', message: 'project 2 already has an estimate' });
    const report = await store.report('i1');
    expect(report.map((l) => [l.line, l.status, l.id])).toEqual([
      [2, 'created', 77],
      [3, 'exists', ''],
      [4, 'invalid', ''],
      [5, 'created', 77],
    ]);
    expect(await store.counts('i1')).toMatchObject({ created: 1, exists: 1, settled: 2 });
  });

  it('keeps the first outcome of a record when a duplicated job settles it again', async () => {
    await store.settle('i1', 'k', { status: 'created', id: 5, message: '' });
    expect(await store.settle('i1', 'k', { status: 'skipped', id: 5, message: 'already created' })).toBe(false);
    expect((await store.outcome('i1', 'k'))?.status).toBe('created');
  });

  it("reads a record job's records, the import's meta and which records are settled in one round trip, keys with quotes, backslashes and accents included", async () => {
    const keys = ['bill:plain', 'bill:"quoted" \\ back\\"slash', 'bill:Café ☕ \u0001', 'bill:last'];
    await store.saveMeta({ importId: 'i4', kind: 'bills', account: 'acct', file: 'b.csv', rows: 4, records: 4, invalidRows: 0, createdAt: 0 });
    await store.appendPlan(
      'i4',
      0,
      keys.map((key, i) => ({ key, label: `bill ${i}`, lines: [i + 2], contentHash: `h${i}`, payloadJson: JSON.stringify({ Title: `"${key}"`, n: i }) })),
      [],
    );
    await store.settle('i4', keys[1]!, { status: 'failed', message: 'refused' });
    await store.settle('i4', keys[2]!, { status: 'created', id: 9, message: '' });
    await t.redis.hset(importKeyOf(t.redis, t.prefix, 'i4', 'outcomes'), 'bill:"quoted"', 'not this record');

    // One script (EVALSHA, or EVAL where Redis does not have it yet): no other command.
    const sent: string[] = [];
    const send = t.redis.sendCommand;
    t.redis.sendCommand = function (this: typeof t.redis, ...args: Parameters<typeof send>) {
      sent.push(args[0].name);
      return send.apply(this, args);
    };
    const read = await store.recordsToSend('i4', 0, 4).finally(() => (t.redis.sendCommand = send));
    expect(sent.filter((name) => name !== 'evalsha' && name !== 'eval')).toEqual([]);
    expect(read.meta).toMatchObject({ importId: 'i4', kind: 'bills', records: 4 });
    expect(read.records.map((r) => [r?.key, r?.settled])).toEqual([
      [keys[0], false],
      [keys[1], true],
      [keys[2], true],
      [keys[3], false],
    ]);
    expect(read.records[1]).toMatchObject({ label: 'bill 1', lines: [3], contentHash: 'h1', payloadJson: JSON.stringify({ Title: `"${keys[1]}"`, n: 1 }) });
    // Past the plan, or an import that is gone: undefined, as the job needs to say it cannot be sent.
    expect((await store.recordsToSend('i4', 3, 2)).records.map((r) => r?.key)).toEqual([keys[3], undefined]);
    expect(await store.recordsToSend('gone', 0, 1)).toEqual({ meta: undefined, records: [undefined] });
  });

  it('reports a record with no outcome as pending while the import runs, and afterwards as its ledger entry says', async () => {
    await store.saveMeta({ importId: 'i2', kind: 'bills', account: 'acct', file: 'b.csv', rows: 3, records: 3, invalidRows: 0, createdAt: 0 });
    await store.savePlan(
      'i2',
      [
        { key: 'never', label: 'bill A', lines: [2] },
        { key: 'handed', label: 'bill B', lines: [3] },
        { key: 'done', label: 'bill C', lines: [4] },
      ],
      [],
    );
    const ledger = new Ledger(t.redis, t.prefix);
    await ledger.claim('acct', 'never', { owner: 'dead', contentHash: 'h', importId: 'i2', allowResend: false });
    await ledger.claim('acct', 'handed', { owner: 'dead', contentHash: 'h', importId: 'i2', allowResend: false });
    await ledger.handOver('acct', 'handed', 'dead');
    await ledger.claim('acct', 'done', { owner: 'dead', contentHash: 'h', importId: 'i2', allowResend: false });
    await ledger.created('acct', 'done', 88, 'h', 'i2');

    const running = await store.report('i2', { running: true });
    expect(running.map((l) => l.status)).toEqual(['pending', 'pending', 'pending']);
    const ended = await store.report('i2');
    // Never handed over: failed (a later run sends it), never unknown; handed over: unknown.
    expect(ended.map((l) => [l.line, l.status, l.id])).toEqual([
      [2, 'failed', ''],
      [3, 'unknown', ''],
      [4, 'created', 88],
    ]);
    expect(ended[0]!.message).toMatch(/never sent: .*run the import again/);
  });

  it("keeps a planned line's message in the CLI's words and never its page wording (the report's format is unchanged)", async () => {
    const hidden = staticLine(7, '', 'ignored', ['hidden row: not read (', { kind: 'hidden-skip' }, ')'], 'hidden');
    expect(hidden.wording).toBeDefined();
    await store.savePlan('i3', [], [hidden]);
    const stored = await t.redis.lrange(importKeyOf(t.redis, t.prefix, 'i3', 'static'), 0, -1);
    expect(stored.map((l) => JSON.parse(l) as unknown)).toEqual([{ line: 7, record: '', status: 'ignored', reason: 'hidden', message: 'hidden row: not read (--hidden skip)' }]);
    expect(await store.report('i3')).toEqual([{ line: 7, record: '', status: 'ignored', id: '', message: 'hidden row: not read (--hidden skip)' }]);
  });
});
