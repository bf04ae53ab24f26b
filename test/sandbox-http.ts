/** Plain undici calls against a running sandbox, for the sandbox's own tests. */
import { request } from 'undici';
import type { Sandbox, SandboxCredentials } from '../src/sandbox/index.ts';

export function authHeaders(c: SandboxCredentials): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${c.email}:${c.password}`).toString('base64')}`,
    apikey: c.apiKey,
    accept: 'application/json',
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export async function call(
  sandbox: Sandbox,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  opts: { headers?: Record<string, string>; body?: string; creds?: SandboxCredentials | null } = {},
): Promise<Answer> {
  const creds = opts.creds === undefined ? sandbox.credentials : opts.creds;
  const headers = { ...(creds ? authHeaders(creds) : {}), ...opts.headers };
  if (opts.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const res = await request(`${sandbox.url}${path}`, { method, headers, body: opts.body });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

export const postEstimate = (sandbox: Sandbox, payload: unknown, creds?: SandboxCredentials) =>
  call(sandbox, 'POST', '/api/v2/estimates', { body: JSON.stringify(payload), creds });

export const postBill = (sandbox: Sandbox, info: unknown, creds?: SandboxCredentials) =>
  call(sandbox, 'POST', `/api/Bills?Info=${encodeURIComponent(typeof info === 'string' ? info : JSON.stringify(info))}`, { creds });

/** A company-1 project of the main user's listing with no estimate yet. */
export function freeProjectId(sandbox: Sandbox, skip = 0): number {
  const taken = new Set(sandbox.projectIdsWithEstimate());
  const ids = sandbox
    .visibleProjectIds(sandbox.credentials.email, false)
    .filter((id) => sandbox.project(id)!.NAME !== 'My Documents' && !taken.has(id));
  return ids[skip]!;
}
