import { ResponseInvalidError } from '../errors/index.ts';

/**
 * The ID of a record the service just created (docs/service.md, Overview: "every created record receives a unique
 * numeric identifier in a field named ID"). The rest of the record is not shown by the seed and is
 * handed back untouched.
 */
export function createdId(body: unknown, what: string): number {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { ID?: unknown }).ID : undefined;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  // A numeric ID written as decimal text is the same identifier.
  if (typeof id === 'string' && /^\d{1,15}$/.test(id)) return Number(id);
  throw new ResponseInvalidError(
    `${what}: the service answered success but the created record has no integer ID (got ${JSON.stringify(body)?.slice(0, 200)})`,
  );
}
