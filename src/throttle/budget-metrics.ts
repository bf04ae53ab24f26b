import { Gauge, type Registry } from 'prom-client';
import type { AccountThrottle } from './account-throttle.ts';
import type { BudgetStatus } from './budget-status.ts';

/**
 * Prometheus gauges of every account's budget, read from Redis at scrape time (prom-client's
 * async `collect`), so that a worker's /metrics shows what all workers together have left:
 * - `buildsync_rate_budget_remaining{account,window}` requests left in the window;
 * - `buildsync_rate_budget_limit{account,window}` the effective (configured or learned) limit;
 * - `buildsync_rate_budget_used{account,window}` sends counted in the window;
 * - `buildsync_rate_paused_seconds{account}` how long until the account may send again.
 */
export function registerBudgetMetrics(registry: Registry, throttles: () => Iterable<AccountThrottle>): void {
  // prom-client collects all metrics of a scrape in parallel: one status read serves the four.
  let pending: Promise<BudgetStatus[]> | undefined;
  const snapshot = (): Promise<BudgetStatus[]> => {
    pending ??= Promise.all([...throttles()].map((t) => t.status())).finally(() => {
      setImmediate(() => (pending = undefined));
    });
    return pending;
  };
  const perWindow = (name: string, help: string, value: (w: BudgetStatus['windows'][number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['account', 'window'] as const,
      registers: [registry],
      async collect() {
        const statuses = await snapshot();
        this.reset();
        for (const s of statuses) for (const w of s.windows) this.set({ account: s.account, window: w.window }, value(w));
      },
    });
  perWindow('buildsync_rate_budget_remaining', 'Requests left in the rate window, shared by all workers', (w) => w.remaining);
  perWindow('buildsync_rate_budget_limit', 'Effective request limit of the rate window (the lower of configured and learned)', (w) => w.limit);
  perWindow('buildsync_rate_budget_used', 'Requests counted in the rate window', (w) => w.used);
  new Gauge({
    name: 'buildsync_rate_paused_seconds',
    help: 'Seconds until the account may send again (0: it may send now)',
    labelNames: ['account'] as const,
    registers: [registry],
    async collect() {
      const statuses = await snapshot();
      this.reset();
      for (const s of statuses) this.set({ account: s.account }, s.waitMs / 1000);
    },
  });
}
