import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBills, planEstimates, streamBills, streamEstimates } from '../src/import/index.ts';
import type { MappedRecord } from '../src/mapping/index.ts';
import type { StaticLine } from '../src/mapping/report-line.ts';
import { importKeyOf, scanAll } from '../src/redis/layout.ts';
import { csv, freeProjectIds, parseReport, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';
import { readFileSync } from 'node:fs';

// Issue 15, "Planning streams": an import is planned in batches into the import store, so memory
// stays flat, but nothing is runnable before the whole file is read and valid; a big import puts
// several records in one job. bench/plan.ts measures speed, memory and Redis bytes per record.
let rig: E2eRig;
let projects: number[];

beforeAll(async () => {
  rig = await startE2eRig();
  projects = freeProjectIds(rig.sandbox).slice(0, 5);
});
afterAll(() => rig?.close());

const HEADER = ['bill_ref', 'project_id', 'vendor_id', 'title', 'item_name', 'rate'];

/** Keys of this test's prefix that hold import bookkeeping (plan, lines, meta). */
async function importKeys(): Promise<string[]> {
  const out: string[] = [];
  for await (const keys of scanAll(rig.redis, `${rig.prefix}:import:*`)) out.push(...keys);
  return out;
}

function comparable(records: readonly MappedRecord[]): string[] {
  return records.map((r) => JSON.stringify([r.key, r.label, r.lines, r.contentHash, JSON.stringify(r.payload)])).sort();
}

function lines(statics: readonly StaticLine[]): string[] {
  return statics.map((s) => JSON.stringify([s.line, s.record, s.status, s.message])).sort();
}

describe('planning streams', () => {
  it('hands out the same bills as planning in memory, batch by batch, before the file ends', async () => {
    // 3,000 rows (several reader batches): one-line bills, a bill whose rows are the first and the
    // last of the file, rows without bill_ref (two with the same content: keys #0 and #1), and a
    // bill made invalid by a row in the middle of the file.
    const rows: Array<Array<string | number>> = [['SPAN', projects[0]!, 7, 'Spanning', 'first line', '10.00']];
    for (let i = 0; i < 2998; i++) {
      if (i === 1000) rows.push(['', projects[1]!, 8, 'Same', 'same item', '5.00']);
      else if (i === 1001) rows.push(['', projects[1]!, 8, 'Same', 'same item', '5.00']);
      else if (i === 1500) rows.push(['BAD', projects[2]!, 9, 'Bad', 'no rate', '']);
      else if (i === 1600) rows.push(['BAD', projects[2]!, 9, 'Bad', 'fine', '1.00']);
      else rows.push([`B-${i}`, projects[i % projects.length]!, 10 + (i % 3), `Bill ${i}`, `item ${i}`, `${(i % 50) + 1}.25`]);
    }
    rows.push(['SPAN', projects[0]!, 7, '', 'last line', '20.00']);
    const file = rig.file('stream.csv', csv(HEADER, rows));
    const resolver = await rig.resolver();

    const inMemory = await planBills(file, { resolver });
    const handed: MappedRecord[] = [];
    const statics: StaticLine[] = [];
    let batchesWithRecords = 0;
    const facts = await streamBills(file, { resolver }, {
      async add(r, s) {
        if (r.length > 0) batchesWithRecords++;
        handed.push(...r);
        statics.push(...s);
      },
    });

    expect(facts).toMatchObject({ kind: 'bills', rows: 3000, records: inMemory.records.length, invalidRows: 2 });
    expect(comparable(handed)).toEqual(comparable(inMemory.records));
    expect(lines(statics)).toEqual(lines(inMemory.statics));
    expect(handed.map((r) => r.key)).toEqual(expect.arrayContaining([expect.stringMatching(/#0$/), expect.stringMatching(/#1$/)]));
    const span = handed.find((r) => r.label.startsWith('bill SPAN'))!;
    expect(span.lines).toEqual([2, 3001]);
    // Bills were handed out while the file was still being read, not all at its end.
    expect(batchesWithRecords).toBeGreaterThanOrEqual(2);
    expect(handed.findIndex((r) => r === span)).toBe(handed.length - 1);
  });

  it('hands out the same estimates as planning in memory, each once no later row names its project', async () => {
    const all = freeProjectIds(rig.sandbox);
    const [a, b, c] = all;
    const header = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];
    const rows: Array<Array<string | number>> = [[a!, 'Kitchen', 'Cabinets', 'Labor', 'Install', 2, '100.00']];
    rows.push([b!, 'Bath', 'Tile', 'Labor', 'Set tile', 3, '40.00']);
    // Fillers: enough rows for several reader batches.
    for (const p of all.slice(3, 23)) for (let k = 0; k < 120; k++) rows.push([p, `Estimate ${p}`, `Cat ${k % 4}`, `Sub ${k % 3}`, `Item ${k}`, (k % 9) + 1, `${k + 1}.50`]);
    rows.push([b!, 'Deck', 'Framing', 'Labor', 'Joists', 1, '500.00']); // a second estimate for b: both sides reported
    rows.push([c!, 'Garage', 'Doors', 'Labor', 'Hang', 'many', '80.00']); // invalid qty: the estimate is not sent
    rows.push([a!, 'Kitchen', 'Cabinets', 'Materials', 'Oak', 4, '250.00']); // back to the first estimate, on the last line
    const file = rig.file('stream-estimates.csv', csv(header, rows));
    const resolver = await rig.resolver();

    const inMemory = await planEstimates(file, { resolver });
    const handed: MappedRecord[] = [];
    const statics: StaticLine[] = [];
    let batchesWithRecords = 0;
    const facts = await streamEstimates(file, { resolver }, {
      async add(r, s) {
        if (r.length > 0) batchesWithRecords++;
        handed.push(...r);
        statics.push(...s);
      },
    });

    expect(facts).toMatchObject({ kind: 'estimates', rows: rows.length, records: inMemory.records.length });
    expect(comparable(handed)).toEqual(comparable(inMemory.records));
    expect(lines(statics)).toEqual(lines(inMemory.statics));
    expect(statics.some((st) => st.record.endsWith('/ Deck') && /allows one estimate per project/.test(st.message))).toBe(true);
    expect(handed.find((r) => r.label.endsWith('/ Kitchen'))!.lines).toEqual([2, rows.length + 1]);
    expect(batchesWithRecords).toBeGreaterThanOrEqual(2);
  });

  it('a file-level error on the last row of a 3,000-row file sends nothing and leaves nothing in Redis', async () => {
    const header = [...HEADER, ''];
    const rows: Array<Array<string | number>> = [];
    for (let i = 0; i < 3000; i++) rows.push([`LATE-${i}`, projects[i % projects.length]!, 20, `Late ${i}`, `item ${i}`, '3.00', '']);
    rows[2999]![6] = 'lost value';
    const file = rig.file('late-error.csv', csv(header, rows));
    const billsBefore = rig.sandbox.bills().length;
    const jobsBefore = await rig.queues.records.getJobCounts();
    const keysBefore = await importKeys();

    const r = await runCli(['import', 'bills', file], rig.env, { cwd: rig.dir, timeoutMs: 60_000 });

    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:3001 column 7: this cell holds "lost value", but its column has no header name`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(rig.sandbox.bills().length).toBe(billsBefore);
    expect(await rig.queues.records.getJobCounts()).toEqual(jobsBefore);
    expect(await rig.queues.imports.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, active: 0 });
    // The plan written before the last row was read is deleted.
    expect((await importKeys()).sort()).toEqual(keysBefore.sort());
  }, 90_000);

  it('with Redis unreachable, an import exits 2 before it opens FILE', async () => {
    // A FIFO nobody writes to: a reader that opened it would wait forever.
    const fifo = join(rig.dir, 'never-written.csv');
    execFileSync('mkfifo', [fifo]);
    const srv = createServer();
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((ok) => srv.close(() => ok()));

    const started = Date.now();
    const r = await runCli(['import', 'bills', fifo, '--detach'], { ...rig.env, REDIS_URL: `redis://127.0.0.1:${port}` }, { cwd: rig.dir, timeoutMs: 45_000 });

    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Redis/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 60_000);

  it('a big import puts several records in one job, each created exactly once, and a re-run skips them all', async () => {
    const rows: Array<Array<string | number>> = [];
    for (let i = 0; i < 10; i++) rows.push([`PACK-${i}`, projects[i % projects.length]!, 30, `Packed ${i}`, `item ${i}`, `${i + 1}.00`]);
    const file = rig.file('packed.csv', csv(HEADER, rows));
    const env = { ...rig.env, BUILDSYNC_RECORDS_PER_JOB: '4' };
    const billsBefore = rig.sandbox.bills().length;
    const jobsBefore = (await rig.queues.records.getJobCounts()).completed ?? 0;

    const first = await runCli(['import', 'bills', file], env, { cwd: rig.dir, timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('bills: 10 rows, 10 records: created 10, exists 0, skipped 0, failed 0, unknown 0; invalid rows 0');
    const created = rig.sandbox.bills().slice(billsBefore);
    expect(created.map((b) => (b.payload as { TITLE?: string }).TITLE).sort()).toEqual(rows.map((r) => r[3]).sort());
    // 10 records, 4 per job: 3 record jobs.
    expect(((await rig.queues.records.getJobCounts()).completed ?? 0) - jobsBefore).toBe(3);
    const report = parseReport(readFileSync(`${file}.report.csv`, 'utf8'));
    expect(report.map((l) => l.status)).toEqual(Array(10).fill('created'));

    const again = await runCli(['import', 'bills', file], env, { cwd: rig.dir, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('created 0, exists 0, skipped 10');
    expect(rig.sandbox.bills().length).toBe(billsBefore + 10);
  }, 90_000);
});

describe('what a pending record costs Redis', () => {
  it('keeps each record once, in the import store: its job holds its number and account, no payload and no retention options', async () => {
    const rows: Array<Array<string | number>> = [['ONCE-1', projects[0]!, 40, 'Once', 'item', '9.00']];
    const file = rig.file('once.csv', csv(HEADER, rows));
    const r = await runCli(['import', 'bills', file, '--detach'], rig.env, { cwd: rig.dir, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const importId = r.stdout.trim();
    const job = (await rig.queues.records.getJob(`${importId}-r0`))!;
    expect(job.data).toEqual({ account: 'default', n: 0 });
    expect(job.opts).not.toHaveProperty('removeOnComplete');
    expect(job.opts).not.toHaveProperty('removeOnFail');
    const [stored] = await rig.store.records(importId, 0);
    expect(stored).toMatchObject({ key: `bill:ref:ONCE-1|${projects[0]}|40`, label: `bill ONCE-1 / project ${projects[0]} / vendor 40`, lines: [2] });
    expect(JSON.parse(stored!.payloadJson)).toMatchObject({ PRJ_ID: projects[0], VENDOR_ID: 40, TITLE: 'Once', ITEMS: [{ NAME: 'item', RATE: '9.00' }] });
    // Submitted: the plan is kept as long as the report (30 days), not the day of a plan being written.
    expect(await rig.redis.ttl(importKeyOf(rig.redis, rig.prefix, importId, 'plan'))).toBeGreaterThan(29 * 24 * 3600);
    // Nothing runs it here (no worker): take it out of the queue so the other tests' counts stay theirs.
    await rig.queues.records.remove(job.id!);
  }, 60_000);
});
