/**
 * The test knobs (src/knobs.ts): one schema with each knob's check and default, read by every
 * module that uses one, and checked with the other variables at start-up, so that a bad value
 * stops the command (exit 2) naming the variable, its value and what to write instead.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { allowVolatileRedis, loadConfig } from '../src/config.ts';
import { KNOB_SHAPE, knob, type KnobName } from '../src/knobs.ts';
import { progressIntervalMs } from '../src/cli/progress.ts';
import { redisGraceMs } from '../src/redis/failures.ts';
import { recordsPerJob } from '../src/queue/submit.ts';
import { uploadKeepMs } from '../src/dashboard/import-page.ts';
import { CLI_BUNDLE, CLI_NODE_FLAGS } from './helpers/cli-path.ts';
import { configError } from './helpers/config-error.ts';

const NAMES = Object.keys(KNOB_SHAPE) as KnobName[];

describe('the knobs schema', () => {
  it('unset or empty: the defaults (unchanged), or undefined where the code that uses a knob owns its default', () => {
    const expected: Record<KnobName, number | undefined> = {
      BUILDSYNC_TIME_SCALE: undefined,
      BUILDSYNC_LOCK_MS: undefined,
      BUILDSYNC_LEDGER_LEASE_MS: undefined,
      BUILDSYNC_EXPORT_MAX_STARTS: undefined,
      BUILDSYNC_REDIS_GRACE_MS: 30_000,
      BUILDSYNC_UPLOAD_KEEP_MS: 3_600_000,
      BUILDSYNC_UPLOAD_READER_MB: 1024,
      BUILDSYNC_UPLOAD_READER_TIMEOUT_MS: 300_000,
      BUILDSYNC_PROGRESS_INTERVAL_MS: 10_000,
      BUILDSYNC_RECORDS_PER_JOB: undefined,
      BUILDSYNC_DURABILITY_RECHECK_MS: undefined,
    };
    expect(NAMES.sort()).toEqual(Object.keys(expected).sort());
    for (const name of NAMES) {
      expect(knob(name, {}), name).toBe(expected[name]);
      expect(knob(name, { [name]: '' }), name).toBe(expected[name]);
    }
  });

  it('takes every value the tool took before', () => {
    const good: Array<[KnobName, string, number]> = [
      ['BUILDSYNC_TIME_SCALE', '3600', 3600],
      ['BUILDSYNC_TIME_SCALE', '0.5', 0.5],
      ['BUILDSYNC_LOCK_MS', '1000', 1000],
      ['BUILDSYNC_LEDGER_LEASE_MS', '200', 200],
      ['BUILDSYNC_EXPORT_MAX_STARTS', '2', 2],
      ['BUILDSYNC_REDIS_GRACE_MS', '0', 0],
      ['BUILDSYNC_REDIS_GRACE_MS', '2000', 2000],
      ['BUILDSYNC_UPLOAD_KEEP_MS', '1500', 1500],
      ['BUILDSYNC_PROGRESS_INTERVAL_MS', '0', 0],
      ['BUILDSYNC_RECORDS_PER_JOB', '1', 1],
      ['BUILDSYNC_RECORDS_PER_JOB', '16', 16],
      ['BUILDSYNC_DURABILITY_RECHECK_MS', '250', 250],
      ['BUILDSYNC_DURABILITY_RECHECK_MS', '5000', 5000],
    ];
    for (const [name, value, parsed] of good) expect(knob(name, { [name]: value }), `${name}=${value}`).toBe(parsed);
  });

  it('names a value that is not a number, for every knob, with what to write instead', () => {
    for (const name of NAMES) {
      const err = configError(() => knob(name, { [name]: 'abc' }));
      expect(err.message, name).toMatch(new RegExp(`^${name}="abc": not a number; write .*e\\.g\\. ${name}=\\d+`));
    }
  });

  it('names a number out of range, where the tool used to ignore it', () => {
    const bad: Array<[KnobName, string, RegExp]> = [
      ['BUILDSYNC_TIME_SCALE', '0', /must be above 0, e\.g\. BUILDSYNC_TIME_SCALE=3600/],
      ['BUILDSYNC_TIME_SCALE', '-2', /must be above 0/],
      ['BUILDSYNC_LOCK_MS', '500', /must be at least 1000 .*e\.g\. BUILDSYNC_LOCK_MS=30000/],
      ['BUILDSYNC_LOCK_MS', '1500.5', /must be a whole number of milliseconds/],
      ['BUILDSYNC_LEDGER_LEASE_MS', '100', /must be at least 200/],
      ['BUILDSYNC_EXPORT_MAX_STARTS', '0', /must be at least 1/],
      ['BUILDSYNC_REDIS_GRACE_MS', '-1', /must be at least 0 \(ms\)/],
      ['BUILDSYNC_UPLOAD_KEEP_MS', '50', /must be at least 100/],
      ['BUILDSYNC_PROGRESS_INTERVAL_MS', '-5', /must be at least 0 \(ms\)/],
      ['BUILDSYNC_RECORDS_PER_JOB', '99', /must be 1 to 16 .*e\.g\. BUILDSYNC_RECORDS_PER_JOB=16/],
      ['BUILDSYNC_RECORDS_PER_JOB', '0', /must be 1 to 16/],
    ];
    for (const [name, value, message] of bad) {
      const err = configError(() => knob(name, { [name]: value }));
      expect(err.message, `${name}=${value}`).toMatch(new RegExp(`^${name}="${value.replace('.', '\\.')}": `));
      expect(err.message, `${name}=${value}`).toMatch(message);
    }
  });

  it('is checked by loadConfig with every other variable', () => {
    expect(() => loadConfig({ env: { BUILDSYNC_LOCK_MS: '1500', BUILDSYNC_RECORDS_PER_JOB: '4' } })).not.toThrow();
    expect(configError(() => loadConfig({ env: { BUILDSYNC_REDIS_GRACE_MS: 'abc' } })).message).toMatch(/^BUILDSYNC_REDIS_GRACE_MS="abc": not a number/);
    expect(configError(() => loadConfig({ env: { BUILDSYNC_RECORDS_PER_JOB: '99' } })).message).toMatch(/^BUILDSYNC_RECORDS_PER_JOB="99": must be 1 to 16/);
  });

  it('BUILDSYNC_ALLOW_VOLATILE_REDIS is 1, 0 or unset: anything else is named, not taken for "no"', () => {
    expect(allowVolatileRedis({ BUILDSYNC_ALLOW_VOLATILE_REDIS: '1' })).toBe(true);
    expect(allowVolatileRedis({ BUILDSYNC_ALLOW_VOLATILE_REDIS: '0' })).toBe(false);
    expect(allowVolatileRedis({})).toBe(false);
    expect(configError(() => allowVolatileRedis({ BUILDSYNC_ALLOW_VOLATILE_REDIS: 'yes' })).message).toMatch(/^BUILDSYNC_ALLOW_VOLATILE_REDIS="yes": write BUILDSYNC_ALLOW_VOLATILE_REDIS=1/);
    expect(configError(() => loadConfig({ env: { BUILDSYNC_ALLOW_VOLATILE_REDIS: 'true' } })).message).toMatch(/^BUILDSYNC_ALLOW_VOLATILE_REDIS="true"/);
  });
});

describe('every reader goes through the schema', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of NAMES) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('the progress interval, the Redis grace, records per job and the upload keep: a bad value throws, a good one is used', () => {
    process.env.BUILDSYNC_PROGRESS_INTERVAL_MS = 'soon';
    expect(configError(progressIntervalMs).message).toContain('BUILDSYNC_PROGRESS_INTERVAL_MS="soon"');
    process.env.BUILDSYNC_PROGRESS_INTERVAL_MS = '250';
    expect(progressIntervalMs()).toBe(250);

    process.env.BUILDSYNC_REDIS_GRACE_MS = 'abc';
    expect(configError(redisGraceMs).message).toContain('BUILDSYNC_REDIS_GRACE_MS="abc"');
    delete process.env.BUILDSYNC_REDIS_GRACE_MS;
    expect(redisGraceMs()).toBe(30_000);

    expect(configError(() => recordsPerJob(5000, { BUILDSYNC_RECORDS_PER_JOB: '99' })).message).toContain('BUILDSYNC_RECORDS_PER_JOB="99"');
    expect(recordsPerJob(5000, { BUILDSYNC_RECORDS_PER_JOB: '4' })).toBe(4);
    expect(recordsPerJob(5000, {})).toBe(9);
    expect(recordsPerJob(100_000, {})).toBe(16);

    expect(configError(() => uploadKeepMs({ BUILDSYNC_UPLOAD_KEEP_MS: 'an hour' })).message).toContain('BUILDSYNC_UPLOAD_KEEP_MS="an hour"');
    expect(uploadKeepMs({})).toBe(3_600_000);
  });

  it('no module but config.ts reads a BUILDSYNC_ variable from the environment itself', () => {
    const root = resolve(import.meta.dirname, '..');
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile() && e.name.endsWith('.ts'))
        .map((e) => join(e.parentPath, e.name));
    const readers = [...files('src'), ...files('jobs')]
      .filter((f) => !f.endsWith(join('src', 'config.ts')))
      .filter((f) => /env(\.|\[['"])BUILDSYNC_[A-Z_]+/.test(readFileSync(f, 'utf8')));
    expect(readers).toEqual([]);
  });
});

describe('the CLI with a bad knob', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'buildsync-knobs-'));
    dirs.push(d);
    return d;
  };
  const cli = (args: string[], env: Record<string, string>, cwd = tempDir()) =>
    spawnSync(process.execPath, [...CLI_NODE_FLAGS, CLI_BUNDLE, ...args], { cwd, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '', ...env } });

  // Each knob is read in a different module (redis/connection.ts, queue/submit.ts,
  // cli/progress.ts, cli/runtime.ts), each by a command that used to run on regardless.
  const cases: Array<{ args: (dir: string) => string[]; name: string; value: string; hint: RegExp }> = [
    { args: () => ['jobs', 'list'], name: 'BUILDSYNC_REDIS_GRACE_MS', value: 'abc', hint: /write a number of milliseconds, e.g\. BUILDSYNC_REDIS_GRACE_MS=30000/ },
    {
      args: (dir) => {
        writeFileSync(join(dir, 'bills.csv'), 'bill_ref,project_id,vendor_id,item_name,rate\nB-1,1,55,Gravel,100\n');
        return ['import', 'bills', join(dir, 'bills.csv')];
      },
      name: 'BUILDSYNC_RECORDS_PER_JOB',
      value: '99',
      hint: /must be 1 to 16 .*e\.g\. BUILDSYNC_RECORDS_PER_JOB=16/,
    },
    { args: (dir) => ['export', 'projects', '--out', join(dir, 'projects.csv')], name: 'BUILDSYNC_PROGRESS_INTERVAL_MS', value: 'soon', hint: /e\.g\. BUILDSYNC_PROGRESS_INTERVAL_MS=10000/ },
    { args: () => ['worker'], name: 'BUILDSYNC_LOCK_MS', value: '500', hint: /must be at least 1000 .*e\.g\. BUILDSYNC_LOCK_MS=30000/ },
  ];

  for (const c of cases) {
    it(`${c.name}=${c.value}: exit 2, naming the variable, its value and what to write instead`, () => {
      const dir = tempDir();
      const r = cli(c.args(dir), { [c.name]: c.value }, dir);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`buildsync: ${c.name}=${JSON.stringify(c.value)}: `);
      expect(r.stderr).toMatch(c.hint);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('check reports a bad knob as a configuration problem, in its own format', () => {
    for (const [name, value] of [['BUILDSYNC_TIME_SCALE', '0'], ['BUILDSYNC_ALLOW_VOLATILE_REDIS', 'yes']]) {
      const r = cli(['check'], { [name!]: value! });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stdout).toMatch(new RegExp(`^error +config +${name}="${value}": `, 'm'));
      expect(r.stdout).toMatch(/^1 problem/m);
    }
  });

  it('a bad knob in .env is named the same way: knobs are read like every other variable', () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), 'BUILDSYNC_TIME_SCALE=fast\n');
    const r = cli(['jobs', 'list'], {}, dir);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('buildsync: BUILDSYNC_TIME_SCALE="fast": not a number');
  });
});
