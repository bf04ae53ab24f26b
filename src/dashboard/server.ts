import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { readEnv } from '../config.ts';
import { coerceError } from '../errors/index.ts';
import { Queues } from '../queue/index.ts';
import { connectRedis } from '../redis/index.ts';
import { basicAuth, checkPassword } from './basic-auth.ts';
import { requireAuthOffLoopback } from './bind-rule.ts';
import { boardRouter } from './board.ts';
import { collectBudget } from './budget-data.ts';
import { renderBudgetPage } from './budget-page.ts';
import { exportRouter } from './export-page.ts';
import { importRouter, uploadKeepMs, type ImportPageOptions } from './import-page.ts';
import { DASHBOARD_DEFAULTS, type Dashboard, type DashboardOptions } from './dashboard-options.ts';
import { LoginLimiter } from './login-limit.ts';
import { ownAddress, parsePublicUrl, type OwnAddress } from './own-address.ts';
import { dashboardGuard } from './same-origin.ts';
import { redisFailureOf } from '../redis/failures.ts';

/**
 * Serves bull-board over the three queues at `/queues` and the budget page at `/budget`
 * (`/budget.json` for scripts); `/` leads to the queues; with `allowImports` the import page at
 * `/import` and the export page at `/export`. Resolves once listening. Refuses an address other
 * than loopback without basic auth (bind-rule.ts), and a short password (basic-auth.ts). One guard
 * (same-origin.ts) answers for every route, then basic auth with its login limit.
 */
export async function startDashboard(opts: DashboardOptions & ImportPageOptions): Promise<Dashboard> {
  const prefix = opts.prefix ?? DASHBOARD_DEFAULTS.prefix;
  const host = opts.host ?? DASHBOARD_DEFAULTS.host;
  requireAuthOffLoopback({ host, auth: opts.auth, allowImports: opts.allowImports });
  if (opts.auth) checkPassword(opts.auth);
  const publicUrl = opts.publicUrl === undefined ? undefined : parsePublicUrl(opts.publicUrl);
  const env = opts.env ?? readEnv();
  // The import page's settings fail before anything is opened.
  if (opts.allowImports) uploadKeepMs(env);
  const { boardPath, budgetPath } = DASHBOARD_DEFAULTS;
  // A long-running reader: its connection reconnects for as long as Redis is away (worker role),
  // but Redis must answer once at start so that a wrong REDIS_URL fails at once.
  const redis = await connectRedis(opts.redisUrl, 'worker');
  const queues = new Queues(redis, prefix);
  const closeData = async () => {
    let first: unknown;
    await queues.close().catch((err: unknown) => (first ??= err));
    await redis.quit().catch((err: unknown) => (first ??= err));
    if (first) throw first;
  };

  const imports = opts.allowImports
    ? importRouter({ redis, prefix, queues, env, timeScale: opts.timeScale, maxUploadMb: opts.maxUploadMb, maxUploadsTotalMb: opts.maxUploadsTotalMb, uploadDir: opts.uploadDir, log: opts.log })
    : undefined;
  // `--allow-imports` allows the page actions that send records or produce files: the export page too.
  const exports = opts.allowImports
    ? exportRouter({ redis, prefix, exportsQueue: queues.exports, env, timeScale: opts.timeScale, keepMs: uploadKeepMs(env), log: opts.log })
    : undefined;
  const app = express();
  app.disable('x-powered-by');
  // The client's address (`req.ip`, for the login limit) is the connection's, unless a proxy
  // serves the dashboard (`--public-url`): then the one the proxy adds last to X-Forwarded-For.
  app.set('trust proxy', publicUrl ? 1 : false);
  // Known once listening; no request arrives before.
  let own: OwnAddress = { hosts: new Set(), origins: new Set(), shown: '' };
  app.use(dashboardGuard(() => own));
  if (opts.auth) app.use(basicAuth(opts.auth, new LoginLimiter(opts.loginLimits)));
  app.get('/', (_req, res) => res.redirect(302, `${boardPath}/`));
  const sources = { redis, prefix, exports: queues.exports, env, timeScale: opts.timeScale, recentExports: DASHBOARD_DEFAULTS.recentExports };
  app.get(`${budgetPath}.json`, (_req, res, next) => {
    collectBudget(sources).then((report) => res.set('Cache-Control', 'no-store').json(report), next);
  });
  app.get(budgetPath, (_req, res, next) => {
    collectBudget(sources).then(
      (report) => res.set('Cache-Control', 'no-store').type('html').send(renderBudgetPage(report, { board: `${boardPath}/`, json: `${budgetPath}.json` })),
      next,
    );
  });
  if (imports) app.use('/import', imports.router);
  if (exports) app.use('/export', exports.router);
  app.use(boardPath, boardRouter(queues.all(), { basePath: boardPath, allowActions: opts.allowActions ?? false, budgetPath }));
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const e = coerceError(err);
    opts.log?.error({ err: e }, 'dashboard request failed');
    const redis = redisFailureOf(e);
    if (redis) res.status(503).type('text/plain').send(`503: ${redis.message}\n`);
    else res.status(500).type('text/plain').send(`500: ${e.message}\n`);
  });

  let server: Server;
  try {
    server = app.listen(opts.port ?? DASHBOARD_DEFAULTS.port, host);
    await once(server, 'listening');
  } catch (err) {
    await imports?.close().catch(() => {});
    await exports?.close().catch(() => {});
    await closeData().catch(() => {});
    throw err;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  own = ownAddress({ host, address: address.address, family: address.family, port: address.port, publicUrl });
  return {
    url: `http://${shownHost}:${address.port}`,
    close: async () => {
      let first: unknown;
      // bull-board's UI polls with keep-alive connections: drop idle ones so close() does not wait for them.
      const closed = new Promise<void>((resolve) => server.close((err) => {
        if (err) first ??= err;
        resolve();
      }));
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 1_000).unref();
      await closed;
      await imports?.close().catch((err: unknown) => (first ??= err));
      await exports?.close().catch((err: unknown) => (first ??= err));
      await closeData().catch((err: unknown) => (first ??= err));
      if (first) throw first;
    },
  };
}
