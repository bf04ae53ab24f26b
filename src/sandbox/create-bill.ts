/** POST /api/Bills?Info=<json> (docs/service.md, Bills). */
import { answerStored, queryParam, type RequestContext } from './context.ts';
import { billRecord, parseBill } from './bill-rules.ts';
import { formatServiceDate } from './project-record.ts';
import { targetProject } from './project-target.ts';

export function createBill(ctx: RequestContext): void {
  const info = queryParam(ctx.url, 'Info') ?? null;
  const parsed = parseBill(info);
  const project = targetProject(ctx, parsed.projectId, 'bill');
  const { store } = ctx.state;
  const now = Date.now();
  const id = store.newBillId();
  const record = billRecord(parsed, { id, nextChildId: store.newChildId, userId: ctx.user.id, now: formatServiceDate(now) });
  store.addBill({ id, projectId: project.id, email: ctx.user.email, info: info!, payload: JSON.parse(info!), record, createdAt: now });
  answerStored(ctx, record);
}
