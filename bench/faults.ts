/**
 * Nothing lost, nothing stored twice, no false `unknown` (README, Reports, re-runs and `unknown`) under the faults real
 * deployments see, judged by the sandbox's own store and request log:
 * - (a) two `buildsync import bills FILE` of the same 50-bill file started together (a user who
 *   starts an import again because the first looks stuck), each CLI running its own worker;
 * - (b) 20 rounds of a 100-bill import run by three `buildsync worker` processes, one of them
 *   SIGKILLed at a random moment while bill requests are in flight, a replacement started, the
 *   import waited for, then the same file imported again (it must create only what is missing).
 *   The floor is one such round without a kill, in the same run: `ratio` is the mean kill
 *   round's time over it (the dead worker's jobs come back after BUILDSYNC_LOCK_MS, its claims
 *   after BUILDSYNC_LEDGER_LEASE_MS).
 * - (c) REDIS_ROUNDS rounds of a 100-bill import run by three `buildsync worker` processes on a
 *   `redis-server` of the bench's own (`--appendonly yes --appendfsync always`), which is stopped
 *   (SIGTERM, Redis's SHUTDOWN) at a random moment while bill requests are in flight, left down
 *   for 5 s and started again from its AOF; the import waited for, then imported again;
 * - (d) the same with the `redis-server` SIGKILLed and started again at once from its AOF.
 * - (e) LEDGER_ROUNDS rounds of `buildsync import bills FILE` (the CLI, following the import) run by
 *   three workers on a `redis-server` that keeps nothing on disk, SIGKILLed and started again,
 *   empty, mid-import: the import stops (exit 2) with its report; the re-run goes on when the
 *   workers wrote back what they had settled, or stops (exit 2) and `--ledger-lost accept` adopts
 *   the report's IDs (test/helpers/fault-rounds-ledger.ts);
 * - (f) LEDGER_ROUNDS rounds of an import on the AOF server of (c) with AOF switched off
 *   (`CONFIG SET appendonly no`) mid-import: sending stops (`aof_off_stop_seconds_max`, from the
 *   change to the round's last bill request), AOF goes back on, and the file is imported again.
 *   Their workers' stderr from the fault to the import's end is counted too (`redis_*_stderr_max`
 *   lines from one worker; `redis_stack_lines`, goal 0).
 *
 * Counted per bill: `duplicates` (stored more than once), `lost` (not stored, and the last report
 * does not say unknown or failed with a reason), `false_unknown` (reported unknown, and the
 * sandbox never received its request), `unknown` (reported unknown at all). Goal: the first three 0.
 *
 *   npm run bench -- faults [--rounds N] [--redis-rounds M] [--ledger-rounds L] [--seed S]
 *
 * --rounds: worker-kill rounds of (b) (default 20); --redis-rounds: rounds of (c) and of (d) each
 * (default 3; 0 skips them); --ledger-rounds: rounds of (e) and of (f) each (default 2; 0 skips them).
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
  redisOutageRound,
  rigOnRedis,
  seededRandom,
  statusCounts,
  WorkerPool,
  writeBillsFile,
  ZERO_TALLY,
  type KillRoundResult,
  type RedisOutageResult,
  type Tally,
} from '../test/helpers/fault-rounds.ts';
import { startRedisProcess, type RedisProcess } from '../test/helpers/redis-server-process.ts';
import { aofOffRound, emptiedRound } from '../test/helpers/fault-rounds-ledger.ts';

const OVERLAP_BILLS = 50;
const ROUND_BILLS = 100;
const LATENCY_MS = 100;
const LOCK_MS = 1_500;
const LEASE_MS = 1_500;
/** Requests in flight per worker process (each holds twice as many jobs). */
const CONCURRENCY = 4;
const WORKERS = 3;
/** How long (c) keeps the redis-server down. */
const REDIS_DOWN_MS = 5_000;
/** How often the workers of (c), (d) and (f) read Redis's persistence again (5 s by default). */
const RECHECK_MS = 1_000;

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

function describeRedisRound(label: string, r: RedisOutageResult): string {
  const fault = r.how === 'stop' ? 'stopped' : 'SIGKILLed';
  return (
    `${label}: ${r.seconds.toFixed(2)} s (import ${r.firstSeconds.toFixed(2)} s), redis-server ${fault} at ${r.faultAtMs} ms with ${r.storedAtFault} stored and ` +
    `${r.inFlightAtFault} in flight, back ${r.aofLoaded ? 'from its AOF' : '(its log does not say it loaded the AOF!)'} after ${r.downSeconds.toFixed(2)} s, import done ${r.recoverSeconds.toFixed(2)} s later; ` +
    `workers' stderr lines meanwhile ${r.workerStderrLines.join('/')}${r.stackLines ? `, ${r.stackLines} stack-trace lines` : ''}; ` +
    `first ${JSON.stringify(r.first)}, re-run ${JSON.stringify(r.rerun)} (created ${r.rerunCreated}); ${describeTally(r.tally)}`
  );
}

