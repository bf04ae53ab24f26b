/**
 * The CLI as the tests run it: `node CLI_BUNDLE ARGS` as a child process, its output collected.
 * runCli waits for the exit; spawnCli hands back the running process for tests that talk to it
 * (a dashboard, a worker to kill) or watch its output as it comes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CLI_BUNDLE, CLI_NODE_FLAGS } from './cli-path.ts';

/** Variables for the child; an undefined value is left out. */
export type CliEnv = Record<string, string | undefined>;

export interface CliOptions {
  /** Where the CLI runs (and reads a `.env` from). @defaultValue the OS temp folder */
  cwd?: string;
  /** Written to the CLI's stdin, which is then closed. @defaultValue stdin is /dev/null */
  stdin?: string | Buffer;
  /** SIGKILL after this long. @defaultValue runCli: 20 s; spawnCli: never */
  timeoutMs?: number;
  /**
   * A run killed at `timeoutMs`: 'throw' rejects `result` (a hung command is the failure);
   * 'report' resolves it with what was printed and a note at the end of stderr (the test
   * reports what a slow run did). @defaultValue 'throw'
   */
  onTimeout?: 'throw' | 'report';
  /** The script node runs. @defaultValue CLI_BUNDLE, the bundle test/global-setup.ts builds */
  bin?: string;
  /** A command line that runs node (e.g. /usr/bin/time, setpriv): `[...wrapper, node, bin, ...args]`. */
  wrapper?: string[];
  /** Bytes of each stream to keep (a CLI that echoes a 200 MB line must not take the test down). @defaultValue all */
  keepBytes?: number;
}

export interface CliResult {
  /** The exit status; null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Bytes each stream printed (the text keeps the first `keepBytes`). */
  stdoutBytes: number;
  stderrBytes: number;
  /** From the spawn to the exit. */
  ms: number;
}

export interface CliProcess {
  child: ChildProcess;
  /** What the CLI printed so far. */
  stdout(): string;
  stderr(): string;
  /**
   * The first match of `re` in what the stream printed so far or prints next; rejects when the
   * CLI exits first or after `timeoutMs` (20 s).
   */
  waitFor(re: RegExp, opts?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number }): Promise<RegExpExecArray>;
  /** Resolves once the CLI exited and its streams closed. */
  result: Promise<CliResult>;
}

/**
 * Starts the CLI. Only PATH is inherited, and REDIS_CLUSTER in the `cluster` vitest project (its
 * REDIS_URL names a cluster node): the test names every other variable (spread process.env into
 * `env` for all of them).
 */
export function spawnCli(args: string[], env: CliEnv, opts: CliOptions = {}): CliProcess {
  const t0 = performance.now();
  const argv = [...(opts.wrapper ?? []), process.execPath, ...CLI_NODE_FLAGS, opts.bin ?? CLI_BUNDLE, ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd ?? tmpdir(),
    env: { PATH: process.env.PATH ?? '', ...(process.env.REDIS_CLUSTER ? { REDIS_CLUSTER: process.env.REDIS_CLUSTER } : {}), ...env },
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);

  const keep = opts.keepBytes ?? Infinity;
  const streams = { stdout: collected(child.stdout!, keep), stderr: collected(child.stderr!, keep) };
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  let timedOut = false;
  const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs);
  const result = new Promise<CliResult>((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = streams.stderr.text();
      if (timedOut && (opts.onTimeout ?? 'throw') === 'throw') {
        reject(new Error(`buildsync ${args.join(' ').slice(0, 300)} did not exit in ${opts.timeoutMs} ms\n${stderr.slice(-4000)}`));
        return;
      }
      resolve({
        code,
        signal,
        stdout: streams.stdout.text(),
        stderr: timedOut ? `${stderr}\n[killed: still running after ${opts.timeoutMs} ms]` : stderr,
        stdoutBytes: streams.stdout.bytes(),
        stderrBytes: streams.stderr.bytes(),
        ms: performance.now() - t0,
      });
    });
  });
  // A caller that never awaits `result` (it stops the process itself) must not see an unhandled rejection.
  result.catch(() => {});

  return {
    child,
    stdout: () => streams.stdout.text(),
    stderr: () => streams.stderr.text(),
    waitFor(re, { stream = 'stdout', timeoutMs = 20_000 } = {}) {
      const s = streams[stream];
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(s.text());
          if (!m) return;
          done();
          resolve(m);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`buildsync ${args[0]}: no ${re} on ${stream} in ${timeoutMs} ms\n--- stdout ---\n${streams.stdout.text()}--- stderr ---\n${streams.stderr.text()}`));
        }, timeoutMs);
        const onExit = () => {
          done();
          reject(new Error(`buildsync ${args[0]} exited (${child.exitCode ?? child.signalCode}) before ${re} on ${stream}\n--- stdout ---\n${streams.stdout.text()}--- stderr ---\n${streams.stderr.text()}`));
        };
        const done = () => {
          clearTimeout(timer);
          s.off(check);
        };
        s.on(check);
        void exited.then(() => {
          // Output that came with the last chunk still counts.
          check();
          onExit();
        });
        check();
      });
    },
    result,
  };
}

/** Runs the CLI to its exit (SIGKILLed after `timeoutMs`, 20 s unless given). */
export function runCli(args: string[], env: CliEnv, opts: CliOptions = {}): Promise<CliResult> {
  return spawnCli(args, env, { timeoutMs: 20_000, ...opts }).result;
}

/** A stream's text (decoded across chunk boundaries, the first `keep` bytes) and its byte count. */
function collected(stream: Readable, keep: number) {
  const decoder = new StringDecoder('utf8');
  const listeners = new Set<() => void>();
  let text = '';
  let bytes = 0;
  stream.on('data', (d: Buffer) => {
    if (bytes < keep) text += decoder.write(d.subarray(0, keep - bytes));
    bytes += d.length;
    for (const l of [...listeners]) l();
  });
  stream.once('end', () => (text += decoder.end()));
  return {
    text: () => text,
    bytes: () => bytes,
    on: (l: () => void) => listeners.add(l),
    off: (l: () => void) => listeners.delete(l),
  };
}

/** What `--json` printed: stdout must hold exactly one line, a JSON object (throws otherwise, naming what it got). */
export function onlyJson(stdout: string): Record<string, unknown> {
  const lines = stdout.trimEnd().split('\n');
  if (lines.length !== 1) throw new Error(`expected exactly one line of JSON on stdout, got ${lines.length}:\n${stdout}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}
