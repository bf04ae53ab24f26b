import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, freeProjectIds, startE2eRig, type E2eRig } from './helpers/import-e2e-rig.ts';
import { runCli, spawnCli } from './helpers/cli.ts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-processes.ts';

// README, Commands: the exit code is the same whether the work ran in this process or as a queued
// job on a worker in another process: 3 credentials refused, 4 the service unreachable or failing.
let rig: E2eRig;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

beforeAll(async () => {
  rig = await startE2eRig();
});
afterAll(() => rig?.close());

async function bothWays(args: string[], env: Record<string, string>): Promise<{ inProcess: number | null; queued: number | null; stderr: string }> {
  const inProcess = await runCli([...args, '--no-queue'], env, { cwd: rig.dir, timeoutMs: 40_000 });
  let worker: WorkerProcess | undefined;
  try {
    worker = await startWorkerProcess({ ...env, BUILDSYNC_CONCURRENCY: '2' });
    const queued = await runCli(args, env, { cwd: rig.dir, timeoutMs: 40_000 });
    return { inProcess: inProcess.code, queued: queued.code, stderr: inProcess.stderr + queued.stderr };
  } finally {
    await worker?.stop();
  }
}

describe('one exit-code contract, in-process or through the queue', () => {
  it('3 when the service refuses the credentials', async () => {
    const env = { ...rig.env, BUILDSYNC_PASSWORD: 'not-the-password' };
    const r = await bothWays(['export', 'projects', '--out', join(rig.dir, 'refused.csv')], env);
    expect(r).toMatchObject({ inProcess: 3, queued: 3 });
    expect(r.stderr).toMatch(/BUILDSYNC_HTTP_401/);
    expect(r.stderr).not.toContain('not-the-password');
    expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
  }, 90_000);

  it('4 when the service cannot be reached', async () => {
    const env = { ...rig.env, BUILDSYNC_BASE_URL: `http://127.0.0.1:${await closedPort()}` };
    const r = await bothWays(['export', 'projects', '--out', join(rig.dir, 'unreachable.csv')], env);
    expect(r).toMatchObject({ inProcess: 4, queued: 4 });
    expect(r.stderr).toMatch(/BUILDSYNC_NETWORK/);
    expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
  }, 90_000);

  /** An import run by the command's own worker, then by a worker in another process. */
  async function importBothWays(name: string, rows: Array<Array<string | number>>): Promise<[number | null, number | null]> {
    const header = ['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'];
    const own = await runCli(['import', 'bills', rig.file(`${name}-1.csv`, csv(header, rows.map((r) => [`${r[0]}-${name}-own`, ...r.slice(1)])))], rig.env, { cwd: rig.dir, timeoutMs: 40_000 });
    let worker: WorkerProcess | undefined;
    try {
      worker = await startWorkerProcess({ ...rig.env, BUILDSYNC_CONCURRENCY: '2' });
      const queued = await runCli(['import', 'bills', rig.file(`${name}-2.csv`, csv(header, rows.map((r) => [`${r[0]}-${name}-queued`, ...r.slice(1)])))], rig.env, { cwd: rig.dir, timeoutMs: 40_000 });
      expect(queued.stderr).not.toMatch(/no worker is running/);
      return [own.code, queued.code];
    } finally {
      await worker?.stop();
    }
  }

  it('1 for an import with an invalid row, 4 when the service kept failing (5xx) as well', async () => {
    const [a, b] = freeProjectIds(rig.sandbox);
    const rows = [['F-1', a!, 55, 'Labor', '10'], ['F-2', b!, 55, 'Labor', 'ten']];
    expect(await importBothWays('invalid', rows)).toEqual([1, 1]);
    rig.sandbox.setFaults({ failBeforeStore: 1 });
    try {
      expect(await importBothWays('five-hundreds', rows)).toEqual([4, 4]);
    } finally {
      rig.sandbox.setFaults({});
    }
  }, 90_000);

  it('130 when interrupted while following an import', async () => {
    const [a] = freeProjectIds(rig.sandbox);
    rig.sandbox.setLatency(3000);
    try {
      const file = rig.file('slow.csv', csv(['bill_ref', 'project_id', 'vendor_id', 'item_name', 'rate'], [['S-1', a!, 55, 'Labor', '10']]));
      const cli = spawnCli(['import', 'bills', file], rig.env, { cwd: rig.dir });
      await cli.waitFor(/planned 1 row/, { stream: 'stderr' });
      setTimeout(() => cli.child.kill('SIGINT'), 300);
      const { code, stderr } = await cli.result;
      expect(code, stderr).toBe(130);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      rig.sandbox.setLatency(0);
    }
  }, 60_000);
});
