/**
 * The fault bench's rounds (bench/faults.ts) and the suite's short version of them
 * (test/import-faults-overlap-and-kills.test.ts, test/redis-outage.test.ts): bill imports under
 * two imports of one file at once, under a worker process killed with SIGKILL mid-import, and
 * under the `redis-server` itself stopped or SIGKILLed mid-import and started again from its AOF,
 * judged against the sandbox's own store and request log, which are the truth (README, Reports, re-runs and `unknown`:
 * nothing is lost, nothing is sent twice, `unknown` only for a request the service may have
 * received).
 *
 * Every bill of a round carries a NOTES of its own (`<tag> #<n>`), so that a stored bill, a
 * received request and a report line are matched by it, whatever the service or the tool did.
 */
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { planBills } from '../../src/import/index.ts';
import { Ledger, type LedgerEntry } from '../../src/ledger/index.ts';
import { submitImport } from '../../src/queue/index.ts';
import type { RequestLogEntry, Sandbox, StoredBill } from '../../src/sandbox/index.ts';
import { buildRig, csv, freeProjectIds, parseReport, type E2eRig } from './import-e2e-rig.ts';
import { runCli } from './cli.ts';
import type { RedisProcess } from './redis-server-process.ts';
import { startWorkerProcess, type WorkerProcess } from './worker-processes.ts';

/** The account every round imports into (the rig's environment names no other). */
const ACCOUNT = 'default';

/** A bill file whose row `i` (line i + 2) holds bill `<tag>-<i+1>` with NOTES `<tag> #<i+1>`. */
export interface BillsFile {
  path: string;
  tag: string;
  /** NOTES of each bill, by row. */
  notes: string[];
}

/** One line of a report, however it was read (the store's report or the CLI's CSV). */
export interface RoundLine {
  line: number;
  status: string;
  id: string;
  message: string;
}

/** What the sandbox and the reports say about a round's bills. */
export interface Tally {
  bills: number;
  /** Bills the sandbox stored. */
  stored: number;
  /** Bills stored more than once. */
  duplicates: number;
  /** Bills not stored and not reported `unknown` or `failed` with a reason. */
  lost: number;
  /** Bills reported `unknown` whose request the sandbox never received. */
  falseUnknown: number;
  /** Bills reported `unknown` in any report of the round. */
  unknown: number;
  /** One line per bill counted in duplicates, lost or false_unknown: what the lead needs to look into it. */
  findings: string[];
}

export function writeBillsFile(rig: E2eRig, tag: string, count: number): BillsFile {
  const projects = freeProjectIds(rig.sandbox);
  const notes = Array.from({ length: count }, (_, i) => `${tag} #${i + 1}`);
  const path = rig.file(
    `${tag}.csv`,
    csv(
      ['bill_ref', 'project_id', 'vendor_id', 'title', 'notes', 'item_name', 'rate', 'qty'],
      notes.map((n, i) => [`${tag}-${i + 1}`, projects[i % projects.length]!, 55 + (i % 4), `Bill ${tag}-${i + 1}`, n, 'Materials', `${100 + i}.50`, 1]),
    ),
  );
  return { path, tag, notes };
}

/** NOTES of a bill create as the sandbox received it (`POST /api/Bills?Info=<json>`), or undefined. */
export function notesOfRequest(method: string, path: string): string | undefined {
  if (method !== 'POST' || !/^\/api\/bills/i.test(path)) return undefined;
  try {
    const info = new URL(path, 'http://sandbox.invalid').searchParams.get('Info');
    return info === null ? undefined : ((JSON.parse(info) as { NOTES?: string }).NOTES ?? undefined);
  } catch {
    return undefined;
  }
}

// The sandbox hands out the same entry objects on every call: parse each once, since a round
// polls the log every few milliseconds on the cores the workers need.
const requestNotes = new WeakMap<object, string | null>();
const billNotes = new WeakMap<object, string | null>();

function notesOfEntry(r: RequestLogEntry): string | undefined {
  let n = requestNotes.get(r);
  if (n === undefined) requestNotes.set(r, (n = notesOfRequest(r.method, r.path) ?? null));
  return n ?? undefined;
}

function notesOfBill(b: StoredBill): string | undefined {
  let n = billNotes.get(b);
  if (n === undefined) billNotes.set(b, (n = (JSON.parse(b.info) as { NOTES?: string }).NOTES ?? null));
  return n ?? undefined;
}

