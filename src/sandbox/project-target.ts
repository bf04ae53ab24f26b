/** Which project a create may target: visible to the user, not deleted, not My Documents. */
import type { RequestContext } from './context.ts';
import type { ProjectEntry } from './dataset.ts';
import { RuleViolation, bad } from './rule-violation.ts';

export function targetProject(ctx: RequestContext, projectId: number, what: 'estimate' | 'bill'): ProjectEntry {
  const entry = ctx.state.dataset.get(projectId);
  // Another company's project the user cannot see answers like a missing one: no existence leak.
  if (!entry || !ctx.state.dataset.sees(ctx.user, entry)) {
    throw new RuleViolation(404, `Project ${projectId} was not found.`);
  }
  if (entry.kind === 'my-documents') {
    throw bad(`Project ${projectId} is a My Documents record, not a project; ${what === 'estimate' ? 'an estimate' : 'a bill'} cannot be created on it.`);
  }
  return entry;
}
