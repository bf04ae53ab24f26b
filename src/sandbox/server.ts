/**
 * startSandbox(): the whole service of the seed over node:http. One request goes: read the body,
 * wait the injected latency, authenticate (401), count against the user's budget (429), route
 * (404/405), draw a before-store fault, run the handler. The sandbox logs nothing itself.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate } from './auth.ts';
import { INTERNAL_ERROR_MESSAGE, type SandboxState } from './context.ts';
import { Dataset } from './dataset.ts';
import { FaultInjector } from './faults.ts';
import { BodyTooLargeError, MAX_BODY_BYTES, readBody, sendJson, sendMessage } from './http-io.ts';
import {
  WINDOW_NAMES, normalizeFaults, normalizeLatency, normalizeLimits, normalizeOptions, type Limits, type NormalizedOptions,
} from './options.ts';
import { generateProject } from './project-record.ts';
import { RateLimiter } from './rate-limiter.ts';
import { rateLimitMessage } from './rate-message.ts';
import { RenderedRecords } from './rendered-records.ts';
import { matchRoute } from './routes.ts';
import { RuleViolation } from './rule-violation.ts';
import { Store } from './store.ts';
import type { RequestLogEntry, Sandbox, SandboxOptions, WindowName } from './types.ts';
import { USERS, findUser, type SandboxUser } from './users.ts';

/** Longer request targets get 414, before authentication, as a front-end server would (DECISIONS.md). */
export const MAX_URL_LENGTH = 8192;

function scaledWindows(o: NormalizedOptions): Record<WindowName, number> {
  const out = {} as Record<WindowName, number>;
  for (const name of WINDOW_NAMES) out[name] = o.windowMs[name] / o.timeScale;
  return out;
}

export async function startSandbox(opts?: SandboxOptions): Promise<Sandbox> {
  const o = normalizeOptions(opts);
  const dataset = new Dataset(o.projects, o.seed);
  const state: SandboxState = {
    dataset,
    store: new Store(dataset.seedEstimateProjectIds()),
    faults: new FaultInjector(o.faults),
    ...(o.prerender ? { rendered: new RenderedRecords(dataset.all(), dataset.seed) } : {}),
  };
  let latencyMs = o.latencyMs;
  let limits: Limits = o.limits;
  const newLimiter = (): RateLimiter => new RateLimiter({ limits, windowMs: scaledWindows(o), counting: o.counting });
  let limiter = newLimiter();
  let log: RequestLogEntry[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry: RequestLogEntry = { at: Date.now(), email: null, method: req.method ?? '', path: req.url ?? '', status: 0 };
    log.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
    });

    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        sendMessage(req, res, 413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
      }
      return; // otherwise the caller went away while sending
    }
    if (latencyMs > 0) await sleep(latencyMs);

    const target = req.url ?? '/';
    if (target.length > MAX_URL_LENGTH) {
      sendMessage(req, res, 414, `The request URL is ${target.length} characters long; the service accepts at most ${MAX_URL_LENGTH}.`);
      return;
    }

    const auth = authenticate(req);
    if (!auth.user) {
      sendMessage(req, res, 401, auth.message, { 'WWW-Authenticate': 'Basic realm="buildsync sandbox"' });
      return;
    }
    const user = auth.user;
    entry.email = user.email;

    const decision = limiter.take(user.email, Date.now());
    if (!decision.allowed) {
      const headers = o.retryAfterHeader ? { 'Retry-After': String(Math.max(1, Math.ceil(decision.waitMs! / 1000))) } : {};
      sendMessage(req, res, 429, rateLimitMessage(decision.limit!, decision.window!, decision.waitMs!), headers);
      return;
    }

    const requestUri = `http://${req.headers.host ?? `${o.host}:${port}`}${target}`;
    await dispatch(req, res, target, requestUri, user, body, state);
  }

  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    handle(req, res).catch(() => {
      // A bug in the sandbox: answer like the real service would, never crash the process.
      if (!res.headersSent) sendMessage(req, res, 500, INTERNAL_ERROR_MESSAGE);
      else res.destroy();
    });
  });
  await listen(server, o.port, o.host);
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host;

  const userOrThrow = (email: string) => {
    const user = findUser(email);
    if (!user) throw new RangeError(`visibleProjectIds: no sandbox user ${email}`);
    return user;
  };

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    credentials: { email: USERS[0]!.email, password: USERS[0]!.password, apiKey: USERS[0]!.apiKey },
    users: USERS.map((u) => ({ email: u.email, password: u.password, apiKey: u.apiKey })),
    estimates: () => [...state.store.estimates],
    bills: () => [...state.store.bills],
    requests: () => [...log],
    visibleProjectIds: (email, includeClientSub) => dataset.visible(userOrThrow(email), includeClientSub).map((e) => e.id),
    project: (id) => {
      const e = dataset.get(id);
      return e ? generateProject(e, dataset.seed) : undefined;
    },
    deletedProjectIds: () => dataset.deletedIds(),
    projectIdsWithEstimate: () => state.store.projectIdsWithEstimate(),
    addProject: (overrides) => dataset.add(overrides),
    deleteProject: (id) => dataset.delete(id),
    editProject: (id, fields) => dataset.edit(id, fields),
    setFaults: (f) => state.faults.set(normalizeFaults(f)),
    setLatency: (ms) => {
      latencyMs = normalizeLatency(ms);
    },
    setLimits: (l) => {
      limits = normalizeLimits(l);
      limiter = newLimiter();
    },
    resetCounters: () => {
      limiter = newLimiter();
      log = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A request past its checks: to its route (404 or 405 when there is none), through a fault drawn before the store. */
async function dispatch(req: IncomingMessage, res: ServerResponse, target: string, requestUri: string, user: SandboxUser, body: Buffer, state: SandboxState): Promise<void> {
  const url = new URL(target, 'http://sandbox.invalid');
  const match = matchRoute(req.method ?? '', url.pathname, requestUri);
  if (match.kind === 'not-found') {
    sendJson(req, res, 404, match.body);
    return;
  }
  if (match.kind === 'method-not-allowed') {
    sendMessage(req, res, 405, `The requested resource does not support http method '${req.method}'.`, { Allow: match.allow });
    return;
  }

  const fault = state.faults.beforeStore(match.route.method === 'POST');
  if (fault === 'drop') {
    req.socket.destroy();
    return;
  }
  if (fault === 'fail') {
    sendMessage(req, res, 500, INTERNAL_ERROR_MESSAGE);
    return;
  }
  try {
    await match.route.handler({ req, res, url, user, body, state });
  } catch (err) {
    if (err instanceof RuleViolation) sendMessage(req, res, err.status, err.message);
    else throw err;
  }
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
