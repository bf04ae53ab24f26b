/**
 * The four operations of docs/service.md and ASP.NET Web API's answers around them: paths match
 * case-insensitively, an unknown controller is a 404 with Message and MessageDetail (docs/service.md, Errors),
 * a known path with another method is a 405.
 */
import type { Handler } from './context.ts';
import { createBill } from './create-bill.ts';
import { createEstimate } from './create-estimate.ts';
import { listProjectsAll, listProjectsPaged } from './list-projects.ts';

interface Route {
  path: string;
  method: 'GET' | 'POST';
  handler: Handler;
}

const ROUTES: readonly Route[] = [
  { path: '/api/projects', method: 'GET', handler: listProjectsPaged },
  { path: '/api/v2/projects', method: 'GET', handler: listProjectsAll },
  { path: '/api/v2/estimates', method: 'POST', handler: createEstimate },
  { path: '/api/bills', method: 'POST', handler: createBill },
];

export type RouteMatch =
  | { kind: 'route'; route: Route }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'not-found'; body: Record<string, string> };

export function matchRoute(method: string, pathname: string, requestUri: string): RouteMatch {
  const path = pathname.toLowerCase().replace(/\/+$/, '');
  const same = ROUTES.filter((r) => r.path === path);
  const route = same.find((r) => r.method === method);
  if (route) return { kind: 'route', route };
  if (same.length > 0) return { kind: 'method-not-allowed', allow: same.map((r) => r.method).join(', ') };
  return { kind: 'not-found', body: notFoundBody(pathname, requestUri) };
}

function notFoundBody(pathname: string, requestUri: string): Record<string, string> {
  const Message = `No HTTP resource was found that matches the request URI '${requestUri}'.`;
  const segments = pathname.split('/').filter(Boolean);
  if (segments[0]?.toLowerCase() !== 'api' || segments.length < 2) return { Message };
  const versioned = segments[1]!.toLowerCase() === 'v2';
  const controller = versioned ? segments[2] : segments[1];
  if (!controller) return { Message };
  const prefix = versioned ? '/api/v2/' : '/api/';
  const known = ROUTES.some((r) => r.path === `${prefix}${controller.toLowerCase()}`);
  return {
    Message,
    MessageDetail: known
      ? `No action was found on the controller '${controller}' that matches the request.`
      : `No type was found that matches the controller named '${controller}'.`,
  };
}