/** The round's bill creates the sandbox received so far, how many it answered, and when the first arrived. */
function requestsOf(rig: E2eRig, file: BillsFile): { received: number; answered: number; firstAt: number | undefined } {
  let received = 0;
  let answered = 0;
  let firstAt: number | undefined;
  const prefix = `${file.tag} #`;
  for (const r of rig.sandbox.requests()) {
    if (!notesOfEntry(r)?.startsWith(prefix)) continue;
    received++;
    firstAt ??= r.at;
    if (r.status !== 0) answered++;
  }
  return { received, answered, firstAt };
}

function storedCount(rig: E2eRig, file: BillsFile): number {
  const prefix = `${file.tag} #`;
  return rig.sandbox.bills().filter((b) => notesOfBill(b)?.startsWith(prefix)).length;
}

/**
 * Judges a round: `reports` in the order they ran (the last one is the final word on each bill).
 * Ledger entries are read for the findings only (see `Tally.findings`).
 */
export async function tally(rig: E2eRig, file: BillsFile, reports: RoundLine[][]): Promise<Tally> {
  const storedIds = new Map<string, number[]>();
  for (const b of rig.sandbox.bills()) {
    const n = notesOfBill(b);
    if (n !== undefined) storedIds.set(n, [...(storedIds.get(n) ?? []), b.id]);
  }
  const received = new Set<string>();
  for (const r of rig.sandbox.requests()) {
    const n = notesOfEntry(r);
    if (n !== undefined) received.add(n);
  }
  const byLine = reports.map((rep) => new Map(rep.map((l) => [l.line, l])));
  const keys = await recordKeys(rig, file);
  const ledger = new Ledger(rig.redis, rig.prefix);

  const t: Tally = { bills: file.notes.length, stored: 0, duplicates: 0, lost: 0, falseUnknown: 0, unknown: 0, findings: [] };
  for (const [i, notes] of file.notes.entries()) {
    const line = i + 2;
    const ids = storedIds.get(notes) ?? [];
    const lines = byLine.map((m) => m.get(line));
    const final = lines.at(-1);
    const unknownIn = lines.filter((l) => l?.status === 'unknown').length;
    const problems: string[] = [];
    if (ids.length > 0) t.stored++;
    if (ids.length > 1) {
      t.duplicates++;
      problems.push(`stored ${ids.length} times (IDs ${ids.join(', ')})`);
    }
    const accounted = final !== undefined && (final.status === 'unknown' || final.status === 'failed') && final.message !== '';
    if (ids.length === 0 && !accounted) {
      t.lost++;
      problems.push('lost: not stored, and the last report does not say unknown or failed with a reason');
    }
    if (unknownIn > 0) {
      t.unknown++;
      if (!received.has(notes) && ids.length === 0) {
        t.falseUnknown++;
        problems.push('false unknown: reported unknown, and the sandbox never received its request');
      }
    }
    if (problems.length > 0) {
      const key = keys.get(line);
      const entry: LedgerEntry | undefined = key === undefined ? undefined : await ledger.get(ACCOUNT, key);
      const said = lines.map((l, r) => `report ${r + 1}: ${l ? `${l.status} ${l.id} ${JSON.stringify(l.message)}` : '(no line)'}`).join('; ');
      t.findings.push(`${notes} (line ${line}, key ${key ?? '?'}): ${problems.join('; ')}; ${said}; ledger ${JSON.stringify(entry ?? null)}`);
    }
  }
  return t;
}

/** Each line's ledger key, as the import plans it. */
async function recordKeys(rig: E2eRig, file: BillsFile): Promise<Map<number, string>> {
  const plan = await planBills(file.path, { resolver: await rig.resolver() });
  const out = new Map<number, string>();
  for (const r of plan.records) for (const line of r.lines) out.set(line, r.key);
  return out;
}

export function addTallies(a: Omit<Tally, 'findings'>, b: Tally): Omit<Tally, 'findings'> {
  return {
    bills: a.bills + b.bills,
    stored: a.stored + b.stored,
    duplicates: a.duplicates + b.duplicates,
    lost: a.lost + b.lost,
    falseUnknown: a.falseUnknown + b.falseUnknown,
    unknown: a.unknown + b.unknown,
  };
}

