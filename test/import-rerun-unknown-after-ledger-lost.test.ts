/**
 * A re-run whose earlier report holds `unknown` bills the ledger has lost (docs/operators.md,
 * "Durability"): the report is the evidence that their requests may have reached the service, so
 * the re-run writes them into the ledger as `unknown`, sends none of them, reports them `unknown`
 * again and exits 1, never "unknown 0" with exit 0 after sending them a second time.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { deleteKeys } from './helpers/redis.ts';

const BILLS = 6;
let rig: E2eRig;
beforeAll(async () => {
  // Every create answered 500: each bill's outcome is unknown (the service may have stored it).
  rig = await startE2eRig({ faults: { failBeforeStore: 1, seed: 3 } });
});
afterAll(() => rig?.close());

const billPosts = () => rig.sandbox.requests().filter((r) => r.method === 'POST' && /^\/api\/Bills/i.test(r.path)).length;

describe('a re-run after the ledger lost the unknown bills', () => {
  it('reports them unknown again from the earlier report, sends none, and exits 1', async () => {
    const projects = freeProjectIds(rig.sandbox);
    const file = rig.file(
      'unknowns.csv',
      csv(
        ['bill_ref', 'project_id', 'vendor_id', 'title', 'item_name', 'rate', 'qty'],
        Array.from({ length: BILLS }, (_, i) => [`UN-${i + 1}`, projects[i]!, 55, `Unknown bill ${i + 1}`, 'Materials', `${20 + i}.25`, 1]),
      ),
    );
    const first = await runCli(['import', 'bills', file], rig.env, { cwd: rig.dir, timeoutMs: 60_000 });
    expect(first.stdout, first.stderr).toContain(`created 0, exists 0, skipped 0, failed 0, unknown ${BILLS}`);
    expect(parseReport(readFileSync(`${file}.report.csv`, 'utf8')).map((l) => l.status)).toEqual(Array(BILLS).fill('unknown'));

    // Redis forgets everything (restarted empty); the service answers normally again.
    await deleteKeys(rig.redis, `${rig.prefix}:*`);
    rig.sandbox.setFaults({});
    const posts = billPosts();
    const again = await runCli(['import', 'bills', file], rig.env, { cwd: rig.dir, timeoutMs: 60_000 });

    expect(again.code, again.stderr).toBe(1);
    expect(billPosts()).toBe(posts);
    expect(again.stdout).toContain(`created 0, exists 0, skipped 0, failed 0, unknown ${BILLS}; invalid rows 0`);
    expect(again.stderr).toContain(`${BILLS} records that ${file}.report.csv lists as unknown written into the ledger as unknown (the ledger had lost them); not sent again on their own`);
    const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
    for (const l of report) {
      expect(l.status).toBe('unknown');
      expect(l.message).toMatch(/an earlier run's report \(unknowns\.csv\.report\.csv\) says it may have reached the service, and the ledger had lost it.*--resend-unknown/);
    }
  });
});
