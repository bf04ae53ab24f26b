import { ServiceClient } from '../api/index.ts';
import { DEFAULTS, type ServiceAccount } from '../config.ts';
import {
  AuthError,
  BuildsyncError,
  HttpError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ServiceNotFoundError,
  ThrottledError,
  formatWait,
} from '../errors/index.ts';
import { THROTTLE_DEFAULTS, budgetUsedReason, type AccountThrottle, type BudgetStatus } from '../throttle/index.ts';
import { CHECK_DEFAULTS, error, ok, warning, type CheckFinding } from './finding.ts';

/**
 * One cheap authenticated read: the first page of GET /api/Projects?skip=0&take=2 (docs/service.md, Projects listing (paged); two
 * is the smallest page the paged reader takes), stopped after its first project. It takes one
 * token from the account's budget when `throttle` is given; when the budget has no room now,
 * nothing is sent and the finding says when it has room again.
 */
export async function checkService(
  account: ServiceAccount,
  opts: { throttle?: AccountThrottle; status?: BudgetStatus; noToken?: string; signal?: AbortSignal; timeoutMs?: number },
): Promise<CheckFinding> {
  // A wait the throttle would sit through inline (a per-second window) is no reason to skip.
  if (opts.throttle && opts.status && opts.status.waitMs > THROTTLE_DEFAULTS.maxInlineWaitMs) return budgetSpent(opts.status);
  const client = new ServiceClient({
    baseUrl: account.baseUrl,
    email: account.email,
    password: account.password.reveal(),
    apiKey: account.apiKey.reveal(),
    connections: 1,
    timeoutMs: opts.timeoutMs ?? CHECK_DEFAULTS.serviceTimeoutMs,
    retries: CHECK_DEFAULTS.serviceRetries,
    gate: opts.throttle,
  });
  const vars = accountVars(account.name);
  try {
    let first: number | undefined;
    for await (const project of client.listProjectsPaged({ pageSize: 2, signal: opts.signal })) {
      first = project.ID;
      break;
    }
    const token = opts.throttle ? 'one token taken from the budget' : (opts.noToken ?? 'no budget token taken');
    return ok(
      'service',
      `${account.baseUrl} accepted the credentials of ${account.email}: GET /api/Projects?skip=0&take=2 answered${first === undefined ? ' (no project visible)' : ''}; ${token}`,
    );
  } catch (err) {
    if (err instanceof ThrottledError) {
      // The budget filled between the status read and the request, or a 429 paused the account.
      const status = opts.throttle ? await opts.throttle.status().catch(() => undefined) : undefined;
      if (status && status.waitMs > 0) return budgetSpent(status);
      return warning('service', `not checked: ${err.message}. Run check again then.`);
    }
    if (err instanceof AuthError) {
      return error(
        'service',
        err.code,
        `${account.baseUrl} refused the credentials (${err.status}${err.serviceMessage ? `: ${err.serviceMessage}` : ''}). Check ${vars.email}, ${vars.password} and ${vars.apiKey}.`,
      );
    }
    if (err instanceof RateLimitError) {
      return warning('service', `the service answered 429 (rate limit) to the one check request: the credentials were not refused, but the account's limit is spent now. Run check again later, and lower ${vars.limits} if this keeps happening.`);
    }
    if (err instanceof NotFoundError) {
      const notFound = new ServiceNotFoundError(account.baseUrl, { path: '/api/Projects', baseUrlVariable: vars.baseUrl, cause: err });
      return error('service', notFound.code, notFound.message);
    }
    if (err instanceof NetworkError) {
      return error('service', err.code, `${account.baseUrl} could not be reached: ${err.message}. Check ${vars.baseUrl} and the network, or run check again later.`);
    }
    if (err instanceof ServerError) {
      return error('service', err.code, `${account.baseUrl} kept failing: ${err.message}`);
    }
    if (err instanceof HttpError || err instanceof BuildsyncError) {
      if (err instanceof BuildsyncError && err.code === 'BUILDSYNC_INTERRUPTED') throw err;
      // Any other answer the check cannot use (a 400, an unexpected status, a body that is not the
      // service's): the service is failing for this request; run again later (exit 4).
      return error('service', 'BUILDSYNC_RETRY_LATER', `${account.baseUrl}: ${err.message}`);
    }
    throw err;
  } finally {
    await client.close().catch(() => undefined);
  }
}

function budgetSpent(status: BudgetStatus): CheckFinding {
  const binding = status.windows.find((w) => w.waitMs > 0 && w.waitMs >= status.waitMs);
  const why = binding ? `the account's ${budgetUsedReason(binding.window, binding.limit)}` : (status.reason ?? 'the account is paused');
  const at = status.pausedUntil ?? new Date(status.at.getTime() + status.waitMs);
  return warning(
    'service',
    `not checked, so as not to send past the budget: ${why}. No request was sent; the budget has room again at ${at.toISOString()} (in ${formatWait(status.waitMs)}). Run check again then.`,
  );
}


/** The variable names of an account (README, Configuration). */
function accountVars(name: string): { baseUrl: string; email: string; password: string; apiKey: string; limits: string } {
  const p = name === DEFAULTS.account ? 'BUILDSYNC_' : `BUILDSYNC_${name.toUpperCase()}_`;
  return { baseUrl: `${p}BASE_URL`, email: `${p}EMAIL`, password: `${p}PASSWORD`, apiKey: `${p}API_KEY`, limits: `${p}LIMITS` };
}

