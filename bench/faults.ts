/**
 * Nothing lost, nothing stored twice, no false `unknown` (CONTRACT.md §5) under the faults real
 * deployments see, judged by the sandbox's own store and request log:
 * - (a) two `buildsync import bills FILE` of the same 50-bill file started together (a user who
 *   starts an import again because the first looks stuck), each CLI running its own worker;
 * - (b) 20 rounds of a 100-bill import run by three `buildsync worker` processes, one of them
 *   SIGKILLed at a random moment while bill requests are in flight, a replacement started, the
 *   import waited for, then the same file imported again (it must create only what is missing).
 *   The floor is one such round without a kill, in the same run: `ratio` is the mean kill
 *   round's time over it (the dead worker's jobs come back after BUILDSYNC_LOCK_MS, its claims
 *   after BUILDSYNC_LEDGER_LEASE_MS).
 *
 * Counted per bill: `duplicates` (stored more than once), `lost` (not stored, and the last report
 * does not say unknown or failed with a reason), `false_unknown` (reported unknown, and the
 * sandbox never received its request), `unknown` (reported unknown at all). Goal: the first three 0.
 *
 *   npx tsx bench/faults.ts [--rounds N] [--seed S]      (or: npm run bench -- faults)
 *
 * The sandbox runs in this process (its store and request log are read directly), answering
 * every request after LATENCY_MS so that kills land mid-request. The last stdout line is one
 * JSON object.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { startE2eRig } from '../test/helpers/import-e2e-rig.ts';
import {
  addTallies,
  killRound,
  killRoundEnv,
  overlappingImports,
  seededRandom,
  statusCounts,
  WorkerPool,
  writeBillsFile,
  ZERO_TALLY,
  type KillRoundResult,
  type Tally,
} from '../test/helpers/fault-rounds.ts';

const OVERLAP_BILLS = 50;
const ROUND_BILLS = 100;
const LATENCY_MS = 100;
const LOCK_MS = 1_500;
const LEASE_MS = 1_500;
/** Requests in flight per worker process (each holds twice as many jobs). */
const CONCURRENCY = 4;
const WORKERS = 3;

function describeTally(t: Tally): string {
  return `stored ${t.stored}/${t.bills}, duplicates ${t.duplicates}, lost ${t.lost}, false unknown ${t.falseUnknown}, unknown ${t.unknown}`;
}

function describeRound(label: string, r: KillRoundResult): string {
  const kill = r.killed ? `killed at ${r.killAtMs} ms with ${r.storedAtKill} stored and ${r.inFlightAtKill} in flight` : `no kill, bills sent over ${r.sendSpanMs} ms`;
  return (
    `${label}: ${r.seconds.toFixed(2)} s (import ${r.firstSeconds.toFixed(2)} s), ${kill}; first ${JSON.stringify(r.first)}, re-run ${JSON.stringify(r.rerun)} ` +
    `(created ${r.rerunCreated}); ${describeTally(r.tally)}`
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' }, seed: { type: 'string' } } });
  const rounds = Number(values.rounds);
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
  if (!Number.isInteger(rounds) || rounds < 0) throw new Error(`--rounds: got ${values.rounds}; write a whole number`);
  const random = seededRandom(seed);
  const started = performance.now();
  const run = `f${process.pid}`;
  const rig = await startE2eRig({ projects: 60, latencyMs: LATENCY_MS });
  let total = ZERO_TALLY;
  let errors = 0;
  const findings: string[] = [];
  const note = (label: string, t: Tally) => {
    total = addTallies(total, t);
    for (const f of t.findings) findings.push(`${label}: ${f}`);
  };
  let pool: WorkerPool | undefined;
  try {
    console.log(`sandbox at ${rig.sandbox.url} answering after ${LATENCY_MS} ms; prefix ${rig.prefix}; seed ${seed}`);

    // (a) Two imports of one file at once. The CLIs' own workers get the same knobs as the
    // workers of (b): BullMQ's stalled check is one key per queue, renewed with the interval of
    // whichever worker ran it last, so a 30 s worker would delay (b)'s takeovers by up to 30 s.
    const knobs = killRoundEnv(rig, { lockMs: LOCK_MS, leaseMs: LEASE_MS, concurrency: CONCURRENCY });
    const overlap = await overlappingImports(rig, writeBillsFile(rig, `${run}-overlap`, OVERLAP_BILLS), knobs);
    note('overlap', overlap.tally);
    const beingSent = overlap.reports.flat().filter((l) => l.status === 'skipped' && /being sent by import/.test(l.message)).length;
    console.log(
      `overlap: two imports of ${OVERLAP_BILLS} bills in ${overlap.seconds.toFixed(2)} s, exits ${overlap.exits.join(' and ')}; ` +
        overlap.reports.map((r, i) => `import ${i + 1} ${JSON.stringify(statusCounts(r))}`).join(', ') +
        `; ${beingSent} skipped as being sent by the other; ${describeTally(overlap.tally)}`,
    );
    if (overlap.exits.some((c) => c !== 0)) {
      errors++;
      console.log(`overlap: an import exited non-zero:\n${overlap.stderr.join('\n---\n')}`);
    }

    // (b) Worker processes killed mid-import.
    pool = await WorkerPool.start(WORKERS, knobs);
    const floor = await killRound(rig, pool, writeBillsFile(rig, `${run}-floor`, ROUND_BILLS), {});
    note('floor', floor.tally);
    console.log(describeRound('floor', floor));
    const times: number[] = [];
    for (let i = 1; i <= rounds; i++) {
      const label = `round ${String(i).padStart(2)}`;
      // Uniform over the time the floor round spent sending, so that the kill lands anywhere in it.
      const killAfterMs = Math.floor(random() * 0.9 * floor.sendSpanMs);
      const victim = Math.floor(random() * WORKERS);
      try {
        const r = await killRound(rig, pool, writeBillsFile(rig, `${run}-r${i}`, ROUND_BILLS), { killAfterMs, victim });
        times.push(r.seconds);
        note(label, r.tally);
        console.log(describeRound(`${label} (worker ${victim + 1})`, r));
      } catch (err) {
        errors++;
        console.log(`${label}: ${(err as Error).message}`);
      }
    }
    for (const f of findings) console.log(`finding ${f}`);
    const meanRound = times.length ? times.reduce((a, b) => a + b, 0) / times.length : 0;
    console.log(
      JSON.stringify({
        bench: 'faults',
        rounds: 1 + rounds,
        duplicates: total.duplicates,
        lost: total.lost,
        false_unknown: total.falseUnknown,
        unknown: total.unknown,
        errors,
        ratio: round(meanRound / floor.seconds, 2),
        round_seconds: round(meanRound, 2),
        floor_seconds: round(floor.seconds, 2),
        overlap_seconds: round(overlap.seconds, 2),
        seed,
        seconds: round((performance.now() - started) / 1000, 1),
      }),
    );
  } finally {
    await pool?.stop();
    await rig.close();
  }
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

await main();
