import { loadConfig, requireService, type AppConfig, type Env, type ServiceAccount } from '../config.ts';
import { ConfigError, coerceError, redactUrl } from '../errors/index.ts';
import { formatLimits } from '../throttle/index.ts';
import { error, ok, type CheckFinding } from './finding.ts';

/**
 * The variables of CONTRACT.md §1 for the account: `cfg` when they can be read at all, `account`
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
  try {
    const account = requireService(cfg.account, { allowInsecureHttp: opts.allowInsecureHttp });
    const limits = formatLimits(cfg.account.limits);
    return {
      cfg,
      account,
      findings: [
        ok('config', `account ${account.name}: the service at ${account.baseUrl} as ${account.email} (password and API key set); budget ${limits}; Redis ${redactUrl(cfg.redisUrl)}, key prefix ${cfg.prefix}`),
      ],
    };
  } catch (err) {
    return { cfg, findings: [error('config', 'BUILDSYNC_CONFIG_INVALID', configMessage(err))] };
  }
}

function configMessage(err: unknown): string {
  const e = coerceError(err);
  // ConfigError messages name the variable and what to write; anything else is unexpected.
  return e instanceof ConfigError ? e.message : `cannot read the configuration: ${e.message}`;
}

