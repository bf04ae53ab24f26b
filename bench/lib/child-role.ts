import { spawn } from 'node:child_process';

export interface ChildRole {
  /** The last line the child printed (by the time the promise resolved). */
  last: string;
  kill: () => void;
  /** Settles when the child exits: 0 or SIGTERM resolve, anything else rejects. */
  done: Promise<void>;
}

/**
 * Runs one role of a benchmark in a child process (`node ...entry ...args`) so that its CPU time
 * and peak RSS are its own. Without `onLine`, resolves when the child exits with its last stdout
 * line; with it, as soon as `onLine` accepts a line (a server saying where it listens).
 */
export function childRole(entry: readonly string[], args: string[], onLine?: (line: string) => boolean): Promise<ChildRole> {
  return new Promise((resolve, reject) => {
    // BENCH_CHILD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof': node flags for every child
    // role (NODE_OPTIONS refuses --cpu-prof), to see where a pipeline spends its time.
    const nodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const p = spawn(process.execPath, [...nodeArgs, ...entry, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buf = '';
    let last = '';
    let resolved = false;
    const done = new Promise<void>((res, rej) =>
      p.on('exit', (code, signal) => (code === 0 || signal === 'SIGTERM' ? res() : rej(new Error(`${args[0]} exited ${code ?? signal}`)))),
    );
    const handle = { kill: () => p.kill('SIGTERM'), done };
    p.stdout.on('data', (b: Buffer) => {
      buf += b.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        last = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!resolved && onLine?.(last)) {
          resolved = true;
          resolve({ last, ...handle });
        }
      }
    });
    if (!onLine) done.then(() => resolve({ last, ...handle }), reject);
    else done.catch(reject);
  });
}
