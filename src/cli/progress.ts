import cliProgress from 'cli-progress';

/**
 * A progress display on stderr: a cli-progress bar on a terminal, a plain line every few seconds
 * elsewhere (CI logs, pipes), so that piped stdout stays clean.
 */
export interface Progress {
  update(value: number, total: number | undefined, text: string): void;
  stop(): void;
}

export function createProgress(label: string): Progress {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {value}/{total} {text}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(value, total, text) {
        if (!started) {
          bar.start(total ?? 0, value, { text });
          started = true;
        }
        if (total !== undefined) bar.setTotal(total);
        bar.update(value, { text });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = 0;
  let lastText = '';
  return {
    update(value, total, text) {
      const line = `${label}: ${value}${total !== undefined ? `/${total}` : ''} ${text}`;
      const now = Date.now();
      if (now - last >= 5000 && line !== lastText) {
        process.stderr.write(`${line}\n`);
        last = now;
        lastText = line;
      }
    },
    stop() {},
  };
}
