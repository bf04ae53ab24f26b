import { readingLines, runChecks, type AccountReading, type CheckFinding, type CheckReport } from '../check/index.ts';
import type { CommandContext } from './command.ts';

/**
 * `buildsync check [--account NAME] [--json]` (flags in program/check.ts): the configuration,
 * Redis, the service and the budget, each problem on its own line with what to do. The checks
 * live in src/check/ (run-checks.ts runs them); this only prints them.
 */
export async function checkCommand(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const report = await runChecks({
    account: ctx.global.account,
    allowInsecureHttp: ctx.global.allowInsecureHttp,
    // BUILDSYNC_ALLOW_VOLATILE_REDIS and BUILDSYNC_TIME_SCALE: read by the checks as the import
    // and the workers read them, so that check predicts what they do.
    signal: ctx.signal,
  });
  if (opts.json) ctx.out(JSON.stringify(jsonReport(report)));
  else for (const line of checkLines(report)) ctx.out(line);
  return report.exitCode;
}

type JsonCheck = Pick<CheckFinding, 'name' | 'ok' | 'level' | 'message'> & Partial<AccountReading>;

/**
 * The --json object: exactly { ok, exitCode, checks: [{ name, ok, level, message }] }, the config
 * check with `dateFormat` and `currency` besides once the variables could be read.
 */
function jsonReport(report: CheckReport): { ok: boolean; exitCode: number; checks: JsonCheck[] } {
  return {
    ok: report.ok,
    exitCode: report.exitCode,
    checks: report.checks.map(({ name, ok, level, message, reading }) => ({ name, ok, level, message, ...reading })),
  };
}

/** One line per finding (a finding worded in several lines keeps its label on each; the config check's reading settings below it), then the verdict. */
export function checkLines(report: CheckReport): string[] {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const line = (level: string, name: string, m: string) => `${level.padEnd(7)}  ${name.padEnd(width)}  ${m}`;
  // The account's reading settings were read fine even when the finding itself is a problem (missing credentials).
  const lines = report.checks.flatMap((c) => [...c.message.split('\n').map((m) => line(c.level, c.name, m)), ...(c.reading ? readingLines(c.reading).map((m) => line('ok', c.name, m)) : [])]);
  const errors = report.checks.filter((c) => c.level === 'error').length;
  const warnings = report.checks.filter((c) => c.level === 'warning').length;
  const w = warnings ? `${warnings} warning${warnings > 1 ? 's' : ''}` : '';
  lines.push(errors === 0 ? `all good${w ? ` (${w})` : ''}` : `${errors} problem${errors > 1 ? 's' : ''}${w ? `, ${w}` : ''} (exit ${report.exitCode})`);
  return lines;
}
