import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { Secret } from '../src/secret.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';
import { CLI_BUNDLE } from './helpers/cli-path.ts';

const BIN = CLI_BUNDLE;
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
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, auth: { user: 'ops', password: new Secret('s3cret pass') } });
    for (const path of ['/', '/queues/', '/queues/api/queues', '/budget', '/budget.json']) {
      const none = await fetch(dashboard.url + path, { redirect: 'manual' });
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Basic realm="buildsync dashboard", charset="UTF-8"');
      const wrong = await fetch(dashboard.url + path, { redirect: 'manual', headers: { authorization: basic('ops', 's3cret') } });
      expect(wrong.status, path).toBe(401);
      const otherUser = await fetch(dashboard.url + path, { redirect: 'manual', headers: { authorization: basic('root', 's3cret pass') } });
      expect(otherUser.status, path).toBe(401);
    }
    const ok = await fetch(`${dashboard.url}/budget.json`, { headers: { authorization: basic('ops', 's3cret pass') } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { prefix: string }).prefix).toBe(t.prefix);
  });

  it('the CLI reads the password from the named variable, never prints it, and exits 0 on SIGTERM', async () => {
    const password = 'pw-from-env-9d1c';
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: t.prefix, DASH_PW: password };
    const child = spawn(process.execPath, [BIN, 'dashboard', '--port', '0', '--auth-user', 'ops', '--auth-password-env', 'DASH_PW'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`no url printed; stderr: ${stderr}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /dashboard on (http:\/\/127\.0\.0\.1:\d+)\/queues/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before listening; stderr: ${stderr}`)));
    });
    try {
      expect((await fetch(`${url}/queues/`)).status).toBe(401);
      expect((await fetch(`${url}/queues/`, { headers: { authorization: basic('ops', password) } })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('read-only');
    expect(stdout + stderr).not.toContain(password);
  });

  it('the CLI refuses --auth-user without a password variable, and an unset variable (exit 2)', () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: t.prefix };
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'dashboard', '--port', '0', ...args], { env, encoding: 'utf8', timeout: 20_000 });
    const noVar = run('--auth-user', 'ops');
    expect(noVar.status).toBe(2);
    expect(noVar.stderr).toContain('--auth-user needs --auth-password-env VAR');
    const unset = run('--auth-user', 'ops', '--auth-password-env', 'NOT_SET_ANYWHERE');
    expect(unset.status).toBe(2);
    expect(unset.stderr).toContain('NOT_SET_ANYWHERE is not set or empty');
  });
});
