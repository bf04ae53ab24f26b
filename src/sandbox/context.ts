/** What a route handler gets, and the answer every create shares (with after-store faults). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dataset } from './dataset.ts';
import type { FaultInjector } from './faults.ts';
import type { RenderedRecords } from './rendered-records.ts';
import { sendJson, sendMessage } from './http-io.ts';
import type { Store } from './store.ts';
import type { SandboxUser } from './users.ts';

export interface SandboxState {
  dataset: Dataset;
  store: Store;
  faults: FaultInjector;
  /** Every record's JSON, rendered at start-up (`SandboxOptions.prerender`). */
  rendered?: RenderedRecords;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  user: SandboxUser;
  body: Buffer;
  state: SandboxState;
}

export type Handler = (ctx: RequestContext) => Promise<void> | void;

/** ASP.NET's answer for an unhandled exception. */
export const INTERNAL_ERROR_MESSAGE = 'An error has occurred.';

/** Query parameters bind by name case-insensitively, as in ASP.NET; the first occurrence wins. */
export function queryParam(url: URL, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** After a record was stored: answer it, or fail or drop as the fault settings say. */
export function answerStored(ctx: RequestContext, record: Record<string, unknown>): void {
  const fault = ctx.state.faults.afterStore();
  if (fault === 'drop') ctx.req.socket.destroy();
  else if (fault === 'fail') sendMessage(ctx.req, ctx.res, 500, INTERNAL_ERROR_MESSAGE);
  else sendJson(ctx.req, ctx.res, 200, record);
}
