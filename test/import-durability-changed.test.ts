/**
 * Persistence read again while an import sends (docs/operators.md, "Durability"): a `redis-server`
 * of the test's own with AOF (`appendfsync always`) has AOF switched off mid-import
 * (`CONFIG SET appendonly no`). Sending stops within 10 s (the knob reads every 250 ms here; 5 s by
 * default), the command exits 2 with the report written and no stack trace, every bill the
 * sandbox stored is `created` in the report, and the rest say they were not sent.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './helpers/cli.ts';
import { rigOnRedis, writeBillsFile } from './helpers/fault-rounds.ts';
import { parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { startRedisProcess, type RedisProcess } from './helpers/redis-server-process.ts';

let base: E2eRig;
let server: RedisProcess;
let rig: E2eRig;
beforeAll(async () => {
  // Each bill answered after 100 ms, two at a time: 60 bills take about 3 s.
  base = await startE2eRig({ projects: 60, latencyMs: 100 });
  server = await startRedisProcess();
  rig = await rigOnRedis(base, server.url);
});
afterAll(async () => {
  await rig?.close();
  await server?.close();
  await base?.close();
});

const billPosts = (tag: string) => rig.sandbox.requests().filter((r) => r.method === 'POST' && /^\/api\/Bills/i.test(r.path) && r.path.includes(encodeURIComponent(`${tag} #`)));

describe('AOF switched off while an import sends', () => {
  it('stops sending within 10 s: exit 2, the report written, no stack trace, nothing stored twice', async () => {
    const file = writeBillsFile(rig, 'aofoff', 60);
    // The refusal itself is the point: this run does not allow a volatile Redis.
    const { BUILDSYNC_ALLOW_VOLATILE_REDIS: _, ...env } = rig.env;
    const cli = spawnCli(['import', 'bills', file.path], { ...env, BUILDSYNC_CONCURRENCY: '2', BUILDSYNC_DURABILITY_RECHECK_MS: '250' }, { cwd: rig.dir, timeoutMs: 60_000 });
    // Once a few bills are stored, AOF goes off.
    const until = Date.now() + 30_000;
    while (rig.sandbox.bills().length < 5) {
      if (Date.now() > until) throw new Error(`no bills stored in 30 s:\n${cli.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await rig.redis.config('SET', 'appendonly', 'no');
    const offAt = Date.now();
    const res = await cli.result;

    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(
      'buildsync: sending stopped: Redis no longer keeps the ledger safely: Redis would lose the ledger in a crash: it has no AOF (appendonly no) and no connected replica, ' +
        'so after a restart a re-run may send records a second time. Run the import again once Redis keeps the ledger safely (docs/operators.md, "Durability")',
    );
    expect(res.stderr).not.toMatch(/\n\s+at |unexpected error/);
    // The sandbox received no bill more than 10 s after the change (in fact only those in flight then).
    const posts = billPosts('aofoff');
    expect(posts.filter((p) => p.at > offAt + 10_000)).toEqual([]);
    expect(posts.length).toBeLessThan(60);

    const report = parseReport(readFileSync(`${file.path}.report.csv`, 'utf8'));
    expect(report).toHaveLength(60);
    const stored = new Map(rig.sandbox.bills().map((b) => [(JSON.parse(b.info) as { NOTES: string }).NOTES, b.id]));
    expect(stored.size).toBe(rig.sandbox.bills().length);
    for (const l of report) {
      const notes = `aofoff #${Number(l.line) - 1}`;
      if (stored.has(notes)) expect(l, notes).toMatchObject({ status: 'created', id: String(stored.get(notes)) });
      else {
        expect(l.status).toBe('failed');
        expect(l.message).toMatch(/^not sent: sending stopped: Redis no longer keeps the ledger safely: Redis would lose the ledger in a crash: .* a second time\. Run the import again once Redis keeps the ledger safely/);
      }
    }
    expect(report.filter((l) => l.status === 'failed').length).toBeGreaterThan(0);
  });
});
