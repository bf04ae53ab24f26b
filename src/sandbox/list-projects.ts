/** GET /api/Projects?skip&take (docs/service.md, Projects listing (paged)) and GET /api/v2/Projects?includeClientSub (§4.2). */
import { queryParam, type RequestContext } from './context.ts';
import { streamJson, streamJsonArray } from './http-io.ts';
import { generateProject } from './project-record.ts';
import { bad } from './rule-violation.ts';
import type { ProjectEntry } from './dataset.ts';

/** Largest page the paged listing serves; larger `take` is a 400 (DECISIONS.md). */
export const MAX_TAKE = 1000;

const INT32_MAX = 2_147_483_647;

function nonNegativeInteger(name: string, raw: string): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n <= INT32_MAX)) throw bad(`The ${name} query parameter must be a non-negative integer (got "${raw}").`);
  return n;
}

function stream(ctx: RequestContext, list: readonly ProjectEntry[], from: number, to: number): Promise<void> {
  const seed = ctx.state.dataset.seed;
  const rendered = ctx.state.rendered;
  if (rendered) return streamJson(ctx.req, ctx.res, rendered.arrayPieces(list, from, to, ctx.state.faults.listingCut()));
  return streamJsonArray(ctx.req, ctx.res, Math.max(0, to - from), (i) => JSON.stringify(generateProject(list[from + i]!, seed)), ctx.state.faults.listingCut());
}

export function listProjectsPaged(ctx: RequestContext): Promise<void> {
  const rawSkip = queryParam(ctx.url, 'skip');
  const rawTake = queryParam(ctx.url, 'take');
  // Seed §4.1 and §8: both are required; supplying only one is not allowed.
  if (rawSkip === undefined || rawTake === undefined) {
    const missing = [rawSkip === undefined && 'skip', rawTake === undefined && 'take'].filter(Boolean).join(' and ');
    throw bad(`The skip and take query parameters are both required; ${missing} ${missing.includes(' and ') ? 'are' : 'is'} missing.`);
  }
  const skip = nonNegativeInteger('skip', rawSkip);
  const take = nonNegativeInteger('take', rawTake);
  if (take > MAX_TAKE) throw bad(`The take query parameter must be at most ${MAX_TAKE} (got ${take}).`);
  // Seed §4.1 scope: client and subcontractor projects are included.
  const list = ctx.state.dataset.visible(ctx.user, true);
  const from = Math.min(skip, list.length);
  return stream(ctx, list, from, Math.min(list.length, from + take));
}

export function listProjectsAll(ctx: RequestContext): Promise<void> {
  const raw = queryParam(ctx.url, 'includeClientSub');
  if (raw === undefined) throw bad('The includeClientSub query parameter is required (true or false).');
  const value = raw.trim().toLowerCase();
  if (value !== 'true' && value !== 'false') {
    throw bad(`The includeClientSub query parameter must be true or false (got "${raw}").`);
  }
  const list = ctx.state.dataset.visible(ctx.user, value === 'true');
  return stream(ctx, list, 0, list.length);
}
