import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../src/api/index.ts';
import { planEstimates } from '../src/import/index.ts';
import { Ledger } from '../src/ledger/index.ts';
import { submitImport } from '../src/queue/index.ts';
import { countBy, csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { spawnCli } from './helpers/cli.ts';

// A worker process killed with SIGKILL in the middle of an import (requests in flight, jobs
// locked), and a second worker that takes the stalled jobs over and finishes the import.
const ESTIMATES = 60;
const LOCK_MS = 1500;
let rig: E2eRig;

beforeAll(async () => {
  // Latency keeps requests in flight long enough for the kill to land mid-request.
  rig = await startE2eRig({ projects: 80, latencyMs: 150 });
});
afterAll(() => rig?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a worker killed mid-import', () => {
  it('is taken over by a new worker and no estimate is created twice', async () => {
    const projects = freeProjectIds(rig.sandbox).slice(0, ESTIMATES);
    expect(projects).toHaveLength(ESTIMATES);
    const file = rig.file(
      'many.csv',
      csv(
        ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'],
        projects.map((p, i) => [p, `Estimate ${i + 1}`, 'General', 'Labor', `Crew day ${i + 1}`, i + 1, '640.00']),
      ),
    );
    const plan = await planEstimates(file, { resolver: await rig.resolver() });
    expect(plan.records).toHaveLength(ESTIMATES);
    const { importId } = await submitImport(rig.queues, rig.store, plan, { account: 'default', resendUnknown: false });

    const worker = spawnCli(['worker'], { ...rig.env, BUILDSYNC_LOCK_MS: String(LOCK_MS), BUILDSYNC_LEDGER_LEASE_MS: String(LOCK_MS), BUILDSYNC_CONCURRENCY: '4' });
    const child = worker.child;
    let atKill = 0;
    let inFlight = 0;
    try {
      // Kill while requests are in flight (sent, not yet answered), once some estimates are stored.
      const posts = () => rig.sandbox.requests().filter((r) => r.method === 'POST').length;
      const until = Date.now() + 15_000;
      while (rig.sandbox.estimates().length < 10 || posts() === rig.sandbox.estimates().length) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`the worker created ${rig.sandbox.estimates().length} estimates in 15 s\n${worker.stderr()}`);
        await sleep(5);
      }
      atKill = rig.sandbox.estimates().length;
      inFlight = posts() - atKill;
    } finally {
      child.kill('SIGKILL');
    }
    expect((await worker.result).signal).toBe('SIGKILL');
    expect(atKill).toBeLessThan(ESTIMATES);

    // A second worker: the dead one's locks expire after LOCK_MS and its jobs come back.
    const second = await rig.workers({ concurrency: 4, lockMs: LOCK_MS, leaseMs: LOCK_MS });
    await rig.waitForImport(importId, 25_000);
    await second.close();

    const report = await rig.store.report(importId);
    expect(report).toHaveLength(ESTIMATES);
    const stored = rig.sandbox.estimates().filter((e) => projects.includes(e.projectId));
    const counts = countBy(report, (l) => l.status);
    const resentExists = report.filter((l) => l.status === 'exists' && /earlier attempt/.test(l.message)).length;
    console.log(
      `worker killed with ${atKill} of ${ESTIMATES} estimates stored and ${inFlight} requests in flight; ` +
        `report: ${JSON.stringify(counts)}, exists from resends ${resentExists}; sandbox stored ${stored.length}`,
    );

    // At most one estimate per project; every project of the file has its estimate.
    const byProject = countBy(stored, (e) => String(e.projectId));
    expect(Object.values(byProject).every((n) => n === 1)).toBe(true);
    expect(stored).toHaveLength(ESTIMATES);
    // Every record is created, or exists because a resend after the kill found the first attempt's estimate.
    expect(report.every((l) => l.status === 'created' || l.status === 'exists')).toBe(true);
    expect(counts.exists ?? 0).toBe(resentExists);
    expect((counts.created ?? 0) + resentExists).toBe(stored.length);
    // Each created line carries the ID the service gave that project's estimate.
    for (const l of report.filter((x) => x.status === 'created')) {
      const projectId = Number(/^project (\d+)/.exec(l.record)![1]);
      expect(l.id).toBe(stored.find((e) => e.projectId === projectId)!.id);
    }
  });

  it('reports `created` for a record whose worker died after the service answered and before the outcome was settled', async () => {
    // The dead worker's last steps, replayed: the service created the estimate and the ledger
    // recorded its ID for this import, then the process died before settling the job.
    rig.sandbox.setLatency(0);
    const [project] = freeProjectIds(rig.sandbox);
    const file = rig.file('one.csv', csv(['project_id', 'estimate_name', 'category'], [[project!, 'Survivor', 'General']]));
    const plan = await planEstimates(file, { resolver: await rig.resolver() });
    const { importId } = await submitImport(rig.queues, rig.store, plan, { account: 'default', resendUnknown: false });
    const record = plan.records[0]!;
    const client = new ServiceClient({ baseUrl: rig.sandbox.url, ...rig.sandbox.credentials });
    const { id } = await client.createEstimate(record.payload).finally(() => client.close());
    const ledger = new Ledger(rig.redis, rig.prefix);
    expect((await ledger.claim('default', record.key, { owner: 'dead-worker', contentHash: record.contentHash, importId, allowResend: true })).action).toBe('send');
    await ledger.handOver('default', record.key, 'dead-worker');
    await ledger.created('default', record.key, id, record.contentHash, importId);

    await rig.workers();
    await rig.waitForImport(importId);
    const [line] = await rig.store.report(importId);
    expect(line).toMatchObject({ line: 2, status: 'created', id });
    expect(rig.sandbox.estimates().filter((e) => e.projectId === project)).toHaveLength(1);
  });
});