async function main(): Promise<void> {
  // `npm run bench -- faults -- --rounds 3` hands the bench a leading `--`: skip it.
  const argv = process.argv.slice(2);
  const { values } = parseArgs({
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: { rounds: { type: 'string', default: '20' }, 'redis-rounds': { type: 'string', default: '3' }, 'ledger-rounds': { type: 'string', default: '2' }, seed: { type: 'string' } },
  });
  const rounds = Number(values.rounds);
  const redisRounds = Number(values['redis-rounds']);
  const ledgerRounds = Number(values['ledger-rounds']);
  if (!Number.isInteger(ledgerRounds) || ledgerRounds < 0) throw new Error(`--ledger-rounds: got ${values['ledger-rounds']}; write a whole number`);
  const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
  if (!Number.isInteger(rounds) || rounds < 0) throw new Error(`--rounds: got ${values.rounds}; write a whole number`);
  if (!Number.isInteger(redisRounds) || redisRounds < 0) throw new Error(`--redis-rounds: got ${values['redis-rounds']}; write a whole number`);
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
  let redisPool: WorkerPool | undefined;
  let redisServer: RedisProcess | undefined;
  let redisRig: Awaited<ReturnType<typeof rigOnRedis>> | undefined;
  let emptyServer: RedisProcess | undefined;
  let emptyRig: Awaited<ReturnType<typeof rigOnRedis>> | undefined;
  let emptyPool: WorkerPool | undefined;
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
    await pool.stop();
    pool = undefined;

    // (c) and (d): the redis-server stopped for 5 s, or SIGKILLed, mid-import, and started again
    // from its AOF (appendfsync always), under three worker processes with the knobs of (b).
    const redisTotals = { stop: { ...ZERO_TALLY }, kill: { ...ZERO_TALLY } };
    const redisRecover = { stop: [] as number[], kill: [] as number[] };
    const redisStderrMax = { stop: 0, kill: 0 };
    let redisStackLines = 0;
    if (redisRounds > 0 || ledgerRounds > 0) {
      redisServer = await startRedisProcess();
      redisRig = await rigOnRedis(rig, redisServer.url);
      redisPool = await WorkerPool.start(WORKERS, { ...killRoundEnv(redisRig, { lockMs: LOCK_MS, leaseMs: LEASE_MS, concurrency: CONCURRENCY }), BUILDSYNC_DURABILITY_RECHECK_MS: String(RECHECK_MS) });
      console.log(`redis-server ${redisServer.url} (pid ${redisServer.pid()}, AOF appendfsync always in ${redisServer.dir}); prefix ${redisRig.prefix}`);
      for (const how of ['stop', 'kill'] as const) {
        for (let i = 1; i <= redisRounds; i++) {
          const label = `redis ${how} ${String(i).padStart(2)}`;
          const afterMs = Math.floor(random() * 0.9 * floor.sendSpanMs);
          try {
            const r = await redisOutageRound(redisRig, redisPool, redisServer, writeBillsFile(rig, `${run}-${how}${i}`, ROUND_BILLS), { how, afterMs, downMs: REDIS_DOWN_MS });
            total = addTallies(total, r.tally);
            redisTotals[how] = addTallies(redisTotals[how], r.tally);
            for (const f of r.tally.findings) findings.push(`${label}: ${f}`);
            redisRecover[how].push(r.recoverSeconds);
            redisStderrMax[how] = Math.max(redisStderrMax[how], ...r.workerStderrLines);
            redisStackLines += r.stackLines;
            console.log(describeRedisRound(label, r));
            if (!r.aofLoaded) {
              errors++;
              console.log(`${label}: the restarted redis-server did not say it loaded its AOF:\n${redisServer.log().slice(-2000)}`);
            }
          } catch (err) {
            errors++;
            console.log(`${label}: ${(err as Error).message}`);
            // A round that timed out may have left the server down: bring it back for the next.
            if (!redisServer.running()) await redisServer.start().catch((e: Error) => console.log(`${label}: could not start redis-server again: ${e.message}`));
          }
        }
      }
      // What the workers said across the Redis rounds, for a reader of the bench's output.
      for (const [i, w] of redisPool.workers.entries()) {
        const lines = w.stderr().split('\n').filter((l) => l.trim() !== '');
        const short = (l: string) => (l.length > 240 ? `${l.slice(0, 240)}…` : l);
        console.log(`redis rounds: worker ${i + 1} wrote ${lines.length} stderr lines in all; the last ones:\n  ${lines.slice(-5).map(short).join('\n  ')}`);
      }
    }

    // (f) AOF switched off mid-import, on the AOF server of (c) and (d).
    const aofTotals = { ...ZERO_TALLY };
    const aofStops: number[] = [];
    for (let i = 1; i <= ledgerRounds && redisRig && redisPool; i++) {
      const label = `aof off ${i}`;
      try {
        const r = await aofOffRound(redisRig, redisPool, writeBillsFile(rig, `${run}-aof${i}`, ROUND_BILLS), { afterMs: Math.floor(random() * 0.9 * floor.sendSpanMs), recheckMs: RECHECK_MS });
        total = addTallies(total, r.tally);
        Object.assign(aofTotals, addTallies(aofTotals, r.tally));
        for (const f of r.tally.findings) findings.push(`${label}: ${f}`);
        aofStops.push(r.stopSeconds);
        console.log(
          `${label}: ${r.seconds.toFixed(2)} s, AOF off at ${r.faultAtMs} ms with ${r.storedAtFault} stored; last bill request ${r.stopSeconds.toFixed(2)} s after, ${r.stopped} records not sent; ` +
            `first ${JSON.stringify(r.first)}, re-run ${JSON.stringify(r.rerun)}; ${describeTally(r.tally)}`,
        );
        if (r.stopSeconds > 10) errors++;
      } catch (err) {
        errors++;
        console.log(`${label}: ${(err as Error).message}`);
        await redisRig.redis.config('SET', 'appendonly', 'yes').catch(() => {});
      }
    }

    // (e) Redis restarted empty mid-import, under the CLI following the import.
    const emptyTotals = { ...ZERO_TALLY };
    const emptyExits: Array<Array<number | null>> = [];
    let emptyWhole = 0;
    let emptyStackLines = 0;
    if (ledgerRounds > 0) {
      emptyServer = await startRedisProcess([]);
      emptyRig = await rigOnRedis(rig, emptyServer.url);
      const emptyEnv = killRoundEnv(emptyRig, { lockMs: LOCK_MS, leaseMs: LEASE_MS, concurrency: CONCURRENCY });
      emptyPool = await WorkerPool.start(WORKERS, emptyEnv);
      for (let i = 1; i <= ledgerRounds; i++) {
        const label = `redis emptied ${i}`;
        try {
          const r = await emptiedRound(emptyRig, emptyServer, writeBillsFile(rig, `${run}-empty${i}`, ROUND_BILLS), { afterMs: Math.floor(random() * 0.9 * floor.sendSpanMs), env: emptyEnv });
          total = addTallies(total, r.tally);
          Object.assign(emptyTotals, addTallies(emptyTotals, r.tally));
          for (const f of r.tally.findings) findings.push(`${label}: ${f}`);
          emptyExits.push(r.exits);
          if (r.ledgerWhole) emptyWhole++;
          emptyStackLines += r.stackLines;
          console.log(
            `${label}: ${r.seconds.toFixed(2)} s, emptied at ${r.faultAtMs} ms with ${r.storedAtFault} stored; exits ${r.exits.map((c) => c ?? '-').join('/')} ` +
              `(${r.ledgerWhole ? 'the workers wrote the ledger back' : 'the re-run stopped, then --ledger-lost accept'}); first ${JSON.stringify(r.first)}, last ${JSON.stringify(r.last)}; ${describeTally(r.tally)}`,
          );
          // 2: the import was cut; 0: it had ended before the restart (the moment waits for a request in flight, or the last bill stored).
          if ((r.exits[0] !== 2 && r.exits[0] !== 0) || r.stackLines > 0) errors++;
        } catch (err) {
          errors++;
          console.log(`${label}: ${(err as Error).message}`);
          if (!emptyServer.running()) await emptyServer.start().catch(() => {});
        }
      }
    }

    for (const f of findings) console.log(`finding ${f}`);
    const meanRound = times.length ? times.reduce((a, b) => a + b, 0) / times.length : 0;
    const mean = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 2) : 0);
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
        redis_rounds: redisRounds,
        redis_stop: { duplicates: redisTotals.stop.duplicates, lost: redisTotals.stop.lost, false_unknown: redisTotals.stop.falseUnknown, unknown: redisTotals.stop.unknown },
        redis_kill: { duplicates: redisTotals.kill.duplicates, lost: redisTotals.kill.lost, false_unknown: redisTotals.kill.falseUnknown, unknown: redisTotals.kill.unknown },
        redis_stop_recover_seconds: mean(redisRecover.stop),
        redis_kill_recover_seconds: mean(redisRecover.kill),
        redis_stop_stderr_max: redisStderrMax.stop,
        redis_kill_stderr_max: redisStderrMax.kill,
        redis_stack_lines: redisStackLines,
        ledger_rounds: ledgerRounds,
        redis_emptied: { duplicates: emptyTotals.duplicates, lost: emptyTotals.lost, false_unknown: emptyTotals.falseUnknown, unknown: emptyTotals.unknown },
        redis_emptied_exits: emptyExits.map((e) => e.map((c) => c ?? '-').join('/')),
        redis_emptied_ledger_written_back: emptyWhole,
        redis_emptied_stack_lines: emptyStackLines,
        aof_off: { duplicates: aofTotals.duplicates, lost: aofTotals.lost, false_unknown: aofTotals.falseUnknown, unknown: aofTotals.unknown },
        aof_off_stop_seconds_max: aofStops.length ? round(Math.max(...aofStops), 2) : 0,
        seed,
        seconds: round((performance.now() - started) / 1000, 1),
      }),
    );
  } finally {
    await pool?.stop();
    await redisPool?.stop();
    await emptyPool?.stop();
    await emptyRig?.close();
    await emptyServer?.close();
    await redisRig?.close();
    await redisServer?.close();
    await rig.close();
  }
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

await main();
