import { loadConfig, requireService, type AccountConfig, type AppConfig, type Env, type ServiceAccount } from '../config.ts';
import { ConfigError, coerceError, redactUrl } from '../errors/index.ts';
import { formatLimits } from '../throttle/index.ts';
import { error, ok, type AccountReading, type CheckFinding } from './finding.ts';

/**
 * The variables of README, Configuration for the account: `cfg` when they can be read at all, `account`
 * when the service settings are complete. The messages name variables, never their secret values.
 */
export function checkConfig(opts: { account?: string; allowInsecureHttp?: boolean; env?: Env }): {
  findings: CheckFinding[];
  cfg?: AppConfig;
  account?: ServiceAccount;
} {
  let cfg: AppConfig;
  try {
    cfg = loadConfig({ account: opts.account, env: opts.env });
  } catch (err) {
    return { findings: [error('config', 'BUILDSYNC_CONFIG_INVALID', configMessage(err))] };
  }
  const reading = accountReading(cfg.account);
  try {
    const account = requireService(cfg.account, { allowInsecureHttp: opts.allowInsecureHttp });
    const limits = formatLimits(cfg.account.limits);
    return {
      cfg,
      account,
      findings: [
        { ...ok('config', `account ${account.name}: the service at ${account.baseUrl} as ${account.email} (password and API key set); budget ${limits}; Redis ${redactUrl(cfg.redisUrl)}, key prefix ${cfg.prefix}`), reading },
      ],
    };
  } catch (err) {
    return { cfg, findings: [{ ...error('config', 'BUILDSYNC_CONFIG_INVALID', configMessage(err)), reading }] };
  }
}

/** How the account's files are read, from its configuration. */
export function accountReading(account: AccountConfig): AccountReading {
  return {
    dateFormat: { order: account.dateFormat ?? null, variable: account.dateFormatVariable },
    currency: { code: account.currency, variable: account.currencyVariable, set: account.currencySet },
  };
}

const FIRST = { DMY: 'day first', MDY: 'month first', YMD: 'year first (year, month, day)' } as const;

/** The lines `check` prints under the config check for `reading`. */
export function readingLines(reading: AccountReading): string[] {
  const { dateFormat: d, currency: c } = reading;
  return [
    d.order === null
      ? `dates: files that do not prove their day/month order stop and ask for the order (${d.variable} is not set)`
      : `dates: files that do not prove their day/month order are read ${FIRST[d.order]} (${d.variable}=${d.order})`,
    c.set ? `currency: ${c.code} (${c.variable})` : `currency: ${c.code}, the default (${c.variable} is not set)`,
  ];
}

function configMessage(err: unknown): string {
  const e = coerceError(err);
  // ConfigError messages name the variable and what to write; anything else is unexpected.
  return e instanceof ConfigError ? e.message : `cannot read the configuration: ${e.message}`;
}

