import type { Command } from 'commander';
import { BuildsyncError, InterruptedError } from '../errors/index.ts';
import { EXIT } from '../errors/exit-codes.ts';

/** Options every command accepts (README, Configuration). */
export interface GlobalOptions {
  account?: string;
  allowInsecureHttp?: boolean;
}

export interface CommandContext {
  global: GlobalOptions;
  /** Aborted on the first SIGINT / SIGTERM; commands pass it down and clean up. */
  signal: AbortSignal;
  out: (line: string) => void;
  err: (line: string) => void;
}

const controller = new AbortController();
let signalled: NodeJS.Signals | undefined;

function onSignal(sig: NodeJS.Signals): void {
  if (signalled) {
    // A second Ctrl-C means "now": the first one already asked everything to wind down.
    process.stderr.write(`buildsync: ${sig} again, exiting at once\n`);
    process.exit(EXIT.interrupted);
  }
  signalled = sig;
  controller.abort(new InterruptedError(`interrupted by ${sig}`));
}

export function installSignalHandlers(): void {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Set while a command writes its output file to standard output (`--out -`) and handles its errors itself. */
let stdoutIsOutput = false;

/**
 * `--out -`: the command itself answers for standard output's errors (a closed pipe or a full disk
 * cuts the output, exit 2), instead of main.ts taking a closed pipe for a reader that had enough.
 */
export function claimStdout(claimed: boolean): void {
  stdoutIsOutput = claimed;
}

export function stdoutClaimed(): boolean {
  return stdoutIsOutput;
}

export function wasSignalled(): NodeJS.Signals | undefined {
  return signalled;
}

/**
 * Wraps a command's action: builds its context, maps what it returns or throws to the exit codes
 * of README, Commands and prints a failure as one line, never as a stack trace for a user's mistake.
 */
/** A command's failure as `--json` reports it: the exit code, the stable error code when there is one, the message. */
export interface JsonFailure {
  exitCode: number;
  code: string | null;
  message: string;
}

export function action<A extends unknown[]>(
  fn: (ctx: CommandContext, ...args: A) => Promise<number | void>,
  opts: {
    runsUntilSignal?: boolean;
    /**
     * With `--json`, the object a failure prints on stdout (the command's own shape, status
     * `failed`), so that a script reading stdout always gets one object.
     */
    jsonFailure?: (args: A, failure: JsonFailure) => object;
  } = {},
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const ctx: CommandContext = {
      global: cmd.optsWithGlobals() as GlobalOptions,
      signal: controller.signal,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    };
    let code: number;
    try {
      code = (await fn(ctx, ...(args.slice(0, -1) as A))) ?? EXIT.ok;
    } catch (err) {
      // Whatever broke after a signal broke because of it: report the interruption. Loaded only
      // here: it reads Redis errors, and a command's start must not pay for that.
      const { describeFailure } = await import('./exit.ts');
      const failure = signalled ? new InterruptedError(`interrupted by ${signalled}`) : err;
      const f = describeFailure(failure);
      ctx.err(f.message);
      code = f.code;
      const commandArgs = args.slice(0, -1) as A;
      const flags = commandArgs[commandArgs.length - 1] as { json?: boolean } | undefined;
      if (opts.jsonFailure && flags?.json) {
        const stable = failure instanceof BuildsyncError ? failure.code : /\[(BUILDSYNC_[A-Z0-9_]+)\]$/.exec(f.message)?.[1];
        const message = f.message.replace(/^buildsync: /, '').replace(/ \[BUILDSYNC_[A-Z0-9_]+\]$/, '');
        ctx.out(JSON.stringify(opts.jsonFailure(commandArgs, { exitCode: code, code: stable ?? null, message })));
      }
    }
    // A long-running command (worker, sandbox, dashboard) stops on a signal by design: that is success.
    if (signalled && code === EXIT.ok && !opts.runsUntilSignal) code = EXIT.interrupted;
    process.exitCode = code;
    // Told to stop, the command has wound down what it could: whatever still holds the event
    // loop (a socket to an absent Redis, a request in flight) must not keep the process alive.
    if (signalled) setTimeout(() => process.exit(code), 300).unref();
    // Done either way: a timer of a library that could not close (BullMQ's lock renewal after
    // Redis went away for good) must not keep a finished command alive. Unref'd, so a command
    // that ends normally exits at once; this fires only if something still holds the loop.
    else setTimeout(() => process.exit(code), 2000).unref();
  };
}
