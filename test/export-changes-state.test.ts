/**
 * The change state of `--changes` / `--to postgres` (docs/data-teams.md) is written to Redis in
 * batches that a Lua script splits into HSET fields (src/export/changes.ts): whatever a
 * project's number and name hold (multi-byte text, colons, line breaks, digits that look like
 * the batch's length fields), they come back exactly as last seen when the project is removed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeTracker } from '../src/export/changes.ts';
import { exportStateKeyOf } from '../src/redis/layout.ts';
import { testRedis } from './helpers/redis.ts';

let t: Awaited<ReturnType<typeof testRedis>>;
let dir: string;
beforeEach(async () => {
  t = await testRedis();
  dir = await mkdtemp(path.join(tmpdir(), 'changes-state-'));
});
afterEach(async () => {
  await t.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const awkward = [
  { ID: 11, PROJECT_NUMBER: '2026:017', NAME: 'École Saint-Exupéry: aile B' },
  { ID: 12, PROJECT_NUMBER: 'P-00000042:', NAME: '工事 第二期 — 東京' },
  { ID: 13, PROJECT_NUMBER: '', NAME: 'Two\nlines, "quoted", 00000012:tail' },
  { ID: 14, PROJECT_NUMBER: null, NAME: '🏗️ emoji crane' },
];

async function run(projects: Record<string, unknown>[], n: number) {
  const key = exportStateKeyOf(t.redis, t.prefix, 'acct', 'v2:true:all');
  const tracker = await ChangeTracker.open({
    redis: t.redis,
    key,
    nextKey: exportStateKeyOf(t.redis, t.prefix, 'acct', 'v2:true:all', `next${n}`),
    changesPath: path.join(dir, `run${n}-changes.csv`),
  });
  for (const p of projects) await tracker.write(p);
  await tracker.prepare();
  await tracker.commit();
  const rows = parse(await readFile(tracker.changesPath!, 'utf8'), { columns: true }) as Record<string, string>[];
  return { counts: tracker.counts, rows, key };
}

describe('the change state in Redis', () => {
  it('gives back each removed project\'s number and name byte for byte, however they are spelled', async () => {
    // More than one batch of entries (2,000 per batch), so the split runs over several script calls.
    const filler = Array.from({ length: 4_500 }, (_, i) => ({ ID: 1_000 + i, PROJECT_NUMBER: `N${i}`, NAME: `Project ${i}` }));
    const first = await run([...awkward, ...filler], 1);
    expect(first.counts).toEqual({ added: 4_504, changed: 0, removed: 0 });
    expect(await t.redis.hlen(first.key)).toBe(4_504);

    const second = await run(filler.slice(1), 2);
    expect(second.counts).toEqual({ added: 0, changed: 0, removed: 5 });
    const removed = second.rows.map((r) => ({ change: r.change, ID: r.ID, PROJECT_NUMBER: r.PROJECT_NUMBER, NAME: r.NAME }));
    expect(removed.sort((a, b) => Number(a.ID) - Number(b.ID))).toEqual(
      [...awkward, filler[0]!].map((p) => ({ change: 'removed', ID: String(p.ID), PROJECT_NUMBER: p.PROJECT_NUMBER ?? '', NAME: p.NAME })),
    );
    expect(await t.redis.hlen(second.key)).toBe(4_499);
  });

  it('reports nothing changed on a re-run of the same projects, the awkward ones included', async () => {
    await run(awkward, 1);
    const again = await run(awkward, 2);
    expect(again.counts).toEqual({ added: 0, changed: 0, removed: 0 });
    expect(again.rows).toEqual([]);
  });
});
