/** The real ServiceClient wired to a real sandbox, for the service-* integration tests. */
import { ServiceClient, type ClientOptions } from '../../src/api/index.ts';
import type { Sandbox, SandboxCredentials } from '../../src/sandbox/index.ts';

export function clientFor(sandbox: Sandbox, opts: Partial<ClientOptions> & { creds?: SandboxCredentials } = {}): ServiceClient {
  const { creds = sandbox.credentials, ...rest } = opts;
  return new ServiceClient({
    baseUrl: sandbox.url,
    email: creds.email,
    password: creds.password,
    apiKey: creds.apiKey,
    // Short backoffs: the sandbox answers in microseconds, and the suite must stay fast.
    retryBaseMs: 5,
    retryCapMs: 50,
    ...rest,
  });
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A company-1 project of the main user without an estimate (the dataset gives every tenth one). */
export function freeProjectIds(sandbox: Sandbox): number[] {
  const taken = new Set(sandbox.projectIdsWithEstimate());
  return sandbox
    .visibleProjectIds(sandbox.credentials.email, false)
    .filter((id) => sandbox.project(id)!.NAME !== 'My Documents' && !taken.has(id));
}

/** The highest ID no record holds strictly between two IDs (addProject places a project there). */
export function freeIdBetween(sandbox: Sandbox, low: number, high: number): number {
  for (let id = high - 1; id > low; id--) if (sandbox.project(id) === undefined) return id;
  throw new Error(`no free ID between ${low} and ${high}`);
}

/** Requests the sandbox logged for a path prefix (query ignored in the match). */
export function requestsTo(sandbox: Sandbox, method: string, pathPrefix: string) {
  return sandbox.requests().filter((r) => r.method === method && r.path.toLowerCase().startsWith(pathPrefix.toLowerCase()));
}
