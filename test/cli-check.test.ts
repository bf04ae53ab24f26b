import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli, type CliResult } from './helpers/cli.ts';
import { freePort, startRedisServer, type RedisServer } from './helpers/redis-server.ts';

// `buildsync check` (README, Commands; issue 13): passes against the sandbox, and names the failure
// of each broken piece with its exit code: 2 configuration or Redis, 3 credentials refused, 4 the
// service unreachable. The CLI runs as a child process; Redis servers with a password and an ACL
// user are started here on free loopback ports and stopped by PID.

let rig: E2eRig;
let server: RedisServer;
const ADMIN_PASSWORD = 'admin-pass-7c1f';
const ACL_PASSWORD = 'acl-pass-93ab';

beforeAll(async () => {
  [rig, server] = await Promise.all([startE2eRig(), startRedisServer(['--requirepass', ADMIN_PASSWORD])]);
  const admin = new Redis({ port: server.port, host: '127.0.0.1', password: ADMIN_PASSWORD });
  try {
    // The least-privilege rule of docs/operators.md ("Redis ACL for a least-privilege user"), for this
    // test's prefix; and the same user without HSET.
    const leastPrivilege = [
      'reset', 'on', `>${ACL_PASSWORD}`, `~${rig.prefix}:*`, 'resetchannels', '+@read', '+@write', '-@dangerous', '-function',
      '+@transaction', '+eval', '+evalsha', '+time', '+ping', '+info', '+client|setname', '+client|list', '+wait',
    ];
    await admin.call('ACL', 'SETUSER', 'bsync', ...leastPrivilege);
    await admin.call('ACL', 'SETUSER', 'bsync-nohset', ...leastPrivilege, '-hset');
  } finally {
    admin.disconnect();
  }
});

afterAll(async () => {
  await server?.stop();
  await rig?.close();
});

/** The check's lines on stdout, without the label columns. */
function lines(r: CliResult): string[] {
  return r.stdout.trim().split('\n');
}

/** The lines of one check (`level  name  message`). */
function linesOf(r: CliResult, name: string): string[] {
  return lines(r).filter((l) => new RegExp(`^\\S+ +${name} `).test(l));
}

/** The rig's environment plus an account NAME of its own on the same sandbox user, with `extra` as its BUILDSYNC_<NAME>_… variables. */
function accountEnv(name: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...rig.env };
  for (const key of ['BASE_URL', 'EMAIL', 'PASSWORD', 'API_KEY']) env[`BUILDSYNC_${name}_${key}`] = rig.env[`BUILDSYNC_${key}`]!;
  for (const [key, value] of Object.entries(extra)) env[`BUILDSYNC_${name}_${key}`] = value;
  return env;
}

function requestsSince(n: number) {
  return rig.sandbox.requests().slice(n);
}

