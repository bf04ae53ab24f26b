import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/index.ts';
import { call } from './sandbox-http.ts';

const PATH = '/api/Projects?skip=0&take=1';
const MESSAGE = /^Rate limit exceeded: (\d+) requests per (\w+)\. Try again in (\d+(?:\.\d+)?) seconds\.$/;

describe('sandbox rate limits (docs/service.md, Rate limits: per user over hour, day, week, month)', () => {
  let sb: Sandbox | undefined;
  const start = async (o: SandboxOptions) => (sb = await startSandbox({ projects: 5, ...o }));
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });

  const waitOf = (message: string) => Number(MESSAGE.exec(message)![3]) * 1000;

  it('refuses the 501st request of an hour by default, naming the limit and the wait', async () => {
    const s = await start({});
    for (let i = 0; i < 500; i++) expect((await call(s, 'GET', PATH)).status).toBe(200);
    const r = await call(s, 'GET', PATH);
    expect(r.status).toBe(429);
    expect(r.json.Message).toMatch(MESSAGE);
    expect(MESSAGE.exec(r.json.Message)!.slice(1, 3)).toEqual(['500', 'hour']);
    expect(waitOf(r.json.Message)).toBeGreaterThan(3_500_000);
    expect(r.headers['retry-after']).toBeUndefined();
  });

  it('rolling: a sliding window over the scaled hour; waiting the announced time is enough', async () => {
    const s = await start({ limits: { hour: 3 }, timeScale: 3600 }); // an hour lasts 1 s
    expect((await call(s, 'GET', PATH)).status).toBe(200);
    // The service counted the first request before its answer arrived, and computed the wait
    // after the fourth was sent: the wait is at most the window less the time between the two.
    const firstAnswered = Date.now();
    for (let i = 0; i < 2; i++) expect((await call(s, 'GET', PATH)).status).toBe(200);
    const fourthSent = Date.now();
    let r = await call(s, 'GET', PATH);
    expect(r.status).toBe(429);
    const wait = waitOf(r.json.Message);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1000 - (fourthSent - firstAnswered) + 2);
    // Refused requests are not counted: knocking again later does not move the wait.
    await sleep(300);
    for (let i = 0; i < 3; i++) expect((await call(s, 'GET', PATH)).status).toBe(429);
    await sleep(wait - 300 + 30);
    r = await call(s, 'GET', PATH);
    expect(r.status).toBe(200);
  });

  it('aligned: the budget comes back at the next multiple of the window length', async () => {
    const s = await start({ limits: { hour: 3 }, timeScale: 3600, counting: 'aligned' });
    // Spend the budget late in a one-second bucket…
    const intoBucket = Date.now() % 1000;
    await sleep((1700 - intoBucket) % 1000);
    for (let i = 0; i < 3; i++) expect((await call(s, 'GET', PATH)).status).toBe(200);
    const asked = Date.now();
    const r = await call(s, 'GET', PATH);
    const answered = Date.now();
    expect(r.status).toBe(429);
    // The wait runs to the next whole second after the sandbox counted the request, a moment
    // between asking and the answer (the sandbox runs in this process, on this clock).
    const boundary = (Math.floor(asked / 1000) + 1) * 1000;
    expect(waitOf(r.json.Message)).toBeGreaterThanOrEqual(boundary - answered - 1);
    expect(waitOf(r.json.Message)).toBeLessThanOrEqual(boundary - asked + 1);
    // …and all of it returns at the boundary, sooner than a sliding window would allow.
    await sleep(waitOf(r.json.Message) + 20);
    for (let i = 0; i < 3; i++) expect((await call(s, 'GET', PATH)).status).toBe(200);
    expect((await call(s, 'GET', PATH)).status).toBe(429);
  });

  it('sends Retry-After in whole seconds only when asked', async () => {
    const s = await start({ limits: { hour: 1 }, timeScale: 3600, retryAfterHeader: true });
    await call(s, 'GET', PATH);
    const r = await call(s, 'GET', PATH);
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('1');
  });

  it('reports the window with the longest wait, whole seconds from 10 s on', async () => {
    const s = await start({ limits: { minute: 2, hour: 3 }, timeScale: 60 }); // minute = 1 s, hour = 60 s
    await call(s, 'GET', PATH);
    await call(s, 'GET', PATH);
    let r = await call(s, 'GET', PATH);
    expect(MESSAGE.exec(r.json.Message)!.slice(1, 3)).toEqual(['2', 'minute']);
    await sleep(waitOf(r.json.Message) + 30);
    expect((await call(s, 'GET', PATH)).status).toBe(200);
    r = await call(s, 'GET', PATH);
    const [, limit, window, seconds] = MESSAGE.exec(r.json.Message)!;
    expect([limit, window]).toEqual(['3', 'hour']);
    expect(seconds).toMatch(/^\d+$/);
    expect(Number(seconds)).toBeGreaterThan(55);
  });

  it('keeps a separate budget per user and honours a custom window length', async () => {
    const s = await start({ limits: { day: 2 }, windowMs: { day: 60_000 } });
    const other = s.users.find((u) => u.email === 'pm@northgate.test')!;
    await call(s, 'GET', PATH);
    await call(s, 'GET', PATH);
    const r = await call(s, 'GET', PATH);
    expect(r.status).toBe(429);
    expect(waitOf(r.json.Message)).toBeLessThanOrEqual(60_000);
    expect(waitOf(r.json.Message)).toBeGreaterThan(59_000);
    expect((await call(s, 'GET', PATH, { creds: other })).status).toBe(200);
  });

  it('resetCounters() and setLimits() change what is allowed; unauthenticated requests do not count', async () => {
    const s = await start({ limits: { hour: 1 } });
    for (let i = 0; i < 3; i++) expect((await call(s, 'GET', PATH, { creds: null })).status).toBe(401);
    expect((await call(s, 'GET', PATH)).status).toBe(200);
    expect((await call(s, 'GET', PATH)).status).toBe(429);
    expect(s.requests().map((e) => e.status)).toEqual([401, 401, 401, 200, 429]);
    s.resetCounters();
    expect(s.requests()).toEqual([]);
    expect((await call(s, 'GET', PATH)).status).toBe(200);
    s.setLimits('none');
    for (let i = 0; i < 5; i++) expect((await call(s, 'GET', PATH)).status).toBe(200);
  });
});
