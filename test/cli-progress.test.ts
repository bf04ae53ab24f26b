import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProgress, outcomeText } from '../src/cli/progress.ts';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli } from './helpers/cli.ts';

/** A stream that keeps what is written to it, as stderr would show it. */
function capture(isTTY: boolean): Writable & { text: () => string; isTTY: boolean; columns: number } {
  let text = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & { text: () => string; isTTY: boolean; columns: number; cursorTo: unknown; clearLine: unknown; moveCursor: unknown };
  w.isTTY = isTTY;
  w.columns = 200;
  // What a terminal stream offers, for cli-progress to redraw in place.
  w.cursorTo = (_x: number, _y?: number, cb?: () => void) => (cb?.(), true);
  w.clearLine = (_dir: number, cb?: () => void) => (cb?.(), true);
  w.moveCursor = (_dx: number, _dy: number, cb?: () => void) => (cb?.(), true);
  w.text = () => text;
  return w;
}

describe('progress without a terminal: plain lines, at most one per interval, and always a final line', () => {
  const saved = process.env.BUILDSYNC_PROGRESS_INTERVAL_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.BUILDSYNC_PROGRESS_INTERVAL_MS;
    else process.env.BUILDSYNC_PROGRESS_INTERVAL_MS = saved;
  });

  it('prints the first state at once, nothing more within the interval, and the last state when stopped', () => {
    delete process.env.BUILDSYNC_PROGRESS_INTERVAL_MS; // the default, 10 s
    const err = capture(false);
    const p = createProgress('bills', err as unknown as NodeJS.WriteStream);
    for (let i = 0; i <= 4; i++) p.update(i, 4, outcomeText({ created: i, exists: 0, skipped: 0, failed: 0, unknown: 0 }));
    p.stop();
    p.stop();
    expect(err.text()).toBe('bills: 0/4 created 0 exists 0 skipped 0 failed 0 unknown 0\nbills: 4/4 created 4 exists 0 skipped 0 failed 0 unknown 0\n');
  });

  it('BUILDSYNC_PROGRESS_INTERVAL_MS=0 prints every change once, and no repeated final line', () => {
    process.env.BUILDSYNC_PROGRESS_INTERVAL_MS = '0';
    const err = capture(false);
    const p = createProgress('export', err as unknown as NodeJS.WriteStream);
    p.update(10, undefined, 'projects');
    p.update(10, undefined, 'projects');
    p.update(20, undefined, 'projects');
    p.stop();
    expect(err.text()).toBe('export: 10 projects\nexport: 20 projects\n');
  });
});

describe('progress in a terminal: the bar counts every outcome', () => {
  it('a re-run ends at 4/4 with skipped 4, not at "created 0" alone', () => {
    const err = capture(true);
    const p = createProgress('bills', err as unknown as NodeJS.WriteStream);
    p.update(0, 4, outcomeText({ created: 0, exists: 0, skipped: 0, failed: 0, unknown: 0 }));
    p.update(4, 4, outcomeText({ created: 0, exists: 1, skipped: 3, failed: 0, unknown: 0 }, 'no budget limit'));
    p.stop();
    const screen = err.text().replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, '\n');
    const last = screen.split(/\r|\n/).filter((l) => l.trim()).at(-1)!;
    expect(last).toMatch(/^bills \[█+\] 4\/4 created 0 exists 1 skipped 3 failed 0 unknown 0 \| no budget limit/);
  });
});

describe('an import without a terminal, as cron or CI runs it', () => {
  /**
   * Each CLI run's own guard against a hang (runCli kills it then, failing with what it printed),
   * and each test's timeout the sum of its runs' guards. A run of six estimates takes about 1.2 s
   * and 0.5 s of CPU on a quiet machine; at a load of 25 on two cores (a twelfth of a core each)
   * runs overran runCli's default 20 s.
   */
  const CLI_MS = 60_000;
  let rig: E2eRig;
  let free: number[];
  beforeAll(async () => {
    // Each request takes 150 ms, one at a time: the import lasts long enough for several polls.
    rig = await startE2eRig({ latencyMs: 150 });
    free = freeProjectIds(rig.sandbox);
  });
  afterAll(() => rig?.close());
  const HEADER = ['project_id', 'estimate_name', 'category', 'subcategory', 'item', 'qty', 'unit_cost'];

  it('prints plain progress lines on stderr, the last the final state, and keeps stdout for the summary', async () => {
    const file = rig.file('six.csv', csv(HEADER, free.slice(0, 6).map((p, i) => [p, `E${i}`, 'General', 'Labor', 'Crew day', 1, 640])));
    const env = { ...rig.env, BUILDSYNC_CONCURRENCY: '1' };
    const everyChange = await runCli(['import', 'estimates', file], { ...env, BUILDSYNC_PROGRESS_INTERVAL_MS: '0' }, { cwd: rig.dir, timeoutMs: CLI_MS });
    expect(everyChange.code, everyChange.stderr).toBe(0);
    const lines = everyChange.stderr.split('\n').filter((l) => l.startsWith('estimates: '));
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^estimates: 0\/6 created 0 /);
    expect(lines.at(-1)).toMatch(/^estimates: 6\/6 created 6 exists 0 skipped 0 failed 0 unknown 0/);
    expect(everyChange.stdout).toMatch(/^estimates: 6 rows, 6 records: created 6,/);
    expect(everyChange.stdout).not.toContain('6/6');

    // An interval longer than the run (the default, 10 s, is that on a quiet machine, where the run
    // takes about a second; on a loaded one it took longer): the first state and the final one.
    // No run lasts longer than its guard, CLI_MS.
    const rerun = await runCli(['import', 'estimates', file], { ...env, BUILDSYNC_PROGRESS_INTERVAL_MS: String(CLI_MS) }, { cwd: rig.dir, timeoutMs: CLI_MS });
    expect(rerun.code, rerun.stderr).toBe(0);
    const plain = rerun.stderr.split('\n').filter((l) => l.startsWith('estimates: '));
    expect(plain).toHaveLength(2);
    expect(plain[0]).toMatch(/^estimates: \d\/6 /);
    expect(plain[1]).toMatch(/^estimates: 6\/6 created 0 exists 0 skipped 6 failed 0 unknown 0/);
  }, 2 * CLI_MS);

  it('follows an import through many polls without piling up abort listeners (no MaxListenersExceededWarning)', async () => {
    // 24 records one at a time at 150 ms each: over 3.6 s, more than the 11 polls (300 ms apart)
    // at which Node warns when each poll leaves its abort listener behind.
    const file = rig.file('many.csv', csv(HEADER, free.slice(6, 30).map((p, i) => [p, `M${i}`, 'General', 'Labor', 'Crew day', 1, 640])));
    const run = await runCli(['import', 'estimates', file], { ...rig.env, BUILDSYNC_CONCURRENCY: '1' }, { cwd: rig.dir, timeoutMs: CLI_MS });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^estimates: 24 rows, 24 records: created 24,/);
    expect(run.ms, 'the follow lasted long enough to poll more than 11 times').toBeGreaterThan(3_600);
    expect(run.stderr).not.toMatch(/MaxListenersExceeded/);
  }, CLI_MS + 10_000);
});
