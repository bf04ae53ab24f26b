import cliProgress from 'cli-progress';
import { knob } from '../knobs.ts';

/**
 * A progress display on stderr, so that stdout stays for the summary (and `--json`, and `--out -`).
 * On a terminal, a cli-progress bar redrawn in place. Elsewhere (cron, CI logs, pipes) plain lines:
 * the first state at once, then at most one line every BUILDSYNC_PROGRESS_INTERVAL_MS (10 s), and
 * always a final line with the state at the end, so that a log shows where the work got to.
 */
export interface Progress {
  update(value: number, total: number | undefined, text: string): void;
  /** Ends the display; off a terminal, prints the last state unless that line was already printed. */
  stop(): void;
}

/** BUILDSYNC_PROGRESS_INTERVAL_MS, the test knob of knobs.ts: the least time between two plain progress lines. */
export function progressIntervalMs(): number {
  return knob('BUILDSYNC_PROGRESS_INTERVAL_MS');
}

export function createProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {value}/{total} {text}`,
        stream,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    let stopped = false;
    return {
      update(value, total, text) {
        if (stopped) return;
        if (!started) {
          bar.start(total ?? 0, value, { text });
          started = true;
        }
        if (total !== undefined) bar.setTotal(total);
        bar.update(value, { text });
      },
      stop() {
        if (started && !stopped) bar.stop();
        stopped = true;
      },
    };
  }
  const interval = progressIntervalMs();
  let printedAt: number | undefined;
  let printed = '';
  let latest = '';
  let stopped = false;
  const print = (line: string) => {
    stream.write(`${line}\n`);
    printed = line;
    printedAt = Date.now();
  };
  return {
    update(value, total, text) {
      if (stopped) return;
      latest = `${label}: ${value}${total !== undefined ? `/${total}` : ''}${text ? ` ${text}` : ''}`;
      if (latest === printed) return;
      if (printedAt === undefined || Date.now() - printedAt >= interval) print(latest);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (latest && latest !== printed) print(latest);
    },
  };
}

/**
 * An import's progress text after its bar's `settled/total`: every outcome named, so that a re-run
 * ends at "4/4 created 0 exists 0 skipped 4 …", not at "created 0" alone.
 */
export function outcomeText(c: { created: number; exists: number; skipped: number; failed: number; unknown: number }, budget = ''): string {
  return `created ${c.created} exists ${c.exists} skipped ${c.skipped} failed ${c.failed} unknown ${c.unknown}${budget ? ` | ${budget}` : ''}`;
}
