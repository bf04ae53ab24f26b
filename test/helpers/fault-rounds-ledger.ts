/**
 * The fault bench's rounds where Redis stops keeping the ledger safely mid-import
 * (bench/faults.ts (e) and (f); docs/operators.md, "Durability"), judged like the other rounds
 * (fault-rounds.ts `tally`) against the sandbox's own store:
 *
 * - (e) Redis restarted empty: `buildsync import bills FILE` runs with the pool's workers on a
 *   `redis-server` that keeps nothing on disk, which is SIGKILLed and started again, empty, while
 *   bills are in flight. The import must stop (exit 2) with its report written; the re-run either
 *   finds the ledger whole again (the workers wrote back what they had settled) or stops at the
 *   records it lost (exit 2), and then `--ledger-lost accept` adopts the report's IDs and sends
 *   the rest.
 * - (f) AOF switched off: `CONFIG SET appendonly no` on the AOF server mid-import; the import's
 *   records stop going out (counted from the change to the sandbox's last bill request of the
 *   round), AOF goes back on, and the same file is imported again.
 */
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { planBills } from '../../src/import/index.ts';
import { durabilityDecision, readDurabilityFacts } from '../../src/ledger/index.ts';
import { submitImport } from '../../src/queue/index.ts';
import { runCli, spawnCli } from './cli.ts';
import { notesOfRequest, statusCounts, tally, waitForMoment, type BillsFile, type RoundLine, type Tally, type WorkerPool } from './fault-rounds.ts';
import { parseReport, type E2eRig } from './import-e2e-rig.ts';
import type { RedisProcess } from './redis-server-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function reportOf(path: string): RoundLine[] {
  return parseReport(readFileSync(path, 'utf8')).map((r) => ({ line: Number(r.line), status: r.status, id: r.id, message: r.message }));
}

export interface EmptiedRoundResult {
  tally: Tally;
  faultAtMs: number;
  storedAtFault: number;
  /** Exit codes: the import cut by the restart, the re-run, and the `--ledger-lost accept` run (null when not needed). */
  exits: Array<number | null>;
  /** Whether the re-run found the ledger whole (the workers wrote back what they had settled). */
  ledgerWhole: boolean;
  stackLines: number;
  first: Record<string, number>;
  last: Record<string, number>;
  seconds: number;
}

/** (e): see the module comment. `rig` is on `server`, which keeps nothing on disk; `pool`'s workers use it too. */
export async function emptiedRound(rig: E2eRig, server: RedisProcess, file: BillsFile, opts: { afterMs: number; env: Record<string, string>; timeoutMs?: number }): Promise<EmptiedRoundResult> {
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const cli = spawnCli(['import', 'bills', file.path], opts.env, { cwd: rig.dir, timeoutMs: timeoutMs * 2, onTimeout: 'report' });
  const moment = await waitForMoment(rig, file, opts.afterMs, timeoutMs);
  await server.kill();
  await server.start();
  const first = await cli.result;
  const reportPath = `${file.path}.report.csv`;
  const firstReport = reportOf(reportPath);
  const again = await runCli(['import', 'bills', file.path], opts.env, { cwd: rig.dir, timeoutMs, onTimeout: 'report' });
  const ledgerWhole = again.code !== 2;
  const accepted = ledgerWhole ? undefined : await runCli(['import', 'bills', file.path, '--ledger-lost', 'accept'], opts.env, { cwd: rig.dir, timeoutMs, onTimeout: 'report' });
  const lastReport = reportOf(reportPath);
  const stderr = [first.stderr, again.stderr, accepted?.stderr ?? ''].join('\n');
  return {
    tally: await tally(rig, file, [firstReport, lastReport]),
    faultAtMs: moment.atMs,
    storedAtFault: moment.stored,
    exits: [first.code, again.code, accepted?.code ?? null],
    ledgerWhole,
    stackLines: stderr.match(/\n\s+at /g)?.length ?? 0,
    first: statusCounts(firstReport),
    last: statusCounts(lastReport),
    seconds: (performance.now() - t0) / 1000,
  };
}

export interface AofOffRoundResult {
  tally: Tally;
  faultAtMs: number;
  storedAtFault: number;
  /** From `CONFIG SET appendonly no` to the sandbox's last bill request of the first import. */
  stopSeconds: number;
  /** Records of the first import not sent because of the change. */
  stopped: number;
  first: Record<string, number>;
  rerun: Record<string, number>;
  seconds: number;
}

/** (f): see the module comment. `rig` is on the AOF server the pool's workers use; `recheckMs` is the workers' BUILDSYNC_DURABILITY_RECHECK_MS. */
export async function aofOffRound(rig: E2eRig, _pool: WorkerPool, file: BillsFile, opts: { afterMs: number; recheckMs: number; timeoutMs?: number }): Promise<AofOffRoundResult> {
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const resolver = await rig.resolver();
  const submit = async () => {
    // As the import command does: the import notes how Redis keeps the ledger as it is submitted.
    const durability = durabilityDecision(await readDurabilityFacts(rig.redis), { allowVolatile: true }).mode;
    const plan = await planBills(file.path, { resolver });
    return (await submitImport(rig.queues, rig.store, plan, { account: 'default', resendUnknown: false, durability })).importId;
  };
  const firstId = await submit();
  const moment = await waitForMoment(rig, file, opts.afterMs, timeoutMs);
  await rig.redis.config('SET', 'appendonly', 'no');
  const offAt = Date.now();
  await rig.waitForImport(firstId, timeoutMs);
  const first = await rig.store.report(firstId);
  const prefix = `${file.tag} #`;
  const lastAt = Math.max(offAt, ...rig.sandbox.requests().filter((r) => notesOfRequest(r.method, r.path)?.startsWith(prefix)).map((r) => r.at));
  await rig.redis.config('SET', 'appendonly', 'yes');
  // The workers see AOF back on at their next read.
  await sleep(opts.recheckMs + 500);
  const rerunId = await submit();
  await rig.waitForImport(rerunId, timeoutMs);
  const rerun = await rig.store.report(rerunId);
  const asLines = (r: typeof first): RoundLine[] => r.map((l) => ({ line: l.line, status: l.status, id: String(l.id), message: l.message }));
  return {
    tally: await tally(rig, file, [asLines(first), asLines(rerun)]),
    faultAtMs: moment.atMs,
    storedAtFault: moment.stored,
    stopSeconds: (lastAt - offAt) / 1000,
    stopped: first.filter((l) => l.status === 'failed' && /^not sent: sending stopped/.test(l.message)).length,
    first: statusCounts(first),
    rerun: statusCounts(rerun),
    seconds: (performance.now() - t0) / 1000,
  };
}
