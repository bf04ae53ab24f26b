import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { Secret } from '../src/secret.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';
import { runCli, spawnCli } from './helpers/cli.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('dashboard basic auth', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let dashboard: Dashboard | undefined;

  beforeEach(async () => {
    t = await testRedis();
  });
  afterEach(async () => {
    await dashboard?.close();
    dashboard = undefined;
    await t.cleanup();
  });

  it('answers 401 with a challenge without credentials or with a wrong password, 200 with the right ones', async () => {
    // Ten wrong logins below: the login limit (tested on its own below) is raised out of the way.
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, auth: { user: 'ops', password: new Secret('s3cret pass phrase') }, loginLimits: { failures: 100, windowMs: 60_000 } });
    for (const path of ['/', '/queues/', '/queues/api/queues', '/budget', '/budget.json']) {
      const none = await fetch(dashboard.url + path, { redirect: 'manual' });
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Basic realm="buildsync dashboard", charset="UTF-8"');
      const wrong = await fetch(dashboard.url + path, { redirect: 'manual', headers: { authorization: basic('ops', 's3cret') } });
      expect(wrong.status, path).toBe(401);
      const otherUser = await fetch(dashboard.url + path, { redirect: 'manual', headers: { authorization: basic('root', 's3cret pass phrase') } });
      expect(otherUser.status, path).toBe(401);
    }
    const ok = await fetch(`${dashboard.url}/budget.json`, { headers: { authorization: basic('ops', 's3cret pass phrase') } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { prefix: string }).prefix).toBe(t.prefix);
  });

  it('the CLI reads the password from the named variable, never prints it, and exits 0 on SIGTERM', async () => {
    const password = 'pw-from-env-9d1c';
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: t.prefix, DASH_PW: password };
    const cli = spawnCli(['dashboard', '--port', '0', '--auth-user', 'ops', '--auth-password-env', 'DASH_PW'], env);
    try {
      const url = (await cli.waitFor(/dashboard on (http:\/\/127\.0\.0\.1:\d+)\/queues/))[1]!;
      expect((await fetch(`${url}/queues/`)).status).toBe(401);
      expect((await fetch(`${url}/queues/`, { headers: { authorization: basic('ops', password) } })).status).toBe(200);
    } finally {
      cli.child.kill('SIGTERM');
    }
    const { code, stdout, stderr } = await cli.result;
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('read-only');
    expect(stdout + stderr).not.toContain(password);
  });

  it('the CLI refuses --auth-user without a password variable, and an unset variable (exit 2)', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: t.prefix };
    const run = (...args: string[]) => runCli(['dashboard', '--port', '0', ...args], env);
    const noVar = await run('--auth-user', 'ops');
    expect(noVar.code).toBe(2);
    expect(noVar.stderr).toContain('--auth-user needs --auth-password-env VAR');
    const unset = await run('--auth-user', 'ops', '--auth-password-env', 'NOT_SET_ANYWHERE');
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('NOT_SET_ANYWHERE is not set or empty');
  });

  it('refuses to start read-only on a non-loopback address without basic auth (exit 2, saying how to set it)', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: t.prefix };
    const r = await runCli(['dashboard', '--port', '0', '--host', '0.0.0.0'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the dashboard on 0.0.0.0 needs --auth-user and --auth-password-env, read-only or not');
    expect(r.stderr).toMatch(/DASHBOARD_PASSWORD=… buildsync dashboard --host 0\.0\.0\.0 --auth-user ops --auth-password-env DASHBOARD_PASSWORD/);
    expect(r.stdout).not.toContain('dashboard on http');
    // Every way of starting it keeps the rule, not only the command.
    await expect(startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, host: '0.0.0.0' })).rejects.toThrow(/needs --auth-user/);
  });

  it('serves on 0.0.0.0 with basic auth, and answers 401 without credentials', async () => {
    const password = 'wide-open-no-more-7f3a';
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: t.prefix, DASH_PW: password };
    const cli = spawnCli(['dashboard', '--port', '0', '--host', '0.0.0.0', '--auth-user', 'ops', '--auth-password-env', 'DASH_PW'], env);
    try {
      const port = (await cli.waitFor(/dashboard on http:\/\/0\.0\.0\.0:(\d+)\/queues/))[1]!;
      for (const path of ['/queues/', '/queues/api/queues', '/budget', '/budget.json']) {
        expect((await fetch(`http://127.0.0.1:${port}${path}`)).status, path).toBe(401);
      }
      expect((await fetch(`http://127.0.0.1:${port}/budget.json`, { headers: { authorization: basic('ops', password) } })).status).toBe(200);
    } finally {
      cli.child.kill('SIGTERM');
    }
    const { code, stderr } = await cli.result;
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/warning/);
  });
});
