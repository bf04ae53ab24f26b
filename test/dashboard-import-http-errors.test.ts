/**
 * The import page answers a failure that is the user's (their file, their input or configuration)
 * with 400 and any other with 500, decided by the error's stable code through the one exit-code
 * table (`exitCodeOf`: exit 2 is the user's), not by the error's class name. Real dashboard and
 * Redis, plain HTTP requests as the page's own script makes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../src/dashboard/index.ts';
import { httpStatusOf } from '../src/dashboard/http-errors.ts';
import { RedisNotDurableError } from '../src/ledger/index.ts';
import { ConfigError, FileError, ImportUnknownError, NetworkError, RedisUnavailableError, RowError, ServerError } from '../src/errors/index.ts';
import { REDIS_URL, testRedis } from './helpers/redis.ts';
import { noRedisAnswers } from '../src/redis/failures.ts';

describe('import page: 4xx or 500 by the error\'s code (exitCodeOf)', () => {
  let t: Awaited<ReturnType<typeof testRedis>>;
  let dashboard: Dashboard;
  let parent: string;

  beforeAll(async () => {
    t = await testRedis();
    parent = mkdtempSync(join(tmpdir(), 'bs-http-errors-'));
    dashboard = await startDashboard({ redisUrl: REDIS_URL, prefix: t.prefix, port: 0, env: {}, allowImports: true, uploadDir: parent });
  }, 30_000);

  afterAll(async () => {
    await dashboard?.close();
    await t?.cleanup();
    rmSync(parent, { recursive: true, force: true });
  });

  const upload = async (name: string, body: Buffer | string) => {
    const res = await fetch(`${dashboard.url}/import/upload?kind=bills&sheet=`, {
      method: 'POST',
      headers: { Origin: dashboard.url, 'Content-Type': 'application/octet-stream', 'X-Filename': name },
      body,
    });
    return { status: res.status, json: (await res.json()) as { error?: string } };
  };

  it('an upload that fails with BUILDSYNC_FILE_UNREADABLE is the user\'s: 400, naming the file as uploaded', async () => {
    const noHeader = await upload('no-header.csv', ',,\n1,2,3\n');
    expect(noHeader.status).toBe(400);
    expect(noHeader.json.error).toMatch(/^no-header\.csv:1: the header row has no column names/);
    const damaged = await upload('damaged.xlsx', Buffer.from('PK\u0003\u0004garbage'));
    expect(damaged.status).toBe(400);
    expect(damaged.json.error).toMatch(/^cannot read damaged\.xlsx as an \.xlsx workbook: it is damaged/);
    expect(JSON.stringify([noHeader, damaged])).not.toContain('buildsync-uploads-');
  });

  it('an upload that fails with BUILDSYNC_ROW_INVALID (exit 2 in the table) is the user\'s too: 400, not 500', async () => {
    const openQuote = await upload('open-quote.csv', 'bill_ref,amount\n"B-1,10\nB-2,20\n');
    expect(openQuote.status).toBe(400);
    expect(openQuote.json.error).toMatch(/^open-quote\.csv:2 column 1 \("bill_ref"\): a quoted field is opened here and never closed/);
  });

  it('maps by code, whatever the class: exit 2 codes are 400 (503 for Redis or the database gone), every other failure 500', () => {
    expect(httpStatusOf(new RedisUnavailableError('redis://127.0.0.1:1', { message: noRedisAnswers('redis://127.0.0.1:1').message }))).toBe(503);
    expect(httpStatusOf(new FileError('f.csv', 'f.csv: unreadable'))).toBe(400);
    expect(httpStatusOf(new RowError('f.csv', 2, undefined, 'bad'))).toBe(400);
    expect(httpStatusOf(new ConfigError('bad value'))).toBe(400);
    // A subclass named otherwise, carrying a user code: still the user's.
    expect(httpStatusOf(new RedisNotDurableError('refused', 'turn AOF on'))).toBe(400);
    expect(httpStatusOf(new ImportUnknownError('import-x'))).toBe(400);
    expect(httpStatusOf(new NetworkError('connection reset', false))).toBe(500);
    expect(httpStatusOf(new ServerError({ status: 503, method: 'GET', path: '/x', body: '' }))).toBe(500);
    expect(httpStatusOf(new Error('a bug'))).toBe(500);
    // An error that only looks like a user error by its name is not one.
    const named = Object.assign(new Error('x'), { name: 'FileError' });
    expect(httpStatusOf(named)).toBe(500);
  });
});
