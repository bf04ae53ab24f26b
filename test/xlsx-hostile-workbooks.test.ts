import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { TIME_BIN, fileArg, runBuildsync } from './helpers/bad-input-cases.ts';
import { HOSTILE_WORKBOOKS } from './helpers/hostile-workbooks.ts';
import { semaphore } from './helpers/semaphore.ts';

// Hostile workbooks meet a bound (issue 32, README "Reading a file as it was meant"): each small
// .xlsx of test/helpers/hostile-workbooks.ts, written here, is read by the CLI as a user runs it
// (`buildsync import estimates FILE --dry-run`, a child process) and must stop with exit 2, its
// message naming the limit (or the rule) and the part of the workbook, within 300 MB of peak
// memory and 10 s of CPU, both read by /usr/bin/time (CPU time, not the wall clock: the work the
// file costs, whatever else the machine runs meanwhile; a child still running after 60 s is killed
// and fails the case). Two run at a time: each costs a CLI start.

const root = mkdtempSync(join(tmpdir(), 'buildsync-hostile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const slot = semaphore(2);
const READING_ENV = { LOG_LEVEL: 'warn', BUILDSYNC_ALLOW_VOLATILE_REDIS: '1' };
const MAX_RSS_MB = 300;
const MAX_CPU_SECONDS = 10;

describe.concurrent('a hostile workbook stops at a bound, in little memory and time', () => {
  it('peak memory is measured (/usr/bin/time is installed)', ({ expect }) => {
    expect(existsSync(TIME_BIN)).toBe(true);
  });

  for (const c of HOSTILE_WORKBOOKS) {
    it(`${c.name}: exit 2, naming it`, { timeout: 120_000 }, ({ expect }) =>
      slot(async () => {
        const dir = mkdtempSync(join(root, 'case-'));
        chmodSync(dir, 0o755);
        const file = c.write(dir);
        expect(statSync(file).size, 'the file is small').toBeLessThan(1_000_000);
        const run = await runBuildsync(['import', 'estimates', fileArg(dir, file), '--dry-run'], READING_ENV, { cwd: dir, timeoutMs: 60_000 });
        const shown = `exit ${run.code} in ${Math.round(run.ms)} ms (${run.cpuSeconds} s of CPU), peak ${Math.round((run.maxRssKb ?? 0) / 1024)} MB\n${run.stderr.slice(0, 2000)}`;
        if (process.env.HOSTILE_LOG) console.log(`${c.file}: ${shown.split('\n')[0]}`);
        expect(run.code, shown).toBe(2);
        for (const re of c.says) expect(run.stderr, shown).toMatch(re);
        expect(run.stderr, 'no stack trace').not.toMatch(/^\s+at \S/m);
        expect(run.stderr.length, 'a short message').toBeLessThan(1_000);
        expect(run.maxRssKb, 'peak RSS measured').toBeDefined();
        expect(Math.round(run.maxRssKb! / 1024), `peak RSS in MB\n${shown}`).toBeLessThanOrEqual(MAX_RSS_MB);
        expect(run.cpuSeconds, `CPU seconds\n${shown}`).toBeLessThanOrEqual(MAX_CPU_SECONDS);
      }),
    );
  }
});
