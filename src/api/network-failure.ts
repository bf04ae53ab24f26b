/**
 * Classifies a connection-level failure by whether the request may have reached the service.
 * Only failures while opening the connection prove that nothing was sent: refused, unreachable,
 * name not resolved, connect timeout. Anything later (reset, "other side closed", headers timeout)
 * happened after the request was written or may have; a create that fails so is `unknown`
 * (README, Reports, re-runs and `unknown`) and is never resent automatically, since the service may have stored it.
 */
import { BuildsyncError, NetworkError } from '../errors/index.ts';

const BEFORE_SENDING = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  const visit = (e: unknown, depth: number) => {
    if (!e || typeof e !== 'object' || depth > 3) return;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    // Happy-eyeballs connects (Node's autoSelectFamily) fail with an AggregateError of attempts.
    if (e instanceof AggregateError) for (const inner of e.errors) visit(inner, depth + 1);
    visit((e as { cause?: unknown }).cause, depth + 1);
  };
  visit(err, 0);
  return codes;
}

/** True when the failure proves the request never left this process. */
export function certainlyNotSent(err: unknown): boolean {
  const codes = codesOf(err);
  return codes.length > 0 && codes.every((c) => BEFORE_SENDING.has(c));
}

/** Wraps a transport failure; `what` is "METHOD /path" without the query. */
export function toNetworkError(err: unknown, what: string): BuildsyncError {
  if (err instanceof BuildsyncError) return err;
  const code = codesOf(err)[0] ?? (err as Error | undefined)?.name ?? 'unknown';
  if (certainlyNotSent(err)) {
    return new NetworkError(`${what}: could not connect to the service (${code}); nothing was sent`, false, { cause: err });
  }
  return new NetworkError(
    `${what}: the connection failed after the request was sent (${code}: ${(err as Error | undefined)?.message ?? String(err)}); the service may or may not have acted on it`,
    true,
    { cause: err },
  );
}