export const ZERO_TALLY: Omit<Tally, 'findings'> = { bills: 0, stored: 0, duplicates: 0, lost: 0, falseUnknown: 0, unknown: 0 };

// ---------------------------------------------------------------------------------------------
// (a) Two imports of the same file at once

export interface OverlapResult {
  tally: Tally;
  exits: Array<number | null>;
  reports: RoundLine[][];
  /** The CLIs' stderr, for a failure message. */
  stderr: string[];
  seconds: number;
}

/**
 * `buildsync import bills FILE` twice, started together, as a user who starts an import again
 * because the first one looks stuck. Each writes its own report (`--report`). With no worker
 * running for the rig's prefix, each CLI runs one in its own process.
 */
export async function overlappingImports(rig: E2eRig, file: BillsFile, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<OverlapResult> {
  const t0 = performance.now();
  const reportPaths = ['a', 'b'].map((x) => join(rig.dir, `${file.tag}.${x}.report.csv`));
  const runs = await Promise.all(reportPaths.map((report) => runCli(['import', 'bills', file.path, '--report', report], { ...rig.env, ...env }, { cwd: rig.dir, timeoutMs, onTimeout: 'report' })));
  const seconds = (performance.now() - t0) / 1000;
  const reports = reportPaths.map((p, i) => {
    try {
      return parseReport(readFileSync(p, 'utf8')).map((r) => ({ line: Number(r.line), status: r.status, id: r.id, message: r.message }));
    } catch (err) {
      throw new Error(`import ${i + 1} wrote no report (exit ${runs[i]!.code}): ${(err as Error).message}\n${runs[i]!.stderr}`);
    }
  });
  return { tally: await tally(rig, file, reports), exits: runs.map((r) => r.code), reports, stderr: runs.map((r) => r.stderr), seconds };
}

// ---------------------------------------------------------------------------------------------
// (b) A worker process killed mid-import, then a re-run

/** Three (or more) `buildsync worker` processes sharing the rig's prefix; one is replaced per kill. */
export class WorkerPool {
  readonly workers: WorkerProcess[] = [];
  constructor(readonly env: Record<string, string>) {}

  static async start(count: number, env: Record<string, string>): Promise<WorkerPool> {
    const pool = new WorkerPool(env);
    pool.workers.push(...(await Promise.all(Array.from({ length: count }, () => startWorkerProcess(env)))));
    return pool;
  }

  /** SIGKILLs worker `index`, waits for it to be gone, and starts its replacement: `ready` resolves once it runs. */
  async kill(index: number): Promise<{ ready: Promise<void> }> {
    const victim = this.workers[index]!;
    const gone = new Promise<void>((resolve) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? resolve() : victim.child.once('exit', () => resolve())));
    victim.child.kill('SIGKILL');
    await gone;
    const ready = startWorkerProcess(this.env).then((w) => {
      this.workers[index] = w;
    });
    return { ready };
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}

/** The knobs that make a dead worker's jobs and claims come back in seconds (see worker-host.ts). */
export function killRoundEnv(rig: E2eRig, opts: { lockMs: number; leaseMs: number; concurrency: number }): Record<string, string> {
  return {
    ...rig.env,
    BUILDSYNC_LOCK_MS: String(opts.lockMs),
    BUILDSYNC_LEDGER_LEASE_MS: String(opts.leaseMs),
    BUILDSYNC_CONCURRENCY: String(opts.concurrency),
  };
}

export interface KillRoundResult {
  tally: Tally;
  /** Whether a worker was killed (false for the floor round). */
  killed: boolean;
  /** ms from the round's first bill request to the kill; the round's bills stored and bill requests received but not answered then. */
  killAtMs: number;
  storedAtKill: number;
  inFlightAtKill: number;
  /** ms from the sandbox's first bill request of the round to its last (the floor's tells the next rounds when to kill). */
  sendSpanMs: number;
  /** Statuses of the first import and of the re-run. */
  first: Record<string, number>;
  rerun: Record<string, number>;
  /** Bills the re-run created (what the first import left missing). */
  rerunCreated: number;
  /** The first import (submit to done), and the whole round. */
  firstSeconds: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for the moment of a round's fault: `afterMs` after the sandbox received the round's first
 * bill request, with a bill request in flight (or, past the moment with nothing in flight, once
 * every bill is stored: the fault lands anyway). Returns when it came and what stood then.
 */
export async function waitForMoment(rig: E2eRig, file: BillsFile, afterMs: number, timeoutMs: number): Promise<{ atMs: number; stored: number; inFlight: number }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { received, answered, firstAt } = requestsOf(rig, file);
    const stored = storedCount(rig, file);
    if (firstAt !== undefined && Date.now() >= firstAt + afterMs && (received > answered || stored >= file.notes.length)) {
      return { atMs: Date.now() - firstAt, stored, inFlight: received - answered };
    }
    if (Date.now() > until) throw new Error(`round ${file.tag}: ${stored} bills stored after ${timeoutMs} ms, waiting for the moment of the fault`);
    await sleep(firstAt === undefined ? 5 : Math.min(5, Math.max(0, firstAt + afterMs - Date.now())));
  }
}

