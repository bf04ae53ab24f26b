/**
 * Redis restarted empty mid-import (docs/operators.md, "Durability"): a `redis-server` of the
 * test's own that keeps nothing on disk is SIGKILLed while `buildsync import bills` sends, and
 * started again at once, empty: the ledger, the queue and the import's outcomes are gone.
 *
 * - The import stops (exit 2, no stack trace) and still writes its report, naming every bill the
 *   sandbox stored as `created` with its ID.
 * - With Redis emptied once more (no worker left to write back what it had settled), a re-run
 *   stops before sending anything (exit 2), naming the created records the ledger does not know.
 * - `--ledger-lost accept` writes them into the ledger with the report's IDs and sends only the
 *   rest: every bill ends stored exactly once, as the sandbox counts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from './helpers/cli.ts';
import { rigOnRedis, writeBillsFile } from './helpers/fault-rounds.ts';
import { parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { startRedisProcess, type RedisProcess } from './helpers/redis-server-process.ts';

const BILLS = 40;
let base: E2eRig;
let server: RedisProcess;
let rig: E2eRig;
beforeAll(async () => {
  base = await startE2eRig({ projects: 60, latencyMs: 100 });
  // No AOF, no RDB: a restart comes back empty.
  server = await startRedisProcess([]);
  rig = await rigOnRedis(base, server.url);
});
afterAll(async () => {
  await rig?.close();
  await server?.close();
  await base?.close();
});

/** Bill creates the sandbox received for this file, per NOTES; and bills stored, per NOTES. */
function sandboxTally(tag: string): { posts: Map<string, number>; stored: Map<string, number[]> } {
  const posts = new Map<string, number>();
  for (const r of rig.sandbox.requests()) {
    if (r.method !== 'POST' || !/^\/api\/Bills/i.test(r.path)) continue;
    const notes = (JSON.parse(new URL(r.path, 'http://x.invalid').searchParams.get('Info')!) as { NOTES: string }).NOTES;
    if (notes.startsWith(`${tag} #`)) posts.set(notes, (posts.get(notes) ?? 0) + 1);
  }
  const stored = new Map<string, number[]>();
  for (const b of rig.sandbox.bills()) {
    const notes = (JSON.parse(b.info) as { NOTES: string }).NOTES;
    if (notes.startsWith(`${tag} #`)) stored.set(notes, [...(stored.get(notes) ?? []), b.id]);
  }
  return { posts, stored };
}

describe('Redis restarted empty while an import sends', () => {
  it('stops with its report written, then a re-run stops at the records the ledger lost, and --ledger-lost accept adopts their IDs: nothing stored twice', async () => {
    const file = writeBillsFile(rig, 'emptied', BILLS);
    const env = { ...rig.env, BUILDSYNC_CONCURRENCY: '2', BUILDSYNC_LEDGER_LEASE_MS: '1500', BUILDSYNC_LOCK_MS: '1500' };
    const cli = spawnCli(['import', 'bills', file.path], env, { cwd: rig.dir, timeoutMs: 90_000 });
    const until = Date.now() + 30_000;
    while (sandboxTally('emptied').stored.size < 8) {
      if (Date.now() > until) throw new Error(`no bills stored in 30 s:\n${cli.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await server.kill();
    await server.start();
    const first = await cli.result;

    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toMatch(/buildsync: sending stopped: the ledger's marker is gone from Redis \(it restarted empty, or its data was flushed\), so the ledger no longer knows what this import created\. \d+ records created before it stopped are in the report with their IDs: /);
    expect(first.stderr).toContain('[BUILDSYNC_LEDGER_UNSAFE]');
    expect(first.stderr).not.toMatch(/\n\s+at |unexpected error/);
    const afterFirst = sandboxTally('emptied');
    expect([...afterFirst.stored.values()].every((ids) => ids.length === 1)).toBe(true);
    expect(afterFirst.stored.size).toBeLessThan(BILLS);

    // Every bill the sandbox stored is `created` with its ID in the report; the others say they were not sent.
    const report = parseReport(readFileSync(`${file.path}.report.csv`, 'utf8'));
    expect(report).toHaveLength(BILLS);
    for (const l of report) {
      const notes = `emptied #${Number(l.line) - 1}`;
      const ids = afterFirst.stored.get(notes);
      if (ids) expect(l, notes).toMatchObject({ status: 'created', id: String(ids[0]) });
      else expect(l.message, notes).toMatch(/^not sent: sending stopped: the ledger's marker is gone/);
    }

    // The worker that sent them wrote what it had settled back into the Redis that came back; a
    // second restart, with no worker alive to do that, leaves the report as the only record.
    await server.kill();
    await server.start();

    // A re-run stops at the created records the ledger no longer knows, and sends nothing.
    const postsBefore = [...sandboxTally('emptied').posts.values()].reduce((a, b) => a + b, 0);
    const again = await runCli(['import', 'bills', file.path], env, { cwd: rig.dir, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/buildsync: emptied\.csv\.report\.csv \(written [\d-]+ [\d:]+ UTC\) lists \d+ records? as created that the ledger of account default does not know: line \d+ bill emptied-\d+ \/ project \d+ \/ vendor \d+ \(ID \d+\)/);
    expect(again.stderr).toContain('Nothing was sent. Restore the ledger from its backup (buildsync ledger import FILE), or, if the report is right, run the import again with --ledger-lost accept');
    expect([...sandboxTally('emptied').posts.values()].reduce((a, b) => a + b, 0)).toBe(postsBefore);

    // --ledger-lost accept: the report's IDs go into the ledger; only the missing bills are sent.
    const accepted = await runCli(['import', 'bills', file.path, '--ledger-lost', 'accept'], env, { cwd: rig.dir, timeoutMs: 60_000 });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toMatch(/--ledger-lost accept: \d+ records? that .*emptied\.csv\.report\.csv lists as created written into the ledger with the report's IDs; they are not sent again/);
    const end = sandboxTally('emptied');
    expect(end.stored.size).toBe(BILLS);
    for (const [notes, ids] of end.stored) expect(ids, notes).toHaveLength(1);
    for (const [notes, n] of end.posts) expect(n, notes).toBe(1);
    const last = parseReport(readFileSync(`${file.path}.report.csv`, 'utf8'));
    for (const l of last) {
      const notes = `emptied #${Number(l.line) - 1}`;
      const created = afterFirst.stored.get(notes);
      if (created) expect(l, notes).toMatchObject({ status: 'skipped', id: String(created[0]) });
      else expect(l, notes).toMatchObject({ status: 'created', id: String(end.stored.get(notes)![0]) });
    }
  }, 120_000);
});
