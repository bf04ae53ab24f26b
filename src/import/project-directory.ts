import type { ServiceClient } from '../api/index.ts';
import { projectResolverFromListing, type ProjectResolver } from '../mapping/index.ts';

/**
 * One listing of the account's visible projects (v2, client/sub included: a bill or estimate may
 * target such a project), kept as ID, number and name only, for resolving `project_number` and
 * `project_name` and checking `project_id` (docs/reading-rules.md). One request of the budget per import.
 */
export async function loadProjectResolver(client: ServiceClient, signal?: AbortSignal): Promise<ProjectResolver> {
  return projectResolverFromListing(await loadProjectListing(client, signal));
}

/** A listing as plain data (ID, number, name of each project): what a resolver is made of, wherever it is made (the import page's reader thread). */
export type ProjectListing = Array<Record<string, unknown>>;

/** The one listing request of `loadProjectResolver`, kept as plain data (`projectResolverFromListing` makes the resolver). */
export async function loadProjectListing(client: ServiceClient, signal?: AbortSignal): Promise<ProjectListing> {
  const compact: ProjectListing = [];
  for await (const p of client.listProjectsV2({ includeClientSub: true, signal })) {
    compact.push({ ID: p.ID, NAME: p.NAME, PROJECT_NUMBER: p.PROJECT_NUMBER });
  }
  return compact;
}
