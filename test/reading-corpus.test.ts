import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect as fileExpect, it, type ExpectStatic } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { parseReport } from './helpers/import-e2e-rig.ts';
import { FIXTURES, READING_CASES, type ReadingCase } from './helpers/reading-corpus-cases.ts';
import { semaphore } from './helpers/semaphore.ts';

// The reading corpus (issue 24): every file of test/helpers/reading-corpus-cases.ts read as a
// user reads it — `buildsync import KIND FILE --dry-run --print-payloads` as a child process, in
// the file's folder — and held to the exact payloads and report lines, or the exact stop. One CLI
// run per case, two at a time (two cores).

const dir = mkdtempSync(join(tmpdir(), 'buildsync-reading-corpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A dry run needs neither Redis nor the service: Redis is a closed port, no service is set.
const ENV = { REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn', BUILDSYNC_LIMITS: 'none' };
const slot = semaphore(2);

describe.concurrent('the reading corpus: files as the programs write them', () => {
  it('holds at least 30 files', () => {
    const files = new Set(READING_CASES.map((c) => (typeof c.file === 'string' ? c.file : c.file.name)));
    fileExpect(files.size).toBeGreaterThanOrEqual(30);
  });

  READING_CASES.forEach((c, i) => {
    it(c.name, ({ expect }) => slot(() => runCase(c, i, expect)));
  });
});

async function runCase(c: ReadingCase, i: number, expect: ExpectStatic): Promise<void> {
  let cwd: string;
  let file: string;
  if (typeof c.file === 'string') {
    cwd = join(FIXTURES, dirname(c.file));
    file = basename(c.file);
  } else {
    cwd = join(dir, `case-${i}`);
    file = c.file.name;
    mkdirSync(cwd);
    c.file.write(join(cwd, file));
  }
  const report = join(dir, `case-${i}.report.csv`);
  const args = ['import', c.import, file, ...(c.args ?? []), '--dry-run', '--print-payloads', '--report', report];
  const run = await runCli(args, { ...ENV, ...c.env }, { cwd });
  const shown = `buildsync ${args.join(' ')}\nexit ${run.code}\n--- stderr\n${run.stderr}--- stdout\n${run.stdout.slice(0, 3000)}`;

  expect(run.stderr, shown).not.toMatch(/^\s+at \S/m);
  expect(run.code, shown).toBe(c.exit);
  if (c.exit === 2) {
    expect(run.stdout, 'nothing printed to send').toBe('');
    expect(run.stderr.trim()).toBe(`buildsync: ${c.stop}`);
    return;
  }

  const payloads = run.stdout.trim() === '' ? [] : run.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
  expect(payloads, shown).toEqual(c.payloads);
  expect(existsSync(report), `a report at ${report}`).toBe(true);
  const lines = parseReport(readFileSync(report, 'utf8')).map((r) => [r.line, r.status, r.message]);
  expect(lines).toEqual(c.report);

  // The summary counts what the report holds: rows read, records, invalid rows, rows ignored by reason.
  const count = (status: string) => c.report.filter((l) => l[1] === status).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const rows = c.report.length - count('ignored');
  const records = plural(c.payloads.length, c.import === 'estimates' ? 'estimate' : 'bill');
  expect(run.stderr).toContain(`dry run: ${plural(rows, 'row')} -> ${records} to send, ${plural(count('invalid'), 'invalid row')}`);
  for (const note of c.notes ?? []) expect(run.stderr.split('\n')).toContain(note);
  if (c.ignored === undefined) expect(run.stderr).not.toMatch(/ignored:/);
  else expect(run.stderr).toContain(`${plural(count('ignored'), 'row')} ignored: ${c.ignored}`);
}
