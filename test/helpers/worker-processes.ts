import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnCli } from './cli.ts';

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker wrote to stderr (its log lines and notices). */
  stderr(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** The process's peak resident set so far (Linux VmHWM), in MB; undefined where /proc is absent. */
  peakRssMb(): number | undefined;
}

/**
 * Starts `node bin/buildsync.mjs worker` with `env` over this process's environment and
 * resolves once it says it is running (README, Commands), so that timing starts with live workers.
 */
export async function startWorkerProcess(env: Record<string, string>, args: string[] = []): Promise<WorkerProcess> {
  // Tests and benches run against throwaway Redis servers that keep nothing on disk.
  const worker = spawnCli(['worker', ...args], { ...process.env, LOG_LEVEL: 'warn', BUILDSYNC_ALLOW_VOLATILE_REDIS: '1', ...env });
  const child = worker.child;
  await worker.waitFor(/worker running/, { stream: 'stderr' });
  return {
    child,
    stderr: worker.stderr,
    peakRssMb() {
      try {
        const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return (await worker.result).code;
    },
  };
}

/** Starts `count` workers at once (they share the machine's cores while compiling). */
export function startWorkerProcesses(count: number, env: Record<string, string>, args: string[] = []): Promise<WorkerProcess[]> {
  return Promise.all(Array.from({ length: count }, () => startWorkerProcess(env, args)));
}

export async function stopAll(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop()));
}
