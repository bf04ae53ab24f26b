import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/index.ts';
import { authHeaders, call, freeProjectId, postBill, postEstimate } from './sandbox-http.ts';

describe('sandbox injected faults and latency', () => {
  let sb: Sandbox | undefined;
  const start = async (o: SandboxOptions) => (sb = await startSandbox({ limits: 'none', ...o }));
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });
  const bill = (s: Sandbox) => ({ PRJ_ID: String(freeProjectId(s)), VENDOR_ID: '7', ITEMS: [{ NAME: 'x', RATE: '1.00' }] });

  it('failAfterStore: stores the estimate, then answers 500', async () => {
    const s = await start({ faults: { failAfterStore: 1 } });
    const projectId = freeProjectId(s);
    const r = await postEstimate(s, { NAME: 'E', PROJECT_ID: projectId });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ Message: 'An error has occurred.' });
    expect(s.estimates().map((e) => e.projectId)).toEqual([projectId]);
    // The retry then meets the one-per-project rule.
    s.setFaults({});
    expect((await postEstimate(s, { NAME: 'E', PROJECT_ID: projectId })).json.Message).toMatch(/already exists/);
  });

  it('dropAfterStore: stores the bill, then destroys the socket with no answer', async () => {
    const s = await start({ faults: { dropAfterStore: 1 } });
    await expect(postBill(s, bill(s))).rejects.toThrow(/other side closed|socket|ECONNRESET/i);
    expect(s.bills()).toHaveLength(1);
    expect(s.requests().at(-1)!.status).toBe(0);
  });

  it('failBeforeStore: answers 500 and stores nothing', async () => {
    const s = await start({ faults: { failBeforeStore: 1 } });
    expect((await postEstimate(s, { NAME: 'E', PROJECT_ID: freeProjectId(s) })).status).toBe(500);
    expect((await postBill(s, bill(s))).status).toBe(500);
    expect(s.estimates()).toEqual([]);
    expect(s.bills()).toEqual([]);
  });

  it('dropBeforeStore: destroys the socket and stores nothing', async () => {
    const s = await start({ faults: { dropBeforeStore: 1 } });
    await expect(postEstimate(s, { NAME: 'E', PROJECT_ID: freeProjectId(s) })).rejects.toThrow();
    expect(s.estimates()).toEqual([]);
  });

  it('leaves GET listings alone unless onGets is set', async () => {
    const s = await start({ faults: { failBeforeStore: 1 } });
    expect((await call(s, 'GET', '/api/Projects?skip=0&take=1')).status).toBe(200);
    s.setFaults({ failBeforeStore: 1, onGets: true });
    expect((await call(s, 'GET', '/api/Projects?skip=0&take=1')).status).toBe(500);
    s.setFaults({ dropBeforeStore: 1, onGets: true });
    await expect(call(s, 'GET', '/api/v2/Projects?includeClientSub=true')).rejects.toThrow();
  });

  it('draws faults from a seeded generator: the same seed fails the same requests', async () => {
    const outcomes = async (seed: number) => {
      const s = await start({ faults: { failBeforeStore: 0.5, seed } });
      const out = [];
      for (let i = 0; i < 12; i++) out.push((await postBill(s, bill(s))).status);
      await s.close();
      sb = undefined;
      return out;
    };
    const a = await outcomes(42);
    expect(a).toContain(500);
    expect(a).toContain(200);
    expect(await outcomes(42)).toEqual(a);
  });

  it('adds the configured latency before answering, adjustable at run time', async () => {
    const s = await start({ latencyMs: 600 });
    const timed = async () => {
      const t = performance.now();
      await request(`${s.url}/api/Projects?skip=0&take=1`, { headers: authHeaders(s.credentials) }).then((r) => r.body.text());
      return performance.now() - t;
    };
    const slow = await timed();
    expect(slow).toBeGreaterThanOrEqual(595);
    s.setLatency(0);
    // The same request without the latency: most of the 600 ms gone (300 ms of slack for a busy machine).
    expect(await timed()).toBeLessThan(slow - 300);
  });
});
