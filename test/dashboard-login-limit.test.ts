import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { Secret } from '../src/secret.ts';
import { runCli } from './helpers/cli.ts';
import { rawRequest } from './helpers/raw-http.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';

const PASSWORD = 'twelve-chars-or-more';
const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString('base64')}`;

describe('wrong passwords are limited per client address', () => {
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

  const start = (more: { publicUrl?: string; loginLimits?: { failures: number; windowMs: number } } = {}) =>
    startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, auth: { user: 'ops', password: new Secret(PASSWORD) }, ...more });
  const login = (password: string | undefined, headers: Record<string, string> = {}) =>
    rawRequest(`${dashboard!.url}/budget.json`, { headers: { Host: new URL(dashboard!.url).host, ...(password === undefined ? {} : { Authorization: basic(password) }), ...headers } });

  it('answers the 11th wrong password within a minute with 429 for a minute, the right one too', async () => {
    dashboard = await start();
    for (let i = 1; i <= 10; i++) expect((await login(`guess-${i}`)).status, `try ${i}`).toBe(401);
    const eleventh = await login('guess-11');
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers['retry-after']).toBe('60');
    expect(eleventh.body).toBe('429 Too Many Requests: too many wrong passwords from 127.0.0.1; try again in 60 s\n');
    // Found or not, a guesser learns nothing more for the minute.
    expect((await login(PASSWORD)).status).toBe(429);
    // Without --public-url a made-up X-Forwarded-For is no way out: the connection's address counts.
    expect((await login('guess-12', { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(429);
  });

  it('counts only wrong passwords: requests without credentials are not logins', async () => {
    dashboard = await start();
    for (let i = 0; i < 15; i++) expect((await login(undefined)).status).toBe(401);
    for (let i = 0; i < 9; i++) expect((await login('wrong-password')).status).toBe(401);
    expect((await login(PASSWORD)).status).toBe(200);
  });

  it('lets the address try again once the window has passed', async () => {
    dashboard = await start({ loginLimits: { failures: 10, windowMs: 1_000 } });
    for (let i = 0; i < 10; i++) await login('wrong-password');
    expect((await login(PASSWORD)).status).toBe(429);
    await sleep(1_100);
    expect((await login(PASSWORD)).status).toBe(200);
  });

  it('with --public-url takes the client address the proxy adds to X-Forwarded-For', async () => {
    dashboard = await start({ publicUrl: 'https://buildsync.example.com' });
    const via = (client: string, password: string) => login(password, { Host: 'buildsync.example.com', 'X-Forwarded-For': client });
    for (let i = 0; i < 10; i++) expect((await via('203.0.113.5', 'wrong-password')).status).toBe(401);
    const blocked = await via('203.0.113.5', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toContain('too many wrong passwords from 203.0.113.5;');
    // The proxy appends the address it saw; whatever the client wrote before it does not count.
    expect((await via('192.0.2.1, 203.0.113.5', PASSWORD)).status).toBe(429);
    expect((await via('203.0.113.5, 203.0.113.6', PASSWORD)).status).toBe(200);
    expect((await via('203.0.113.6', 'wrong-password')).status).toBe(401);
  });
});

describe('the dashboard password', () => {
  it('is refused at start when shorter than 12 characters, naming its variable and never its value (exit 2)', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, REDIS_URL, BUILDSYNC_PREFIX: 'test-never-used', DASH_PW: 'Q' };
    const r = await runCli(['dashboard', '--port', '0', '--auth-user', 'ops', '--auth-password-env', 'DASH_PW'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('DASH_PW holds a password shorter than 12 characters; the dashboard needs at least 12. Put a longer one in it, e.g. DASH_PW="$(openssl rand -base64 18)"');
    expect(r.stdout).not.toContain('dashboard on http');
    expect(r.stdout + r.stderr).not.toMatch(/\bQ\b/);
    // Every way of starting it keeps the rule; characters are counted as typed (é is one).
    const start = (password: string) => startDashboard({ redisUrl: REDIS_URL, prefix: 'test-never-used', port: 0, auth: { user: 'ops', password: new Secret(password) } });
    await expect(start('é'.repeat(11))).rejects.toThrow('the dashboard password is shorter than 12 characters');
    const twelve = await start('é'.repeat(12));
    await twelve.close();
  });
});
