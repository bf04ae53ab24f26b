/**
 * The sandbox in a process of its own, so that the service a bench measures against does not
 * share an event loop (or a core's time slices) with the path being measured.
 *
 *   const sb = await forkSandbox({ limits: { second: 50 } });  // in the bench
 *   ... sb.url, sb.users, sb.projectIds ...
 *   const stats = await sb.stats();  await sb.reset();  await sb.close();
 *
 * The child is this same file run with `node --import tsx`; it speaks over the IPC channel.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SandboxOptions } from '../../src/sandbox/index.ts';

export interface SandboxStats {
  requests: number;
  byStatus: Record<string, number>;
  /** Arrival times of the requests answered 429. */
  refusedAt: number[];
  /** Arrival times of the other requests. */
  acceptedAt: number[];
  bills: number;
  /** Distinct bill titles: equals `bills` when nothing was created twice. */
  distinctBills: number;
}

export interface ForkedSandbox {
  url: string;
  users: { email: string; password: string; apiKey: string }[];
  /** Projects the first user may put bills on. */
  projectIds: number[];
  /** Their names (`NAME`), in the same order. */
  projectNames: string[];
  pid: number;
  stats(): Promise<SandboxStats>;
  /** Forgets the request log, the rate counters and the stored bills' count baseline. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

type Reply = { id: number; result?: unknown; error?: string };

export async function forkSandbox(options: SandboxOptions): Promise<ForkedSandbox> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const pending = new Map<number, (r: Reply) => void>();
  child.on('message', (m: Reply) => pending.get(m.id)?.(m));
  const call = <T>(op: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = ++next;
      pending.set(id, (r) => {
        pending.delete(id);
        if (r.error) reject(new Error(r.error));
        else resolve(r.result as T);
      });
      child.send({ id, op });
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const info = await call<Pick<ForkedSandbox, 'url' | 'users' | 'projectIds' | 'projectNames'>>('info');
  return {
    ...info,
    pid: child.pid!,
    stats: () => call<SandboxStats>('stats'),
    reset: () => call<void>('reset'),
    async close() {
      await call<void>('close').catch(() => undefined);
      await exited;
    },
  };
}

async function runChild(options: SandboxOptions): Promise<void> {
  const { startSandbox } = await import('../../src/sandbox/index.ts');
  const sandbox = await startSandbox(options);
  let billsBefore = 0;
  const ops: Record<string, () => unknown> = {
    info: () => {
      const user = sandbox.users[0]!;
      const projectIds = sandbox
        .visibleProjectIds(user.email, false)
        .filter((id) => sandbox.project(id)?.NAME !== 'My Documents');
      return { url: sandbox.url, users: sandbox.users, projectIds, projectNames: projectIds.map((id) => String(sandbox.project(id)!.NAME)) };
    },
    stats: (): SandboxStats => {
      const log = sandbox.requests();
      const byStatus: Record<string, number> = {};
      for (const r of log) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      const bills = sandbox.bills().slice(billsBefore);
      return {
        requests: log.length,
        byStatus,
        refusedAt: log.filter((r) => r.status === 429).map((r) => r.at),
        acceptedAt: log.filter((r) => r.status !== 429).map((r) => r.at).sort((a, b) => a - b),
        bills: bills.length,
        distinctBills: new Set(bills.map((b) => (b.payload as { TITLE?: string }).TITLE)).size,
      };
    },
    reset: () => {
      sandbox.resetCounters();
      billsBefore = sandbox.bills().length;
    },
    close: async () => {
      await sandbox.close();
      setImmediate(() => process.exit(0));
    },
  };
  process.on('message', async (m: { id: number; op: string }) => {
    try {
      const result = await ops[m.op]!();
      process.send!({ id: m.id, result });
    } catch (err) {
      process.send!({ id: m.id, error: (err as Error).message });
    }
  });
}

if (process.argv[2] === '--child') await runChild(JSON.parse(process.argv[3]!) as SandboxOptions);