/**
 * One round: the file imported through the queue by the pool's workers; unless `killAfterMs` is
 * undefined, worker `victim` is SIGKILLed that long after the sandbox received the round's first
 * bill request (or, when no bill request is in flight then, as soon as one is) and a replacement
 * is started; the import waited for; then the same file imported again, which must create only
 * what is missing.
 *
 * The moment is a time, not a count of stored bills: a kill that follows the storing of a bill
 * lands when that worker is handing its next record over, which is not a random moment.
 */
export async function killRound(
  rig: E2eRig,
  pool: WorkerPool,
  file: BillsFile,
  opts: { killAfterMs?: number; victim?: number; timeoutMs?: number },
): Promise<KillRoundResult> {
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const resolver = await rig.resolver();
  const submit = async () => {
    const plan = await planBills(file.path, { resolver });
    return (await submitImport(rig.queues, rig.store, plan, { account: ACCOUNT, resendUnknown: false })).importId;
  };

  const firstId = await submit();
  let killAtMs = 0;
  let storedAtKill = 0;
  let inFlightAtKill = 0;
  let replacement: { ready: Promise<void> } | undefined;
  if (opts.killAfterMs !== undefined) {
    ({ atMs: killAtMs, stored: storedAtKill, inFlight: inFlightAtKill } = await waitForMoment(rig, file, opts.killAfterMs, timeoutMs));
    replacement = await pool.kill(opts.victim ?? 0);
  }
  await rig.waitForImport(firstId, timeoutMs);
  const firstSeconds = (performance.now() - t0) / 1000;
  const first = await rig.store.report(firstId);
  const { firstAt } = requestsOf(rig, file);
  const lastAt = Math.max(0, ...rig.sandbox.requests().filter((r) => notesOfEntry(r)?.startsWith(`${file.tag} #`)).map((r) => r.at));
  // The re-run goes to a full pool, as an operator's would once the replacement is up.
  await replacement?.ready;
  const createdBefore = storedCount(rig, file);
  const rerunId = await submit();
  await rig.waitForImport(rerunId, timeoutMs);
  const rerun = await rig.store.report(rerunId);
  const asLines = (r: typeof first): RoundLine[] => r.map((l) => ({ line: l.line, status: l.status, id: String(l.id), message: l.message }));
  return {
    tally: await tally(rig, file, [asLines(first), asLines(rerun)]),
    killed: opts.killAfterMs !== undefined,
    killAtMs,
    storedAtKill,
    inFlightAtKill,
    sendSpanMs: firstAt === undefined ? 0 : lastAt - firstAt,
    first: statusCounts(first),
    rerun: statusCounts(rerun),
    rerunCreated: storedCount(rig, file) - createdBefore,
    firstSeconds,
    seconds: (performance.now() - t0) / 1000,
  };
}

export function statusCounts(lines: Array<{ status: string }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) out[l.status] = (out[l.status] ?? 0) + 1;
  return out;
}

/** A deterministic generator (mulberry32), so that a round's kill moment can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// (c) and (d): the redis-server stopped, or SIGKILLed, mid-import and started again from its AOF

/**
 * An E2eRig on a Redis of the caller's own (a `RedisProcess` the round stops and kills): the
 * sandbox and folder of `base` (not closed by close()), a prefix of its own, and a connection
 * that waits through the outage (`maxRetriesPerRequest: null`, retrying forever) so that the
 * round's own reads resume once Redis is back.
 */
