/**
 * The import page's requests as its own script makes them (Host and Origin of the dashboard), for
 * HTTP-level tests; every answer is kept in `seen` so that a test can look for secrets in all of them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface Answer {
  status: number;
  text: string;
  json: any;
  /** The answer's Content-Type. */
  type: string;
}

export function pageClient(base: string, seen: string[] = []) {
  const call = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { Origin: base, ...(init.headers as Record<string, string>) } });
    const text = await res.text();
    seen.push(`${res.status} ${path}\n${JSON.stringify([...res.headers])}\n${text}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json, type: res.headers.get('content-type') ?? '' };
  };
  const post = (path: string, body: unknown) => call(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return {
    call,
    upload: (name: string, body: string, kind = 'bills') =>
      call(`/import/upload?kind=${kind}&sheet=`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': name }, body }),
    check: (upload: string, columns: Record<string, string>, extra: Record<string, unknown> = {}) =>
      post('/import/check', { upload, kind: 'bills', account: 'default', sheet: '', columns, dateFormat: 'auto', decimalSeparator: 'auto', ...extra }),
    send: (upload: string) => post('/import/send', { upload, skipInvalid: true }),
    mapping: (upload: string, text: string) => post('/import/mapping', { upload, kind: 'bills', sheet: '', name: 'mapping.json', text }),
    post,
  };
}

/** Each header mapped to the column of its own name. */
export const choices = (headers: string[]) => Object.fromEntries(headers.map((h) => [h, h]));

/** The upload directories (`u-*`) inside the dashboard's private directory under `parent`. */
export function uploadDirs(parent: string): string[] {
  return readdirSync(parent)
    .filter((d) => d.startsWith('buildsync-uploads-'))
    .flatMap((d) => readdirSync(join(parent, d)).filter((u) => u.startsWith('u-')).map((u) => join(parent, d, u)));
}

export async function waitFor(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