function expectNoSecrets(r: CliResult, ...secrets: string[]): void {
  for (const s of [rig.sandbox.credentials.password, rig.sandbox.credentials.apiKey, ADMIN_PASSWORD, ACL_PASSWORD, ...secrets]) {
    expect(r.stdout + r.stderr).not.toContain(s);
  }
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

// These read the sandbox's request log, so they run one at a time, before the others.
describe('buildsync check, one at a time', () => {
  it('passes against the sandbox with BUILDSYNC_ALLOW_VOLATILE_REDIS=1, with one read that takes one token', async () => {
    const before = rig.sandbox.requests().length;
    const r = await runCli(['check'], { ...rig.env, BUILDSYNC_LIMITS: 'hour=100,day=1000' }, { cwd: rig.dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = lines(r);
    expect(out.at(-1)).toMatch(/^all good/);
    expect(linesOf(r, 'service')[0]).toMatch(/^ok .*accepted the credentials/);
    expect(linesOf(r, 'redis-acl')[0]).toMatch(/^ok /);
    // The volatile Redis is a warning that says why (docs/operators.md, "Durability").
    expect(linesOf(r, 'redis-durability')[0]).toMatch(/^warning .*BUILDSYNC_ALLOW_VOLATILE_REDIS=1/);
    expect(linesOf(r, 'budget')[0]).toMatch(/hour 99\/100 left, day 999\/1000 left/);
    const sent = requestsSince(before);
    expect(sent.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/Projects?skip=0&take=2']);
    expectNoSecrets(r);
  });

  it('missing credentials: exit 2, naming each missing variable; nothing is sent', async () => {
    const { BUILDSYNC_EMAIL: _e, BUILDSYNC_API_KEY: _k, ...env } = rig.env;
    const before = rig.sandbox.requests().length;
    const r = await runCli(['check'], env, { cwd: rig.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^error +config +missing BUILDSYNC_EMAIL, BUILDSYNC_API_KEY\b/m);
    expect(r.stdout).toMatch(/^warning +service +not checked/m);
    expect(lines(r).at(-1)).toMatch(/^1 problem\b/);
    expect(requestsSince(before)).toHaveLength(0);
    expectNoSecrets(r);
  });

  it('a spent budget: no request is made, and the check says when the budget has room again', async () => {
    // An account of its own (--account), with a budget of its own of one request an hour.
    const env = accountEnv('SPENT', { LIMITS: 'hour=1' });
    const first = await runCli(['check', '--account', 'spent'], env, { cwd: rig.dir });
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toMatch(/^ok +service +.*one token taken/m);

    const before = rig.sandbox.requests().length;
    const second = await runCli(['check', '--account', 'spent'], env, { cwd: rig.dir });
    expect(second.code).toBe(0);
    expect(requestsSince(before)).toHaveLength(0);
    const service = linesOf(second, 'service')[0];
    expect(service).toMatch(/^warning .*hourly budget of 1 used\. No request was sent; the budget has room again at (\d{4}-\d\d-\d\dT[\d:.]+Z) \(in [^)]+\)\. Run check again then\./);
    const resetAt = Date.parse(/room again at (\S+)/.exec(service!)![1]!);
    expect(resetAt - Date.now()).toBeGreaterThan(55 * 60_000);
    expect(second.stdout).toMatch(/^warning +budget +account spent: hour 0\/1 left/m);
  });
});

// Each of these spawns its own CLI and asserts only on its output: run them side by side.
describe.concurrent('buildsync check names each broken piece', () => {
  it('--json prints one object { ok, exitCode, checks: [{ name, ok, level, message }] } and nothing else', async () => {
    const r = await runCli(['check', '--json'], rig.env, { cwd: rig.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; exitCode: number; checks: Array<Record<string, unknown>> };
    expect(Object.keys(report).sort()).toEqual(['checks', 'exitCode', 'ok']);
    expect(report.ok).toBe(true);
    expect(report.exitCode).toBe(0);
    for (const c of report.checks) {
      // The config check carries the account's reading settings besides (README, "Scripting").
      expect(Object.keys(c).sort()).toEqual(c.name === 'config' ? ['currency', 'dateFormat', 'level', 'message', 'name', 'ok'] : ['level', 'message', 'name', 'ok']);
      expect(['ok', 'warning', 'error']).toContain(c.level);
      expect(c.ok).toBe(c.level !== 'error');
    }
    expect([...new Set(report.checks.map((c) => c.name))]).toEqual(['config', 'redis', 'redis-acl', 'redis-durability', 'service', 'budget']);
    expect(report.checks.find((c) => c.name === 'budget')!.message).toMatch(/no budget configured/);
    expect(report.checks.find((c) => c.name === 'config')).toMatchObject({
      dateFormat: { order: null, variable: 'BUILDSYNC_DATE_FORMAT' },
      currency: { code: 'USD', variable: 'BUILDSYNC_CURRENCY', set: false },
    });
  });

  it('shows the account\'s date order and currency: the defaults, and those set (per account too)', async () => {
    const unset = await runCli(['check'], rig.env, { cwd: rig.dir });
    expect(unset.code).toBe(0);
    expect(linesOf(unset, 'config').slice(1)).toEqual([
      'ok       config            dates: files that do not prove their day/month order stop and ask for the order (BUILDSYNC_DATE_FORMAT is not set)',
      'ok       config            currency: USD, the default (BUILDSYNC_CURRENCY is not set)',
    ]);

    const set = await runCli(['check'], { ...rig.env, BUILDSYNC_DATE_FORMAT: 'dmy', BUILDSYNC_CURRENCY: 'eur' }, { cwd: rig.dir });
    expect(set.code).toBe(0);
    expect(linesOf(set, 'config').slice(1)).toEqual([
      'ok       config            dates: files that do not prove their day/month order are read day first (BUILDSYNC_DATE_FORMAT=DMY)',
      'ok       config            currency: EUR (BUILDSYNC_CURRENCY)',
    ]);

    const acme = accountEnv('ACME', { DATE_FORMAT: 'MDY', CURRENCY: 'CAD' });
    const json = await runCli(['check', '--account', 'acme', '--json'], acme, { cwd: rig.dir });
    expect(json.code).toBe(0);
    const config = (JSON.parse(json.stdout) as { checks: Array<Record<string, unknown>> }).checks.find((c) => c.name === 'config');
    expect(config).toMatchObject({
      level: 'ok',
      dateFormat: { order: 'MDY', variable: 'BUILDSYNC_ACME_DATE_FORMAT' },
      currency: { code: 'CAD', variable: 'BUILDSYNC_ACME_CURRENCY', set: true },
    });
  });

  it('a bad BUILDSYNC_CURRENCY: exit 2, naming the variable and its value', async () => {
    const r = await runCli(['check'], { ...rig.env, BUILDSYNC_CURRENCY: 'US$' }, { cwd: rig.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^error +config +BUILDSYNC_CURRENCY="US\$": write the account's currency as its three-letter ISO 4217 code/m);
    expect(lines(r).at(-1)).toMatch(/^1 problem\b.*\(exit 2\)/);
  });

  it('a wrong API key: exit 3, the service refused the credentials, the key never printed', async () => {
    const r = await runCli(['check'], { ...rig.env, BUILDSYNC_API_KEY: 'wrong-key-5d2e' }, { cwd: rig.dir });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^error +service +.*refused the credentials \(401.*Check BUILDSYNC_EMAIL, BUILDSYNC_PASSWORD and BUILDSYNC_API_KEY/m);
    expectNoSecrets(r, 'wrong-key-5d2e');
  });

  it('the service unreachable (a closed port): exit 4', async () => {
    const port = await freePort();
    const r = await runCli(['check'], { ...rig.env, BUILDSYNC_BASE_URL: `http://127.0.0.1:${port}` }, { cwd: rig.dir });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^error +service +http:\/\/127\.0\.0\.1:\d+ could not be reached: .*ECONNREFUSED.*Check BUILDSYNC_BASE_URL/m);
    expect(lines(r).at(-1)).toMatch(/^1 problem.*\(exit 4\)/);
  });

  it('Redis unreachable: exit 2, and the service is still checked (without a token); as --json', async () => {
    const port = await freePort();
    const r = await runCli(['check', '--json'], { ...rig.env, REDIS_URL: `redis://127.0.0.1:${port}` }, { cwd: rig.dir });
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { ok: boolean; exitCode: number; checks: Array<{ name: string; ok: boolean; level: string; message: string }> };
    expect(report).toMatchObject({ ok: false, exitCode: 2 });
    expect(report.checks.filter((c) => c.level === 'error')).toEqual([
      { name: 'redis', ok: false, level: 'error', message: expect.stringMatching(/^no Redis answers at redis:\/\/127\.0\.0\.1:\d+\/? \(connection refused\)\. Start one/) },
    ]);
    expect(report.checks.find((c) => c.name === 'service')).toMatchObject({ level: 'ok', message: expect.stringMatching(/no budget token taken: Redis did not answer/) });
    expect(report.checks.find((c) => c.name === 'budget')).toMatchObject({ level: 'warning', message: 'not checked: Redis did not answer' });
  });

  it('a Redis that would lose the ledger, without BUILDSYNC_ALLOW_VOLATILE_REDIS: exit 2, saying how to turn AOF on', async () => {
    const { BUILDSYNC_ALLOW_VOLATILE_REDIS: _v, ...strict } = rig.env;
    const r = await runCli(['check'], strict, { cwd: rig.dir });
    expect(r.code).toBe(2);
    const durability = linesOf(r, 'redis-durability');
    expect(durability).toHaveLength(1);
    expect(durability[0]).toMatch(/^error .*no AOF \(appendonly no\).*CONFIG SET appendonly yes.*BUILDSYNC_ALLOW_VOLATILE_REDIS=1/);
    expect(lines(r).at(-1)).toMatch(/^1 problem\b/);
  });

  it('a Redis password given wrong (WRONGPASS) or not at all (NOAUTH): exit 2, each its own message', async () => {
    const wrong = await runCli(['check'], { ...rig.env, REDIS_URL: `redis://:not-the-password-1e@127.0.0.1:${server.port}` }, { cwd: rig.dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toMatch(/^error +redis +Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/? refused the user name or password \(WRONGPASS\).*Correct REDIS_URL/m);
    expectNoSecrets(wrong, 'not-the-password-1e');

    const none = await runCli(['check'], { ...rig.env, REDIS_URL: `redis://127.0.0.1:${server.port}` }, { cwd: rig.dir });
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^error +redis +Redis at .* requires a password \(NOAUTH\) and REDIS_URL gives none/m);
  });

  it('a least-privilege ACL user passes; one lacking HSET: exit 2, naming the command and its ACL category', async () => {
    const url = (user: string) => `redis://${user}:${ACL_PASSWORD}@127.0.0.1:${server.port}`;
    const good = await runCli(['check'], { ...rig.env, REDIS_URL: url('bsync') }, { cwd: rig.dir });
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^ok +redis-acl +user bsync may run the \d+ commands/m);
    expect(good.stdout).toMatch(/^ok +service +.*one token taken from the budget/m);

    const r = await runCli(['check'], { ...rig.env, REDIS_URL: url('bsync-nohset') }, { cwd: rig.dir });
    expect(r.code).toBe(2);
    const acl = linesOf(r, 'redis-acl');
    expect(acl).toHaveLength(1);
    expect(acl[0]).toMatch(/^error .*user bsync-nohset may not run HSET \(NOPERM\), needed for the queues, the ledger and the budget\. Grant it: ACL SETUSER bsync-nohset \+hset \(ACL category @write; see docs\/operators\.md/);
    expectNoSecrets(r);
  });
});
