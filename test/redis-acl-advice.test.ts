import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure } from '../src/cli/exit.ts';
import { pageErrorHandler } from '../src/dashboard/http-errors.ts';
import { REDIS_NEEDS } from '../src/redis/acl.ts';
import { REDIS_URL } from './helpers/redis.ts';

// src/redis/acl.ts is the one table of what a Redis user needs: `buildsync check` probes its rows,
// and a command refused at run time (by the CLI or the dashboard's pages) is advised from the same
// row. Each row's ACL category is one Redis itself lists for the command (COMMAND INFO).

const user = `bsync-nobzpop-${randomUUID().slice(0, 8)}`;
const password = 'acl-advice-pass-61c2';
const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
let limited: Redis;
let refused: Error;

beforeAll(async () => {
  await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, '~*', '+@all', '-bzpopmin');
  const url = new URL(REDIS_URL);
  url.username = user;
  url.password = password;
  limited = new Redis(url.toString(), { maxRetriesPerRequest: 0 });
  refused = await limited.bzpopmin(`acl-advice-${user}`, 0.01).then(
    () => new Error('BZPOPMIN was not refused'),
    (err: Error) => err,
  );
  process.env.REDIS_URL = url.toString();
});

afterAll(async () => {
  process.env.REDIS_URL = REDIS_URL;
  limited?.disconnect();
  await admin.call('ACL', 'DELUSER', user);
  admin.disconnect();
});

const ADVICE = `ACL SETUSER ${user} +bzpopmin (ACL category @write; needed for the queues, the ledger and the budget; see docs/operators.md, "Redis ACL for a least-privilege user")`;

describe('a Redis user refused BZPOPMIN', () => {
  it('every row of the table names a category Redis lists for its command (BZPOPMIN: @write, as the documented rule grants it)', async () => {
    const withCategory = REDIS_NEEDS.filter((n) => n.category);
    expect(withCategory.length).toBeGreaterThan(60);
    for (const need of withCategory) {
      const [info] = (await admin.call('COMMAND', 'INFO', need.command)) as Array<unknown[] | null>;
      expect(info?.[6], need.command).toContain(need.category);
    }
    expect(REDIS_NEEDS.find((n) => n.command === 'bzpopmin')?.category).toBe('@write');
  });

  it('a command stops with exit 2 and the advice of the table, no stack trace', () => {
    expect(refused.message).toMatch(/^NOPERM/);
    const { code, message } = describeFailure(refused);
    expect(code).toBe(2);
    expect(message).toBe(
      `buildsync: Redis user ${user} may not run 'bzpopmin' (${refused.message.slice(0, 160)}). Grant it: ${ADVICE}. [BUILDSYNC_REDIS_UNAVAILABLE]`,
    );
  });

  it("the dashboard's pages answer 503 with the same words", async () => {
    const app = express();
    app.get('/fails', () => {
      throw refused;
    });
    app.use(pageErrorHandler({ maxBytes: 1024 }));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fails`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: `Redis user ${user} may not run 'bzpopmin' (${refused.message.slice(0, 160)}). Grant it: ${ADVICE}.` });
    } finally {
      server.close();
    }
  });
});
