/**
 * `buildsync import bills FILE ARGS --dry-run --print-payloads` through the spawned CLI, with no
 * Redis and no service (a dry run needs neither): the exit code, the payloads as JSON, the
 * report's lines and the summary line of ignored rows. Files are written to a temporary folder,
 * CRLF-terminated as accounting exports write them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliEnv } from './cli.ts';
import { parseReport } from './import-e2e-rig.ts';

export const VENDORS = join(import.meta.dirname, '..', '..', 'samples', 'vendors.csv');
const ENV: CliEnv = { REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'warn', BUILDSYNC_LIMITS: 'none' };

export interface BillDryRun {
  code: number | null;
  stderr: string;
  payloads: unknown[];
  /** [line, status, message] of each report line. */
  lines: Array<[number, string, string]>;
  /** `2 rows ignored: kind 1, credit 1`, or undefined. */
  ignoredSummary: string | undefined;
}

export class BillFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'buildsync-bill-kinds-'));
  private runs = 0;

  /** Writes `lines` joined by CRLF (and one at the end). */
  write(name: string, lines: readonly string[]): string {
    const path = join(this.dir, name);
    writeFileSync(path, `${lines.join('\r\n')}\r\n`);
    return path;
  }

  async dryRun(file: string, args: readonly string[] = [], env: CliEnv = {}): Promise<BillDryRun> {
    const report = join(this.dir, `run-${++this.runs}.report.csv`);
    const res = await runCli(['import', 'bills', file, ...args, '--dry-run', '--print-payloads', '--report', report], { ...ENV, ...env }, { cwd: this.dir });
    const lines = res.code === 2 ? [] : parseReport(readFileSync(report, 'utf8')).map((r) => [Number(r.line), r.status, r.message] as [number, string, string]);
    const payloads = res.stdout.trim() === '' ? [] : res.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    return { code: res.code, stderr: res.stderr, payloads, lines, ignoredSummary: res.stderr.split('\n').find((l) => / ignored: /.test(l)) };
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
