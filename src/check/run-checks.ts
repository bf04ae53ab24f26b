/**
 * `buildsync check` (README, Commands) as plain functions: each check returns findings, one per
 * problem, each saying what to do; `runChecks` runs them in order and settles the exit code. The
 * CLI only prints. Nothing here writes: Redis commands that would write are only queued inside a
 * MULTI that is discarded (Redis checks ACL permissions when it queues a command, so a refusal
 * shows without anything being executed), and the service gets one GET.
 */
import { allowVolatileRedis, type Env } from '../config.ts';
import { knob } from '../knobs.ts';
import { AccountThrottle, type BudgetStatus } from '../throttle/index.ts';
import { checkBudget } from './budget.ts';
import { checkConfig } from './config.ts';
import { checkExitCode, error, redisReplyText, warning, type CheckFinding, type CheckReport } from './finding.ts';
import { checkRedis } from './redis-connection.ts';
import { checkService } from './service.ts';

export interface CheckOptions {
  /** `--account NAME`; `default` without it. */
  account?: string;
  allowInsecureHttp?: boolean;
  /** Where the variables are read. @defaultValue readEnv() (the environment over .env) */
  env?: Env;
  /**
   * BUILDSYNC_ALLOW_VOLATILE_REDIS=1: a Redis that would lose the ledger is a warning, not an error.
   * @defaultValue the variable, read as the import and the workers read it
   */
  allowVolatile?: boolean;
  /** BUILDSYNC_TIME_SCALE, the test knob that shortens the budget's windows. @defaultValue the variable (knobs.ts) */
  timeScale?: number;
  signal?: AbortSignal;
  /** Headers and body timeout of the service request. @defaultValue 15_000 */
  serviceTimeoutMs?: number;
}

/** Runs every check in order; a check that cannot run for an earlier problem says so as a warning. */
export async function runChecks(opts: CheckOptions): Promise<CheckReport> {
  const findings: CheckFinding[] = [];
  const config = checkConfig(opts);
  findings.push(...config.findings);
  if (!config.cfg) {
    for (const name of ['redis', 'service', 'budget'] as const) findings.push(warning(name, 'not checked: the configuration above cannot be read'));
    return report(findings);
  }
  const cfg = config.cfg;
  // Read once loadConfig has checked them, so that a bad value is the config finding above.
  const allowVolatile = opts.allowVolatile ?? allowVolatileRedis(opts.env);
  const timeScale = opts.timeScale ?? knob('BUILDSYNC_TIME_SCALE', opts.env);

  const redisCheck = await checkRedis(cfg, { allowVolatile });
  findings.push(...redisCheck.findings);
  const redis = redisCheck.redis;
  try {
    let throttle: AccountThrottle | undefined;
    let status: BudgetStatus | undefined;
    let noToken: string | undefined;
    let budgetProblem: CheckFinding | undefined;
    if (redis) {
      throttle = new AccountThrottle({ redis, account: cfg.account.name, limits: cfg.account.limits, prefix: cfg.prefix, timeScale });
      try {
        status = await throttle.status();
      } catch (err) {
        const text = redisReplyText(err);
        budgetProblem =
          /NOPERM/.test(text)
            ? warning('budget', `not checked: Redis refused the budget's script (${text}; see redis-acl)`)
            : error('budget', 'BUILDSYNC_REDIS_UNAVAILABLE', `cannot read the budget of account ${cfg.account.name} from Redis: ${text}`);
        throttle = undefined;
        noToken = 'no budget token taken: the budget cannot be read from Redis';
      }
    } else {
      noToken = 'no budget token taken: Redis did not answer';
    }

    if (config.account) {
      findings.push(await checkService(config.account, { throttle, status, noToken, signal: opts.signal, timeoutMs: opts.serviceTimeoutMs }));
    } else {
      findings.push(warning('service', 'not checked: the service settings above are incomplete'));
    }

    if (throttle) findings.push(await checkBudget(throttle, cfg.account.limitsText));
    else if (budgetProblem) findings.push(budgetProblem);
    else if (!redis) findings.push(warning('budget', 'not checked: Redis did not answer'));
  } finally {
    redis?.disconnect();
  }
  return report(findings);
}

function report(findings: CheckFinding[]): CheckReport {
  const exitCode = checkExitCode(findings);
  return { ok: exitCode === 0, exitCode, checks: findings };
}
