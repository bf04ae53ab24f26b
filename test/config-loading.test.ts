/** README, Configuration: defaults, .env under the real environment, --account variables, and named errors. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS, loadConfig, readEnv, requireService } from '../src/config.ts';
import { configError } from './helpers/config-error.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'buildsync-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('defaults', () => {
  it('an empty environment gives the defaults of README, Configuration and no credentials', () => {
    const cfg = loadConfig({ env: {} });
    expect(cfg.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(cfg.concurrency).toBe(8);
    expect(cfg.logLevel).toBe('info');
    expect(cfg.prefix).toBe(DEFAULTS.prefix);
    expect(cfg.account).toMatchObject({ name: 'default', baseUrl: undefined, email: undefined, password: undefined, apiKey: undefined });
    expect(cfg.account.limits).toEqual({ hour: 500, day: 10_000, week: 50_000, month: 200_000 });
  });

  it('empty variables count as unset', () => {
    const cfg = loadConfig({ env: { REDIS_URL: '', BUILDSYNC_CONCURRENCY: '', LOG_LEVEL: '', BUILDSYNC_EMAIL: '' } });
    expect(cfg.redisUrl).toBe(DEFAULTS.redisUrl);
    expect(cfg.concurrency).toBe(8);
    expect(cfg.account.email).toBeUndefined();
  });

  it('reads every variable it documents', () => {
    const cfg = loadConfig({
      env: {
        BUILDSYNC_BASE_URL: 'https://api.example.com/',
        BUILDSYNC_EMAIL: 'me@example.com',
        BUILDSYNC_PASSWORD: 'pw',
        BUILDSYNC_API_KEY: 'key',
        REDIS_URL: 'redis://10.0.0.5:6380/2',
        BUILDSYNC_LIMITS: 'none',
        BUILDSYNC_CONCURRENCY: '3',
        LOG_LEVEL: 'debug',
      },
    });
    expect(cfg).toMatchObject({ redisUrl: 'redis://10.0.0.5:6380/2', concurrency: 3, logLevel: 'debug' });
    expect(cfg.account).toMatchObject({ baseUrl: 'https://api.example.com', email: 'me@example.com', limits: {} });
    expect(cfg.account.password!.reveal()).toBe('pw');
    expect(cfg.account.apiKey!.reveal()).toBe('key');
  });
});

describe('.env in the working directory', () => {
  it('is read, and the real environment wins over it', async () => {
    await writeFile(
      join(dir, '.env'),
      ['BUILDSYNC_EMAIL=file@example.com', 'BUILDSYNC_PASSWORD="from file"', 'BUILDSYNC_CONCURRENCY=4', '# a comment', 'LOG_LEVEL=warn'].join('\n'),
    );
    const env = readEnv(dir, { BUILDSYNC_EMAIL: 'real@example.com', PATH: '/bin' });
    expect(env.BUILDSYNC_EMAIL).toBe('real@example.com');
    expect(env.BUILDSYNC_PASSWORD).toBe('from file');
    const cfg = loadConfig({ env });
    expect(cfg.account.email).toBe('real@example.com');
    expect(cfg.account.password!.reveal()).toBe('from file');
    expect(cfg.concurrency).toBe(4);
    expect(cfg.logLevel).toBe('warn');
  });

  it('is read from process.cwd() by default', async () => {
    const fakeKey = 'cwd-key'; // a fixture, not a credential
    await writeFile(join(dir, '.env'), `BUILDSYNC_API_KEY=${fakeKey}\n`);
    const before = process.cwd();
    process.chdir(dir);
    try {
      const env = readEnv(undefined, {});
      expect(env.BUILDSYNC_API_KEY).toBe(fakeKey);
    } finally {
      process.chdir(before);
    }
  });

  it('no .env is fine', () => {
    expect(readEnv(dir, { A: '1' })).toEqual({ A: '1' });
  });
});

describe('--account NAME', () => {
  const env = {
    BUILDSYNC_EMAIL: 'default@example.com',
    BUILDSYNC_PASSWORD: 'default-pw',
    BUILDSYNC_API_KEY: 'default-key',
    BUILDSYNC_BASE_URL: 'https://default.example.com',
    BUILDSYNC_LIMITS: 'hour=100',
    BUILDSYNC_ACME_EMAIL: 'acme@example.com',
    BUILDSYNC_ACME_PASSWORD: 'acme-pw',
    BUILDSYNC_ACME_API_KEY: 'acme-key',
    BUILDSYNC_ACME_BASE_URL: 'https://acme.example.com',
    BUILDSYNC_ACME_LIMITS: 'minute=5,day=900',
    BUILDSYNC_GLOBEX_EMAIL: 'globex@example.com',
  };

  it('reads BUILDSYNC_<NAME>_* (name upper-cased) and the account\'s own limits', () => {
    for (const name of ['ACME', 'acme']) {
      const a = loadConfig({ env, account: name }).account;
      expect(a.email).toBe('acme@example.com');
      expect(a.password!.reveal()).toBe('acme-pw');
      expect(a.apiKey!.reveal()).toBe('acme-key');
      expect(a.baseUrl).toBe('https://acme.example.com');
      expect(a.limits).toEqual({ minute: 5, day: 900 });
    }
  });

  it('never falls back to the default account\'s credentials; limits fall back to BUILDSYNC_LIMITS', () => {
    const a = loadConfig({ env, account: 'globex' }).account;
    expect(a.email).toBe('globex@example.com');
    expect(a.password).toBeUndefined();
    expect(a.baseUrl).toBeUndefined();
    expect(a.limits).toEqual({ hour: 100 });
    const err = configError(() => requireService(a));
    expect(err.message).toContain('BUILDSYNC_GLOBEX_BASE_URL');
    expect(err.message).toContain('BUILDSYNC_GLOBEX_PASSWORD');
    expect(err.message).toContain('BUILDSYNC_GLOBEX_API_KEY');
    expect(err.message).not.toContain('BUILDSYNC_GLOBEX_EMAIL');
    expect(err.message).toContain('--account globex');
  });

  it('refuses a name that cannot be part of a variable name', () => {
    expect(configError(() => loadConfig({ env, account: 'ac-me' })).message).toMatch(/--account "ac-me"/);
  });
});

describe('bad values are named in the ConfigError', () => {
  it.each([
    [{ REDIS_URL: 'localhost:6379' }, /^REDIS_URL="localhost:6379": not a Redis URL; write e\.g\. redis:\/\/127\.0\.0\.1:6379$/],
    [{ BUILDSYNC_CONCURRENCY: 'many' }, /^BUILDSYNC_CONCURRENCY="many": not a number; write a whole number, e\.g\. BUILDSYNC_CONCURRENCY=8$/],
    [{ BUILDSYNC_CONCURRENCY: '2.5' }, /^BUILDSYNC_CONCURRENCY="2\.5": must be a whole number/],
    [{ BUILDSYNC_CONCURRENCY: '0' }, /^BUILDSYNC_CONCURRENCY="0": must be at least 1$/],
    [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL="verbose": not a level; use one of fatal, error, warn, info, debug, trace, silent$/],
    [{ BUILDSYNC_LIMITS: 'hour=lots' }, /^BUILDSYNC_LIMITS: "hour=lots": the limit must be a whole number/],
    [{ BUILDSYNC_LIMITS: 'fortnight=5' }, /^BUILDSYNC_LIMITS: unknown window "fortnight"/],
    [{ BUILDSYNC_BASE_URL: 'api.example.com' }, /^BUILDSYNC_BASE_URL="api\.example\.com" is not a URL/],
    [{ BUILDSYNC_BASE_URL: 'ftp://api.example.com' }, /^BUILDSYNC_BASE_URL="ftp:\/\/api\.example\.com" must start with https:\/\//],
  ])('%j', (env, message) => {
    expect(configError(() => loadConfig({ env })).message).toMatch(message);
  });

  it("an account's own bad limits name the account's variable, once", () => {
    const err = configError(() => loadConfig({ env: { BUILDSYNC_ACME_LIMITS: 'hour=-1' }, account: 'acme' }));
    expect(err.message).toMatch(/^BUILDSYNC_ACME_LIMITS: "hour=-1": the limit must be a whole number/);
    expect(err.message.match(/LIMITS/g)).toHaveLength(1);
  });

  it('a bad REDIS_URL with a password is shown without it', () => {
    const err = configError(() => loadConfig({ env: { REDIS_URL: 'http://user:hunter2@redis.local:6379' } }));
    expect(err.message).not.toContain('hunter2');
    expect(err.message).toContain('REDIS_URL');
  });

  it('a base URL carrying credentials is refused without echoing them', () => {
    const err = configError(() => loadConfig({ env: { BUILDSYNC_BASE_URL: 'https://me:hunter2@api.example.com' } }));
    expect(err.message).toMatch(/^BUILDSYNC_BASE_URL must not carry credentials/);
    expect(err.message).not.toContain('hunter2');
  });
});

describe('plain http:// (README, Configuration)', () => {
  const account = (baseUrl: string) =>
    loadConfig({ env: { BUILDSYNC_BASE_URL: baseUrl, BUILDSYNC_EMAIL: 'a@b.c', BUILDSYNC_PASSWORD: 'p', BUILDSYNC_API_KEY: 'k' } }).account;

  it.each(['http://api.example.com', 'http://10.0.0.7:4010', 'http://127.example.com'])('to %s is refused unless allowInsecureHttp', (url) => {
    const err = configError(() => requireService(account(url)));
    expect(err.message).toMatch(/^BUILDSYNC_BASE_URL uses plain http:\/\/ for .+--allow-insecure-http/);
    expect(requireService(account(url), { allowInsecureHttp: true }).baseUrl).toBe(url);
  });

  it.each(['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010', 'https://api.example.com'])('to %s is allowed', (url) => {
    expect(requireService(account(url)).baseUrl).toBe(url);
  });
});
