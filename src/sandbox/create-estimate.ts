/** POST /api/v2/estimates (docs/service.md, Estimates). */
import { answerStored, type RequestContext } from './context.ts';
import { estimateRecord, parseEstimate } from './estimate-rules.ts';
import { formatServiceDate } from './project-record.ts';
import { targetProject } from './project-target.ts';
import { RuleViolation, bad } from './rule-violation.ts';

function readJsonBody(ctx: RequestContext): unknown {
  const type = ctx.req.headers['content-type'];
  if (ctx.body.length === 0) throw bad('The request body is empty; send the estimate as JSON.');
  if (!type || !/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type)) {
    // ASP.NET answers 415 for a body it has no formatter for.
    throw new RuleViolation(415, `The request entity's media type '${type ?? 'application/octet-stream'}' is not supported for this resource; send application/json.`);
  }
  try {
    return JSON.parse(ctx.body.toString('utf8'));
  } catch {
    throw bad('The request body is not valid JSON.');
  }
}

export function createEstimate(ctx: RequestContext): void {
  const payload = readJsonBody(ctx);
  const parsed = parseEstimate(payload);
  const project = targetProject(ctx, parsed.projectId, 'estimate');
  const { store } = ctx.state;
  // Seed §2.2/§3: one estimate per project; the existing one must be deleted first.
  if (store.hasEstimate(project.id)) {
    throw new RuleViolation(400, `An estimate already exists for project ${project.id}. Delete the existing estimate before creating a new one.`);
  }
  const now = Date.now();
  const id = store.newEstimateId();
  const record = estimateRecord(parsed, { id, nextChildId: store.newChildId, userId: ctx.user.id, now: formatServiceDate(now) });
  store.addEstimate({ id, projectId: project.id, email: ctx.user.email, payload, record, createdAt: now });
  answerStored(ctx, record);
}