export async function rigOnRedis(base: { sandbox: Sandbox; dir: string }, redisUrl: string): Promise<E2eRig> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(n * 50, 500) });
  // The round takes Redis away on purpose: its errors are expected, and ioredis would print each.
  redis.on('error', () => {});
  await redis.ping();
  // The sandbox and the folder are the caller's; only the connection is this rig's to close.
  return buildRig({ ...base, redis, redisUrl, prefix: `outage-${randomUUID().slice(0, 8)}`, close: async () => redis.disconnect() });
}

export interface RedisOutageResult {
  tally: Tally;
  /** `stop`: SIGTERM (Redis's SHUTDOWN, AOF flushed), down for `downMs`; `kill`: SIGKILL, started again at once. */
  how: 'stop' | 'kill';
  /** ms from the round's first bill request to the signal; the round's bills stored and bill requests in flight then. */
  faultAtMs: number;
  storedAtFault: number;
  inFlightAtFault: number;
  /** From the signal to Redis accepting connections again (its AOF loaded). */
  downSeconds: number;
  /** From Redis back to the first import's parent job completed. */
  recoverSeconds: number;
  first: Record<string, number>;
  rerun: Record<string, number>;
  rerunCreated: number;
  firstSeconds: number;
  seconds: number;
  /** Lines each of the pool's workers wrote to stderr from the signal to the first import's end. */
  workerStderrLines: number[];
  /** Stack-trace lines (`    at …`, printed as such or inside a JSON log line) in those. */
  stackLines: number;
  /** Whether the restarted server said it loaded its data from the AOF. */
  aofLoaded: boolean;
}

/**
 * One Redis round: the file imported through the queue by the pool's workers (all on `server`);
 * `afterMs` after the sandbox received the round's first bill request, with one in flight, the
 * `redis-server` is stopped (SIGTERM) and started again `downMs` later, or SIGKILLed and started
 * again at once, both from its AOF in the same folder on the same port; the import waited for;
 * then the same file imported again, which must create only what is missing.
 */
export async function redisOutageRound(
  rig: E2eRig,
  pool: WorkerPool,
  server: RedisProcess,
  file: BillsFile,
  opts: { how: 'stop' | 'kill'; afterMs: number; downMs?: number; timeoutMs?: number },
): Promise<RedisOutageResult> {
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 45_000;
  const resolver = await rig.resolver();
  const submit = async () => {
    const plan = await planBills(file.path, { resolver });
    return (await submitImport(rig.queues, rig.store, plan, { account: ACCOUNT, resendUnknown: false })).importId;
  };

  const firstId = await submit();
  const moment = await waitForMoment(rig, file, opts.afterMs, timeoutMs);
  const stderrAt = pool.workers.map((w) => w.stderr().length);
  const signalledAt = performance.now();
  if (opts.how === 'stop') {
    await server.stop();
    await sleep(Math.max(0, signalledAt + (opts.downMs ?? 5_000) - performance.now()));
  } else {
    await server.kill();
  }
  const logAt = server.log().length;
  await server.start();
  const backAt = performance.now();
  const aofLoaded = /DB loaded from append only file/.test(server.log().slice(logAt));
  await rig.waitForImport(firstId, timeoutMs);
  const doneAt = performance.now();
  const during = pool.workers.map((w, i) => w.stderr().slice(stderrAt[i]));
  const first = await rig.store.report(firstId);

  const createdBefore = storedCount(rig, file);
  const rerunId = await submit();
  await rig.waitForImport(rerunId, timeoutMs);
  const rerun = await rig.store.report(rerunId);
  const asLines = (r: typeof first): RoundLine[] => r.map((l) => ({ line: l.line, status: l.status, id: String(l.id), message: l.message }));
  return {
    tally: await tally(rig, file, [asLines(first), asLines(rerun)]),
    how: opts.how,
    faultAtMs: moment.atMs,
    storedAtFault: moment.stored,
    inFlightAtFault: moment.inFlight,
    downSeconds: (backAt - signalledAt) / 1000,
    recoverSeconds: (doneAt - backAt) / 1000,
    first: statusCounts(first),
    rerun: statusCounts(rerun),
    rerunCreated: storedCount(rig, file) - createdBefore,
    firstSeconds: (doneAt - t0) / 1000,
    seconds: (performance.now() - t0) / 1000,
    workerStderrLines: during.map((t) => t.split('\n').filter((l) => l.trim() !== '').length),
    stackLines: during.reduce((n, t) => n + (t.match(/(?:\n|\\n)\s+at /g)?.length ?? 0), 0),
    aofLoaded,
  };
}
