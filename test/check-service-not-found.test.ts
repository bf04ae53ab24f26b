import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../src/check/index.ts';
import { EXIT, exitCodeOf, exitCodeOfAll } from '../src/errors/index.ts';
import { runCli } from './helpers/cli.ts';
import { REDIS_URL } from './helpers/redis.ts';

// Issue 23: a base URL that answers 404 where the service lists its projects is a wrong
// BUILDSYNC_BASE_URL: its own code, BUILDSYNC_SERVICE_NOT_FOUND, exit 2 in the one table
// (exitCodeOf), and `check` takes its exit status from that table. An HTTP server of this file's
// own answers 404 to everything.

let server: Server;
let baseUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

function env(): Record<string, string> {
  return {
    REDIS_URL,
    BUILDSYNC_PREFIX: `check-404-${randomUUID().slice(0, 8)}`,
    BUILDSYNC_BASE_URL: baseUrl,
    BUILDSYNC_EMAIL: 'someone@example.com',
    BUILDSYNC_PASSWORD: 'pw-404-check',
    BUILDSYNC_API_KEY: 'key-404-check',
    BUILDSYNC_LIMITS: 'none',
    BUILDSYNC_ALLOW_VOLATILE_REDIS: '1',
  };
}

describe('a base URL that answers 404', () => {
  it('is BUILDSYNC_SERVICE_NOT_FOUND, exit 2 by exitCodeOf, and check exits 2 by it', async () => {
    expect(exitCodeOf('BUILDSYNC_SERVICE_NOT_FOUND')).toBe(EXIT.usage);
    expect(exitCodeOf('BUILDSYNC_SERVICE_NOT_FOUND')).toBe(2);

    const report = await runChecks({ env: env(), allowVolatile: true });
    const service = report.checks.find((c) => c.name === 'service')!;
    expect(service).toMatchObject({ level: 'error', code: 'BUILDSYNC_SERVICE_NOT_FOUND' });
    expect(service.message).toBe(`${baseUrl} answered 404 for /api/Projects: it does not look like the service. Check BUILDSYNC_BASE_URL (its address, without /api).`);
    expect(report.checks.filter((c) => c.level === 'error')).toHaveLength(1);
    expect(report.exitCode).toBe(exitCodeOf('BUILDSYNC_SERVICE_NOT_FOUND'));
    expect(report.exitCode).toBe(2);
    expect(seen.some((r) => r.startsWith('GET /api/Projects'))).toBe(true);
  });

  it('the spawned `check` exits 2, saying to check BUILDSYNC_BASE_URL', async () => {
    const r = await runCli(['check'], env());
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/^error +service +http:\/\/127\.0\.0\.1:\d+ answered 404 for \/api\/Projects: .*Check BUILDSYNC_BASE_URL/m);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^1 problem.*\(exit 2\)$/);
  });

  it("several findings' codes settle the exit status as the README orders them: 2, then 3, then 4", () => {
    expect(exitCodeOfAll([])).toBe(0);
    expect(exitCodeOfAll(['BUILDSYNC_NETWORK', 'BUILDSYNC_HTTP_401'])).toBe(3);
    expect(exitCodeOfAll(['BUILDSYNC_NETWORK', 'BUILDSYNC_SERVICE_NOT_FOUND', 'BUILDSYNC_HTTP_401'])).toBe(2);
    expect(exitCodeOfAll(['BUILDSYNC_HTTP_5XX'])).toBe(4);
  });
});
